package lro

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/zircote/lro-go/cleanup"
	"github.com/zircote/lro-go/estimate"
	"github.com/zircote/lro-go/internal/disk"
	redaction "github.com/zircote/lro-go/internal/redact" // not redact, config.go's
	"github.com/zircote/lro-go/internal/spec"
	"github.com/zircote/lro-go/lro/descriptor"
	"github.com/zircote/lro-go/lro/event"
	"github.com/zircote/lro-go/lro/internal/janitor"
	"github.com/zircote/lro-go/lro/internal/offload"
	"github.com/zircote/lro-go/lro/store"
	"github.com/zircote/lro-go/recipes"
)

// Defaults of the specification: what the zero value of each [Options]
// field means.
const (
	defaultThresholdTokens = spec.DefaultThreshold
	defaultQueryArgument   = "query"
	defaultDetailArgument  = "detail"
	defaultDetail          = recipes.Full
	defaultSchemaVersion   = spec.SchemaVersion
)

// Options configure offloading for one tool ([Wrap], [AddTool]) or for a whole
// server ([Middleware]). A nil *Options, and the zero value of every field,
// means the specification's defaults (docs/configuration.md lists them).
// Options are copied on entry.
type Options struct {
	// Disabled turns offloading off: every result goes out unchanged.
	Disabled bool

	// ThresholdTokens is the estimate above which a result is offloaded. If
	// zero, defaults to the specification's 1600; negative is invalid.
	ThresholdTokens int

	// TTL is how long an offloaded file lives once written. If zero,
	// defaults to one hour, or with a Store to the Store's TTL.
	TTL time.Duration

	// CleanupInterval is the longest wait between two sweeps by the
	// automatic janitor of the folder or Store, which registering a tool and
	// every offload start (docs/cleanup.md). If zero, defaults to one hour;
	// if negative, no janitor starts by itself.
	CleanupInterval time.Duration

	// OutputDir is the folder offloaded files are written to, created with
	// mode 0700. If empty, defaults to [os.TempDir], or to the Store's folder.
	OutputDir string

	// Store, if not nil, is where offloaded files are written instead of
	// OutputDir: a folder or a bucket that replicas share, read back by
	// handle (see docs/replicas.md). Prefix, TTL and OutputDir, when set,
	// must be the Store's. The caller closes the Store after its last use.
	Store *store.Store

	// ClientDir is the output folder as the client sees it (for a server in
	// a container, the host's side of a bind mount): descriptors name the
	// file there. It must be an absolute, clean, slash-separated path
	// without NUL or line breaks. If empty, defaults to OutputDir.
	ClientDir string

	// Prefix is the first part of file names, {prefix}-{operation}-{ulid}.jsonl.
	// If empty, defaults to "atlatl", or with a Store to the Store's prefix.
	Prefix string

	// Operation names the operation in the header and the file name. If
	// empty, defaults to the tool's name.
	Operation string

	// QueryArgument is the tool argument whose string value is recorded as
	// the header's query. If empty, defaults to "query".
	QueryArgument string

	// DetailArgument is the tool argument that holds the detail level
	// ("light", "medium" or "full"). If empty, defaults to "detail".
	DetailArgument string

	// DefaultDetail is the detail level when the call names none. If empty,
	// defaults to "full".
	DefaultDetail recipes.Detail

	// RecordsField names the array field of an object result that holds the
	// records. If empty, the records are the result itself when it is an
	// array, or else its only (or largest) array-valued field.
	RecordsField string

	// Profile selects the descriptor's fields. If zero, defaults to
	// [descriptor.ProfileFull], the specification's complete descriptor.
	Profile descriptor.Profile

	// PreviewRecords is how many records the descriptor shows as a
	// preview, cut down and marked as such: the first ones and the last,
	// fewer (or none) when the descriptor would pass ThresholdTokens. If
	// zero, defaults to 3; if negative, none: the specification's
	// descriptor. More than 16 is invalid.
	PreviewRecords int

	// RecordType is the Go type of one record, which annotates the line
	// schema inferred from the records (formats, number types,
	// descriptions). [AddTool] sets it from the tool's output type.
	RecordType reflect.Type

	// SchemaDescriptions gives the properties of the line schema the
	// descriptions of RecordType's fields (their jsonschema tags).
	SchemaDescriptions bool

	// Tokenizer estimates tokens. If nil, defaults to [estimate.Tokens].
	Tokenizer estimate.Tokenizer

	// Observer receives an event for every offload and write failure, maybe
	// concurrently. If nil, events are discarded.
	Observer event.Observer

	// ExtractTools reports that the server also offers the extraction tools
	// of package [github.com/zircote/lro-go/lro/extract]: the descriptor's
	// guidance then points to lro_extract.
	ExtractTools bool

	// Always offloads every result, whatever its size (but errors and
	// results not complete), for output meant for a script. It is mostly
	// set for one tool, in Tools.
	Always bool

	// Tools holds per-tool overrides, keyed by tool name: the fields set in
	// a tool's Options replace these for that tool (Disabled, Always and
	// DisableRedaction when true; RedactPatterns are added to these). A
	// tool's Options set only Disabled, ThresholdTokens, Profile, Always,
	// DisableRedaction and RedactPatterns; a Profile of ProfileFull, the
	// zero value, keeps these Options' Profile.
	Tools map[string]Options

	// DisableRedaction writes offloaded results with their credentials.
	// By default every credential of a known shape (cloud keys, tokens,
	// JWTs, private keys, Authorization values, URL passwords) is replaced
	// by a marker naming its kind, as [REDACTED:github-pat], before the
	// file, the descriptor or the fallback is made (docs/redaction.md). A
	// result that stays inline is never changed.
	DisableRedaction bool

	// RedactPatterns are more credentials to redact, as RE2 expressions.
	// The part redacted is the first named group, whose name is then the
	// marker's kind, or else the whole match, of kind "custom".
	RedactPatterns []string
}

