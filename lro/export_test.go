package lro

import (
	"io"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/cleanup"
)

// Test hooks for package lro_test.

// Hooks are a test's clock and writer wrapper for the files written with
// some Options, which the entry points below take beside them.
type Hooks struct {
	// Now, if not nil, is the files' clock (their names, created_at and
	// expiries) instead of time.Now. No automatic janitor starts then: it
	// would sweep on the system's clock.
	Now func() time.Time
	// WrapWriter, if not nil, wraps the writer of every file written
	// without a Store: a disk that fails. With a Store, the options are
	// invalid.
	WrapWriter func(io.Writer) io.Writer
}

// config is mustConfig of opts with h.
func (h Hooks) config(opts *Options) *config {
	now := h.Now
	if now == nil {
		now = time.Now
	} else {
		o := Options{}
		if opts != nil {
			o = *opts
		}
		o.CleanupInterval = -1
		opts = &o
	}
	return mustConfigOn(opts, now, h.WrapWriter)
}

// WrapWith is [Wrap] with the hooks hk.
func WrapWith(h mcp.ToolHandler, opts *Options, hk Hooks) mcp.ToolHandler {
	return wrapOn(h, hk.config(opts))
}

// AddToolWith is [AddTool] with the hooks hk.
func AddToolWith[In, Out any](s *mcp.Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out], opts *Options, hk Hooks) {
	addToolOn(s, t, h, hk.config(opts))
}

// MiddlewareWith is [Middleware] with the hooks hk.
func MiddlewareWith(opts *Options, hk Hooks, tools ...string) mcp.Middleware {
	return middlewareOn(hk.config(opts), tools...)
}

// JanitorOf returns a janitor of the files written with opts, as the
// automatic one sweeps them (folder or bucket, prefix, TTL, an
// event.FileExpired to the Observer per deleted file), but when the test
// calls Sweep, at the time it chooses.
func JanitorOf(opts *Options) (*cleanup.Janitor, error) {
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	return cleanup.New(c.sweep)
}

// ValidateWith is [Options.Validate] with the hooks hk.
func ValidateWith(opts *Options, hk Hooks) error {
	now := hk.Now
	if now == nil {
		now = time.Now
	}
	_, err := newConfigOn(opts, now, hk.WrapWriter)
	return err
}

// OffloadVsWrite runs an offload benchmark against marshal-and-write (see
// offloadVsWrite).
var OffloadVsWrite = offloadVsWrite

// OffloadRequest is the call of the offload benchmarks.
var OffloadRequest = offloadRequest

// BenchMemory is the record of the offload benchmarks.
type BenchMemory = benchMemory

// BenchMemories returns n records of the offload benchmarks.
var BenchMemories = benchMemories

// The defaults of Options, as their documentation gives them.
const (
	DefaultThresholdTokens = defaultThresholdTokens
	DefaultSchemaVersion   = defaultSchemaVersion
)

// Sources say where LoadOptionsFrom reads configuration: a file, and an
// environment of the test's.
type Sources = sources

// LoadOptionsFrom is LoadOptions with the environment of src.
func LoadOptionsFrom(explicit *Options, src *Sources) (*Options, error) {
	return loadOptions(explicit, src)
}

// ParseDetail parses a detail level name, as the detail argument is.
var ParseDetail = parseDetail
