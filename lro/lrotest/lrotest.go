package lrotest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Defaults of the specification and of the kit. Each is what the zero value
// of the corresponding field means.
const (
	// DefaultThresholdTokens is the specification's default threshold.
	DefaultThresholdTokens = 1600
	// DefaultPrefix is the first part of offloaded file names.
	DefaultPrefix = "atlatl"
	// DefaultDetailArgument is the tool argument that selects the detail
	// level.
	DefaultDetailArgument = "detail"
	// DefaultQueryArgument is the tool argument recorded as the header's
	// query.
	DefaultQueryArgument = "query"
	// DefaultTTL is the specification's default time to live of a file.
	DefaultTTL = time.Hour
	// DefaultCleanupWithin is how long the cleanup check waits for the
	// server to delete an expired file.
	DefaultCleanupWithin = 10 * time.Second
	// DefaultRecipeTimeout bounds the run of one recipe.
	DefaultRecipeTimeout = 30 * time.Second
)

// maxClockSkew is how far the times a server writes (the ULID of the file
// name, the header's timestamp) may lie outside the call.
const maxClockSkew = 5 * time.Minute

// ErrInvalidConfig is wrapped by the error [Check] returns for a nil session,
// a missing tool name or large arguments, an invalid field of [Config], or a
// tool that the server does not list.
var ErrInvalidConfig = errors.New("lrotest: invalid configuration")

// Config describes the tool to check and what the kit may assume about the
// server. A zero field means its documented default.
type Config struct {
	// Tool is the name of the tool to call. It is required.
	Tool string

	// Large are arguments whose result set the server estimates above its
	// threshold, so that it is offloaded. They are required.
	Large map[string]any

	// Small are arguments whose result set is within the threshold, so that
	// it is returned inline. If nil, L1.inline.small is skipped.
	Small map[string]any

	// Level is the conformance level to check; requirements above it are
	// left out of the report. If zero, defaults to [Level3].
	Level Level

	// Details are detail levels ("light", "medium", "full") to call the tool
	// with, each added to Large under DetailArgument, in addition to the
	// call with Large as given. If nil, only Large as given is called, and
	// the detail-dependent recipe checks cover its detail level alone.
	Details []string

	// DetailArgument is the tool argument that selects the detail level. If
	// empty, defaults to [DefaultDetailArgument].
	DetailArgument string

	// DefaultDetail is the detail level the tool uses when a call names
	// none. If empty, it is not checked.
	DefaultDetail string

	// QueryArgument is the tool argument whose string value the header
	// records as its query. If empty, defaults to [DefaultQueryArgument].
	QueryArgument string

	// ThresholdTokens is the server's threshold. If zero, defaults to
	// [DefaultThresholdTokens], the specification's default.
	ThresholdTokens int

	// Prefix is the first part of file names, {prefix}-{operation}-{ulid}.jsonl.
	// If empty, defaults to [DefaultPrefix].
	Prefix string

	// Operation is the operation the tool's files must name. If empty, the
	// header, summary and file name need only agree with each other.
	Operation string

	// OutputDir is the folder files must be written to. If empty, any
	// folder is accepted.
	OutputDir string

	// InProcess runs the recipes with github.com/itchyny/gojq even when jq
	// is installed. Without jq (or sh), recipes always run in process.
	InProcess bool

	// RecipeTimeout bounds each recipe's run. If zero, defaults to
	// [DefaultRecipeTimeout].
	RecipeTimeout time.Duration

	// Cleanup enables the L2.cleanup check. If nil, it is skipped: over the
	// protocol, cleanup can only be watched in a server that sweeps often.
	Cleanup *Cleanup

	// FallbackSession is a session to a second instance of the server whose
	// output folder cannot be written (for example, one started with
	// ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR naming a folder that is then
	// replaced by a regular file).
	// It enables the L3.fallback checks; if nil, they are skipped.
	FallbackSession *mcp.ClientSession
}

// Cleanup configures the L2.cleanup check. The kit plants, in the server's
// output folder, a file named by the convention whose ULID time (and
// modification time) lies TTL plus one minute in the past, and an unrelated
// file; the server's cleanup must delete the first within Within and leave
// the second, and this run's offloaded files, alone.
type Cleanup struct {
	// Dir is the server's output folder. If empty, defaults to the folder of
	// the first offloaded file.
	Dir string
	// TTL is the server's time to live of a file. If zero, defaults to
	// [DefaultTTL].
	TTL time.Duration
	// Within is how long to wait for the deletion, counted from when the
	// file is planted; the server must sweep at least this often. If zero,
	// defaults to [DefaultCleanupWithin].
	Within time.Duration
}

// Status is the outcome of one requirement.
type Status int

const (
	// Pass: every check of the requirement passed.
	Pass Status = iota
	// Fail: a MUST was violated.
	Fail
	// Warn: a SHOULD was not followed.
	Warn
	// Skip: the requirement could not be checked; Result.Reasons says why.
	Skip
)