// config is a validated copy of Options with every default applied.
type config struct {
	Options
	dir        string                    // absolute output folder
	redactor   *redaction.Redactor       // nil when redaction is off
	tools      map[string]*config        // per-tool configurations, from Options.Tools
	core       *offload.Config           // the offload pipeline's view of the above
	sweep      *cleanup.Options          // of the janitor of c's files; Observer starts it (janitor.go)
	now        func() time.Time          // the files' clock: time.Now, but in the package's own tests
	wrapWriter func(io.Writer) io.Writer // wraps the writer of a file written without a Store; nil but in tests
}

// forTool returns the configuration of the named tool: c itself, or c with
// the tool's overrides applied.
func (c *config) forTool(name string) *config {
	if t, ok := c.tools[name]; ok {
		return t
	}
	return c
}

// newConfig copies opts, applies defaults and validates. It reports the first
// invalid field by name.
func newConfig(opts *Options) (*config, error) {
	return newConfigOn(opts, time.Now, nil)
}

// newConfigOn is newConfig for files written on the clock now, and, without
// a Store, through wrap if not nil: the package's own tests give a clock of
// theirs and a writer that fails (export_test.go).
func newConfigOn(opts *Options, now func() time.Time, wrap func(io.Writer) io.Writer) (*config, error) {
	c := &config{Options: *cmp.Or(opts, &Options{}), now: now, wrapWriter: wrap}
	if c.ThresholdTokens < 0 {
		return nil, fmt.Errorf("lro: Options.ThresholdTokens is %d: %w", c.ThresholdTokens, ErrInvalidOption)
	}
	c.ThresholdTokens = cmp.Or(c.ThresholdTokens, defaultThresholdTokens)
	if c.TTL < 0 {
		return nil, fmt.Errorf("lro: Options.TTL is %v: %w", c.TTL, ErrInvalidOption)
	}
	if err := c.agreeWithStore(); err != nil {
		return nil, err
	}
	c.TTL = cmp.Or(c.TTL, spec.DefaultTTL)
	c.CleanupInterval = cmp.Or(c.CleanupInterval, spec.DefaultInterval)
	switch {
	case c.Store != nil:
		c.dir = c.Store.Dir() // "" for a bucket
		if err := checkOutputDir(c.dir); c.dir != "" && err != nil {
			return nil, fmt.Errorf("lro: Options.Store's folder %q: %w: %w", c.dir, err, ErrInvalidOption)
		}
	default:
		c.OutputDir = cmp.Or(c.OutputDir, os.TempDir())
		dir, err := filepath.Abs(c.OutputDir)
		if err != nil {
			return nil, fmt.Errorf("lro: Options.OutputDir %q: %w", c.OutputDir, err)
		}
		if err := checkOutputDir(dir); err != nil {
			return nil, fmt.Errorf("lro: Options.OutputDir %q: %w: %w", c.OutputDir, err, ErrInvalidOption)
		}
		c.dir = dir
	}
	if err := checkClientDir(c.ClientDir); err != nil {
		return nil, fmt.Errorf("lro: Options.ClientDir %q: %w: %w", c.ClientDir, err, ErrInvalidOption)
	}
	c.Prefix = cmp.Or(c.Prefix, spec.DefaultPrefix)
	if err := disk.ValidatePrefix(c.Prefix); err != nil {
		return nil, fmt.Errorf("lro: Options.Prefix: %w: %w", err, ErrInvalidOption)
	}
	c.QueryArgument = cmp.Or(c.QueryArgument, defaultQueryArgument)
	c.DetailArgument = cmp.Or(c.DetailArgument, defaultDetailArgument)
	detail, err := parseDetail(string(cmp.Or(c.DefaultDetail, defaultDetail)))
	if err != nil {
		return nil, fmt.Errorf("lro: Options.DefaultDetail: %w: %w", err, ErrInvalidOption)
	}
	c.DefaultDetail = detail // as a call's detail argument is read: "Light" is light
	if !validProfile(c.Profile) {
		return nil, fmt.Errorf("lro: Options.Profile is %d: %w", int(c.Profile), ErrInvalidOption)
	}
	if c.PreviewRecords > offload.MaxPreview {
		return nil, fmt.Errorf("lro: Options.PreviewRecords is %d, more than %d: %w", c.PreviewRecords, offload.MaxPreview, ErrInvalidOption)
	}
	c.Tokenizer = cmp.Or[estimate.Tokenizer](c.Tokenizer, offload.Heuristic{})
	redactor, err := newRedactor(c.DisableRedaction, c.RedactPatterns, "Options.RedactPatterns")
	if err != nil {
		return nil, err
	}
	c.redactor = redactor
	c.setJanitor()
	c.tools = make(map[string]*config, len(c.Tools))
	for name, t := range c.Tools {
		if f := toolField(t); f != "" {
			return nil, fmt.Errorf("lro: Options.Tools[%q].%s is set: a tool's Options set only Disabled, ThresholdTokens, Profile, Always, DisableRedaction and RedactPatterns: %w", name, f, ErrInvalidOption)
		}
		if t.ThresholdTokens < 0 {
			return nil, fmt.Errorf("lro: Options.Tools[%q].ThresholdTokens is %d: %w", name, t.ThresholdTokens, ErrInvalidOption)
		}
		if !validProfile(t.Profile) {
			return nil, fmt.Errorf("lro: Options.Tools[%q].Profile is %d: %w", name, int(t.Profile), ErrInvalidOption)
		}
		tc := *c
		if t.DisableRedaction || len(t.RedactPatterns) > 0 {
			patterns := append(slices.Clip(c.RedactPatterns), t.RedactPatterns...)
			field := fmt.Sprintf("Options.Tools[%q].RedactPatterns", name)
			if tc.redactor, err = newRedactor(c.DisableRedaction || t.DisableRedaction, patterns, field); err != nil {
				return nil, err
			}
		}
		fill(&t, c.Options)
		tc.Options, tc.Tools, tc.tools = t, nil, nil
		tc.core = tc.coreConfig()
		c.tools[name] = &tc
	}
	c.core = c.coreConfig()
	return c, nil
}

