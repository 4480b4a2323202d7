package lrotest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/jqcmd"
	"github.com/zircote/lro-go/internal/spec"
	"github.com/zircote/lro-go/lro"
)

// Config names the tool to check and what the kit may assume about the
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

	// Details are detail levels ("light", "medium", "full") to call the tool
	// with as well, each added to Large under the detail argument. If nil,
	// only Large as given is called.
	Details []string

	// Level is the conformance level to check, 1 (basic), 2 (standard) or
	// 3 (full); requirements above it are left out. If zero, defaults to 3.
	Level int

	// Server holds the LRO settings the server runs with, in the words of
	// lro.Options, whatever its language: ThresholdTokens, Prefix,
	// QueryArgument, DetailArgument and TTL, with lro's defaults; Operation,
	// DefaultDetail and the folder of file_path (ClientDir, else OutputDir),
	// checked when set; CleanupInterval enables L2.cleanup, which plants an
	// expired file in OutputDir (or the first offloaded file's folder) and
	// waits that long for the server to delete it. If nil, every field is zero.
	Server *lro.Options

	// Fallback is a session to a second instance of the server whose output
	// folder cannot be written. It enables the L3.fallback checks; if nil,
	// they are skipped.
	Fallback *mcp.ClientSession
}

// errInvalidConfig is wrapped by the error of [Check] when it cannot run.
var errInvalidConfig = errors.New("lrotest: invalid configuration")

// maxClockSkew is how far the times a server writes (the ULID of the file
// name, the header's timestamp) may lie outside the call.
const maxClockSkew = 5 * time.Minute

const recipeTimeout = 30 * time.Second

// status is the outcome of one requirement.
type status int

const (
	pass status = iota // every check of the requirement passed
	fail               // a MUST was violated
	warn               // a SHOULD was not followed
	skip               // the requirement could not be checked
)

func (s status) String() string { return [...]string{"pass", "FAIL", "warn", "skip"}[s] }

// result is the outcome of one requirement, with the reasons of a
// violation or a skip, each prefixed by the call it concerns.
type result struct {
	requirement
	status  status
	reasons []string
}

// report is the outcome of a check: one result per requirement up to the
// level, in catalogue order, how recipes ran and how files were read.
type report struct {
	tool           string
	level          int
	recipes, files string
	results        []result
}

func (r *report) ok() bool {
	return !slices.ContainsFunc(r.results, func(res result) bool { return res.status == fail })
}

var levelNames = map[int]string{1: "1 (basic)", 2: "2 (standard)", 3: "3 (full)"}