// String returns "pass", "FAIL", "warn" or "skip".
func (s Status) String() string {
	switch s {
	case Pass:
		return "pass"
	case Fail:
		return "FAIL"
	case Warn:
		return "warn"
	case Skip:
		return "skip"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Result is the outcome of one requirement.
type Result struct {
	Requirement
	Status Status
	// Reasons say what was violated (Fail, Warn) or why the requirement
	// could not be checked (Skip), each prefixed by the call it concerns.
	// They are empty for Pass.
	Reasons []string
}

// Report is the outcome of a [Check]: one Result per requirement up to the
// configured level, in the order of [Requirements].
type Report struct {
	// Tool is the tool checked.
	Tool string
	// Level is the level checked.
	Level Level
	// Recipes says how the recipe commands were run: with sh and which jq,
	// or in process with gojq.
	Recipes string
	// Files says how the offloaded files were read: from file_path on
	// this machine, or, for a server that keeps its results in a store,
	// fetched with resources/read into private copies that the checks
	// and recipes read in place of file_path.
	Files string
	// Results holds every requirement up to Level.
	Results []Result
}

// OK reports whether no requirement failed. Warnings and skips do not count
// as failures.
func (r *Report) OK() bool {
	return len(r.Failed()) == 0
}

// Failed returns the results with status [Fail].
func (r *Report) Failed() []Result {
	var out []Result
	for _, res := range r.Results {
		if res.Status == Fail {
			out = append(out, res)
		}
	}
	return out
}

// Result returns the result of the requirement with the given ID.
func (r *Report) Result(id string) (Result, bool) {
	for _, res := range r.Results {
		if res.ID == id {
			return res, true
		}
	}
	return Result{}, false
}

// maxDetail is how much of the first reason the table shows.
const maxDetail = 140

// WriteTable writes the report as a table (requirement, level, kind: MUST or SHOULD,
// result, first reason), followed by every reason of each requirement that
// failed, warned or was skipped.
func (r *Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "REQUIREMENT\tLEVEL\tKIND\tRESULT\tDETAIL\n")
	for _, res := range r.Results {
		detail := ""
		if len(res.Reasons) > 0 {
			detail = oneLine(res.Reasons[0], maxDetail)
			if n := len(res.Reasons) - 1; n > 0 {
				detail += fmt.Sprintf(" (+%d more)", n)
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", res.ID, int(res.Level), res.Strength, res.Status, detail)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	counts := map[Status]int{}
	for _, res := range r.Results {
		counts[res.Status]++
	}
	verdict := "PASS"
	if counts[Fail] > 0 {
		verdict = "FAIL"
	}
	files := ""
	if r.Files != "" {
		files = " Files were " + r.Files + "."
	}
	if _, err := fmt.Fprintf(w, "\n%s: tool %s, level %s: %d pass, %d fail, %d warn, %d skip. Recipes ran %s.%s\n",
		verdict, r.Tool, r.Level, counts[Pass], counts[Fail], counts[Warn], counts[Skip], r.Recipes, files); err != nil {
		return err
	}
	for _, res := range r.Results {
		if res.Status == Pass || len(res.Reasons) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s %s (%s): %s\n", res.Status, res.ID, res.Strength, res.Spec)
		for _, reason := range res.Reasons {
			if _, err := fmt.Fprintf(w, "  - %s\n", reason); err != nil {
				return err
			}
		}
	}
	return nil
}

// oneLine shortens s to one line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if rs := []rune(s); len(rs) > n {
		return string(rs[:n-1]) + "…"
	}
	return s
}

// Check runs every check up to cfg.Level against the tool cfg.Tool of the
// server behind cs, and reports every requirement, violations all at once.
// It never stops at the first violation: a requirement that depends on
// something that failed is skipped with the reason.
//
// Check only uses the protocol (tools/list, tools/call and, for results
// with a handle, resources/read) and the file system, which the kit shares
// with the server, as LRO's clients do: it reads the offloaded files, runs
// their recipes, and, for L2.cleanup, plants files in the output folder
// (and removes them afterwards). A result that the server keeps in a store
// is fetched into a private temporary folder, removed before Check
// returns; the kit writes nowhere else. It works with a server written in
// any language, over any transport.
//
// Check returns an error wrapping [ErrInvalidConfig] only when it cannot run
// at all: a nil cs, an invalid cfg, or a tool the server does not list.
// Violations are in the report, never in the error.
func Check(ctx context.Context, cs *mcp.ClientSession, cfg *Config) (*Report, error) {
	c, err := newChecker(cs, cfg)
	if err != nil {
		return nil, err
	}
	if err := c.findTool(ctx); err != nil {
		return nil, err
	}
	defer c.removeTemp()
	c.run(ctx)
	return c.report(), nil
}

// Run is [Check] for tests, in the manner of testing/slogtest.Run: it reports
// every failed requirement with t.Errorf, and warnings and skips with t.Logf.
// It calls t.Fatal if the check cannot run (see [Check]).
func Run(t *testing.T, cs *mcp.ClientSession, cfg *Config) {
	t.Helper()
	rep, err := Check(t.Context(), cs, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range rep.Results {
		msg := fmt.Sprintf("%s (Level %d, %s): %s", res.ID, int(res.Level), res.Strength, strings.Join(res.Reasons, "; "))
		switch res.Status {
		case Fail:
			t.Errorf("%s\n\tspecification: %s", msg, res.Spec)
		case Warn, Skip:
			t.Logf("%s: %s", res.Status, msg)
		}
	}
}