// agreeWithStore checks Prefix, TTL and OutputDir against the Store, if
// any, setting those that are zero to the Store's, and refuses a writer
// wrapper, which a Store does not use.
func (c *config) agreeWithStore() error {
	s := c.Store
	if s == nil {
		return nil
	}
	switch {
	case c.Prefix == "":
		c.Prefix = s.Prefix()
	case c.Prefix != s.Prefix():
		return fmt.Errorf("lro: Options.Prefix %q is not the prefix of Options.Store (%q): leave it empty or make them the same: %w", c.Prefix, s.Prefix(), ErrInvalidOption)
	}
	switch {
	case c.TTL == 0:
		c.TTL = s.TTL()
	case c.TTL != s.TTL():
		return fmt.Errorf("lro: Options.TTL %v is not the TTL of Options.Store (%v): leave it zero or make them the same: %w", c.TTL, s.TTL(), ErrInvalidOption)
	}
	if c.OutputDir != "" {
		dir, err := filepath.Abs(c.OutputDir)
		switch {
		case err != nil:
			return fmt.Errorf("lro: Options.OutputDir %q: %w", c.OutputDir, err)
		case s.Bucket() != nil:
			return fmt.Errorf("lro: Options.OutputDir %q is set with a bucket in Options.Store, which files are written to instead: leave it empty: %w", c.OutputDir, ErrInvalidOption)
		case dir != s.Dir():
			return fmt.Errorf("lro: Options.OutputDir %q is not the folder of Options.Store (%s): leave it empty or make them the same: %w", c.OutputDir, s.Dir(), ErrInvalidOption)
		}
	}
	if c.wrapWriter != nil {
		return fmt.Errorf("lro: a writer wrapper (a test's, export_test.go) is given with Options.Store, which does not use it: %w", ErrInvalidOption)
	}
	return nil
}