// writeTable writes the report as a table (requirement, level, kind,
// result, first reason), then every reason of each requirement that failed,
// warned or was skipped.
func (r *report) writeTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "REQUIREMENT\tLEVEL\tKIND\tRESULT\tDETAIL\n")
	counts := map[status]int{}
	for _, res := range r.results {
		counts[res.status]++
		detail := ""
		if len(res.reasons) > 0 {
			detail = oneLine(res.reasons[0], 140)
			if n := len(res.reasons) - 1; n > 0 {
				detail += fmt.Sprintf(" (+%d more)", n)
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\n", res.id, res.level, res.strength, res.status, detail)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	verdict, files := "PASS", ""
	if counts[fail] > 0 {
		verdict = "FAIL"
	}
	if r.files != "" {
		files = " Files were " + r.files + "."
	}
	fmt.Fprintf(w, "\n%s: tool %s, level %s: %d pass, %d fail, %d warn, %d skip. Recipes ran %s.%s\n",
		verdict, r.tool, levelNames[r.level], counts[pass], counts[fail], counts[warn], counts[skip], r.recipes, files)
	for _, res := range r.results {
		if res.status != pass && len(res.reasons) > 0 {
			fmt.Fprintf(w, "\n%s %s (%s): %s\n", res.status, res.id, res.strength, res.spec)
			for _, reason := range res.reasons {
				fmt.Fprintf(w, "  - %s\n", reason)
			}
		}
	}
	return nil
}

// Check checks the tool cfg.Tool of the server behind cs up to cfg.Level,
// writes the report to w (if not nil) as a table with one row per
// requirement (pass, FAIL, warn or skip, with the reasons), and reports
// whether no requirement failed. For L2.cleanup it plants files in the
// output folder, and removes them.
//
// Check returns an error only when it cannot run: a nil cs, an invalid cfg,
// or a tool the server does not list. It does not change cfg, and is safe
// to call concurrently on different sessions.
func Check(ctx context.Context, cs *mcp.ClientSession, cfg *Config, w io.Writer) (ok bool, err error) {
	rep, err := check(ctx, cs, cfg, false)
	if err != nil {
		return false, err
	}
	if w != nil {
		err = rep.writeTable(w)
	}
	return rep.ok() && err == nil, err
}

// Run is [Check] for tests, in the manner of testing/slogtest.Run: it
// reports every failed requirement with t.Errorf, and warnings and skips
// with t.Logf. It calls t.Fatal if the check cannot run.
func Run(t *testing.T, cs *mcp.ClientSession, cfg *Config) {
	t.Helper()
	rep, err := check(t.Context(), cs, cfg, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range rep.results {
		msg := fmt.Sprintf("%s (Level %d, %s): %s", res.id, res.level, res.strength, strings.Join(res.reasons, "; "))
		switch res.status {
		case fail:
			t.Errorf("%s\n\tspecification: %s", msg, res.spec)
		case warn, skip:
			t.Logf("%s: %s", res.status, msg)
		}
	}
}

// checker is a check under way: the session, the settings with their
// defaults, and what the calls have given so far.
type checker struct {
	cs      *mcp.ClientSession
	cfg     Config
	srv     lro.Options // cfg.Server with the kit's defaults
	tool    *mcp.Tool
	results []result // one per requirement up to the level, in catalogue order

	jq, jqVersion string               // the path of jq and what jq --version printed; "" to run recipes in process
	local         map[string]time.Time // files read from file_path on this machine, and when they were written
	fetched       int                  // files fetched with resources/read
	fullCount     int                  // records of the first offloaded file, or -1
	planted       *planted             // what was planted, once it was
}

// check checks as [Check] does, on a copy of cfg with its defaults filled
// in, and returns the report. With inProcess, the recipes run with gojq
// even when jq is installed (the tests' choice).
func check(ctx context.Context, cs *mcp.ClientSession, cfg *Config, inProcess bool) (*report, error) {
	if cs == nil {
		return nil, fmt.Errorf("%w: nil session", errInvalidConfig)
	}
	if cfg == nil {
		return nil, fmt.Errorf("%w: nil Config (Tool and Large are required)", errInvalidConfig)
	}
	c := &checker{cs: cs, cfg: *cfg, local: map[string]time.Time{}, fullCount: -1}
	k := &c.cfg
	k.Large, k.Small, k.Details = maps.Clone(k.Large), maps.Clone(k.Small), slices.Clone(k.Details)
	c.srv = *cmp.Or(k.Server, &lro.Options{})
	s := &c.srv
	switch {
	case k.Tool == "":
		return nil, fmt.Errorf("%w: Config.Tool is empty", errInvalidConfig)
	case k.Large == nil:
		return nil, fmt.Errorf("%w: Config.Large is nil; give arguments whose result is offloaded", errInvalidConfig)
	case k.Level < 0 || k.Level > 3:
		return nil, fmt.Errorf("%w: Config.Level = %d, want 1, 2 or 3", errInvalidConfig, k.Level)
	case s.ThresholdTokens < 0 || s.TTL < 0 || s.CleanupInterval < 0:
		return nil, fmt.Errorf("%w: Config.Server: ThresholdTokens %d, TTL %v and CleanupInterval %v must not be negative",
			errInvalidConfig, s.ThresholdTokens, s.TTL, s.CleanupInterval)
	case slices.ContainsFunc(k.Details, func(d string) bool { return strings.TrimSpace(d) == "" }):
		return nil, fmt.Errorf("%w: Config.Details holds an empty detail level", errInvalidConfig)
	}
	k.Level = cmp.Or(k.Level, 3)
	s.ThresholdTokens = cmp.Or(s.ThresholdTokens, spec.DefaultThreshold)
	s.Prefix = cmp.Or(s.Prefix, spec.DefaultPrefix)
	s.DetailArgument = cmp.Or(s.DetailArgument, "detail")
	s.QueryArgument = cmp.Or(s.QueryArgument, "query")
	s.TTL = cmp.Or(s.TTL, spec.DefaultTTL)
	if !inProcess {
		c.jq, c.jqVersion = jqcmd.FindJQ()
	}
	for _, r := range catalogue {
		if r.level <= k.Level {
			c.results = append(c.results, result{requirement: r, status: skip})
		}
	}
	var names []string
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("lrotest: tools/list: %w", err)
		}
		if t.Name == c.cfg.Tool {
			c.tool = t
			break
		}
		names = append(names, t.Name)
	}
	if c.tool == nil {
		return nil, fmt.Errorf("%w: the server lists no tool %q (it lists %s)", errInvalidConfig, c.cfg.Tool, strings.Join(names, ", "))
	}
	c.run(ctx)
	rep := &report{tool: k.Tool, level: k.Level, results: c.results}
	rep.recipes, rep.files = c.how()
	return rep, nil
}

// run makes every call and checks every requirement on it.
func (c *checker) run(ctx context.Context) {
	c.checkScope(ctx, scopeSmall, c.small(ctx, c.cfg.Small))
	arg := c.srv.DetailArgument
	asGiven, _ := c.cfg.Large[arg].(string)
	label, detail := "large", asGiven
	if asGiven != "" {
		label = fmt.Sprintf("large (%s=%s)", arg, asGiven)
	} else if d := string(c.srv.DefaultDetail); d != "" {
		label, detail = fmt.Sprintf("large (no %s: default %s)", arg, d), d
	}
	c.checkScope(ctx, scopeLarge, c.look(ctx, label, c.cfg.Large, detail))
	for _, d := range c.cfg.Details {
		if d != asGiven {
			args := maps.Clone(c.cfg.Large)
			args[arg] = d
			c.checkScope(ctx, scopeLarge, c.look(ctx, fmt.Sprintf("large (%s=%s)", arg, d), args, d))
		}
	}
	if c.cfg.Level >= 3 {
		c.checkScope(ctx, scopeBackup, c.lookFallback(ctx, c.cfg.Fallback, c.cfg.Large))
	}
	c.checkScope(ctx, scopeOnce, &observed{})
}

// checkScope runs the check of every requirement of scope s on v, skipping
// those whose need v lacks, and adds what it found to the requirement's
// result: a failure outweighs a pass, which outweighs a skip.
func (c *checker) checkScope(ctx context.Context, s scope, call *observed) {
	v, prefix := &view{observed: call, c: c, ctx: ctx}, ""
	if v.Label != "" {
		prefix = v.Label + ": "
	}
	for i := range c.results {
		res := &c.results[i]
		if res.scope != s {
			continue
		}
		v.problems, v.skipped = nil, v.blocked(res.need)
		if v.skipped == "" {
			res.check(v)
		}
		switch failed := res.status == fail || res.status == warn; {
		case v.skipped != "":
			if res.status == skip && !slices.Contains(res.reasons, prefix+v.skipped) {
				res.reasons = append(res.reasons, prefix+v.skipped)
			}
		case len(v.problems) > 0:
			if !failed {
				res.status, res.reasons = map[strength]status{must: fail, should: warn}[res.strength], nil
			}
			res.reasons = append(res.reasons, prefix+strings.Join(v.problems, "; "))
		case !failed:
			res.status, res.reasons = pass, nil
		}
	}
}