// checkOutputDir reports why the absolute path dir cannot be the output
// folder: the nearest entry on it that exists (as /etc/passwd for
// /etc/passwd/sub) is not a folder or a symlink to one, or the folder is
// not safe from other users (see [disk.CheckDir]).
func checkOutputDir(dir string) error {
	for p := dir; ; {
		fi, err := os.Stat(p)
		if err == nil && fi.IsDir() {
			return disk.CheckDir(dir)
		}
		what := "which is not a folder"
		if err != nil {
			if _, lerr := os.Lstat(p); lerr != nil { // not there: one level up
				parent := filepath.Dir(p)
				if parent == p {
					return nil
				}
				p = parent
				continue
			}
			what = "a symlink that leads to no folder"
		}
		if p == dir {
			return errors.New(strings.TrimPrefix(what, "which is "))
		}
		return fmt.Errorf("below %s, %s", p, what)
	}
}

// checkClientDir reports why dir cannot be Options.ClientDir: only its
// form is checked, a path on the client's machine.
func checkClientDir(dir string) error {
	switch {
	case dir == "":
		return nil
	case strings.ContainsAny(dir, "\x00\r\n"):
		return errors.New("contains a NUL byte or a line break")
	case !path.IsAbs(dir):
		return errors.New("not an absolute slash-separated path")
	case path.Clean(dir) != dir:
		return fmt.Errorf("not clean (want %q)", path.Clean(dir))
	}
	return nil
}

// newRedactor returns the Redactor of the built-in rules and patterns,
// nil when off; field names patterns in an error.
func newRedactor(off bool, patterns []string, field string) (*redaction.Redactor, error) {
	if off {
		return nil, nil
	}
	r, err := redaction.New(patterns)
	if err != nil {
		return nil, fmt.Errorf("lro: %s: %w: %w", field, err, ErrInvalidOption)
	}
	return r, nil
}

// toolField returns the name of the first field set in t that a tool's
// Options cannot set, "" when there is none.
func toolField(t Options) string {
	t.Disabled, t.ThresholdTokens, t.Profile, t.Always, t.DisableRedaction, t.RedactPatterns = false, 0, 0, false, false, nil
	v := reflect.ValueOf(t)
	for i := range v.NumField() {
		if !v.Field(i).IsZero() {
			return v.Type().Field(i).Name
		}
	}
	return ""
}

func validProfile(p descriptor.Profile) bool {
	return p >= descriptor.ProfileFull && p <= descriptor.ProfileBarePointer
}

// errUnknownDetail is wrapped by the error of parseDetail.
var errUnknownDetail = errors.New("unknown detail level")

// parseDetail parses a detail level name. The name is trimmed and matched
// without regard to case. An empty or unknown name returns an error that
// names the value and the allowed ones.
func parseDetail(s string) (recipes.Detail, error) {
	switch d := recipes.Detail(strings.ToLower(strings.TrimSpace(s))); d {
	case recipes.Light, recipes.Medium, recipes.Full:
		return d, nil
	}
	return "", fmt.Errorf("%w %q (want %q, %q or %q)", errUnknownDetail, s, recipes.Light, recipes.Medium, recipes.Full)
}

// mustConfig is newConfig for registration-time helpers: invalid options are a
// programmer error, reported by a panic that names the field.
func mustConfig(opts *Options) *config {
	return mustConfigOn(opts, time.Now, nil)
}

// mustConfigOn is mustConfig with the clock and the writer wrapper of
// [newConfigOn].
func mustConfigOn(opts *Options, now func() time.Time, wrap func(io.Writer) io.Writer) *config {
	c, err := newConfigOn(opts, now, wrap)
	if err != nil {
		panic(err)
	}
	// The files a stopped process left behind are deleted soon after the
	// next one starts, before it offloads anything.
	janitor.Offloaded(c.sweep, c.CleanupInterval)
	return c
}
