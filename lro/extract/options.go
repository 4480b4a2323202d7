package extract

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/zircote/lro-go/cleanup"
	"github.com/zircote/lro-go/estimate"
	"github.com/zircote/lro-go/internal/disk"
	"github.com/zircote/lro-go/internal/spec"
	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/event"
	"github.com/zircote/lro-go/lro/internal/janitor"
	"github.com/zircote/lro-go/lro/internal/offload"
	"github.com/zircote/lro-go/lro/store"
)

// Defaults of [Options], each documented on its field.
const (
	defaultTimeout              = 10 * time.Second
	defaultMaxInputBytes  int64 = 1 << 30
	defaultMaxRecordBytes       = 16 << 20
	defaultMaxOutputBytes       = 64 << 20
	defaultMaxMemoryBytes int64 = 512 << 20
	defaultWorkers              = 4
)

// Options configure the extraction tools. A nil *Options, and the zero value
// of every field, means the defaults. [AddTools] copies them.
type Options struct {
	// LRO are the options of the offloading decorator that wrote the files,
	// with the same defaults as in package lro. The tools read only files
	// named with Prefix in OutputDir, or the handles of the Store (whose
	// folder, prefix and TTL OutputDir, Prefix and TTL, if given, must be;
	// the tools then serve lro://results/{handle}); above ThresholdTokens (by
	// Tokenizer) lro_read and lro_search show what fits, and an lro_extract
	// answer is offloaded in turn, with Observer, TTL and CleanupInterval.
	// Its other fields are not used.
	LRO *lro.Options

	// Timeout bounds each tool call, waiting for a worker included. If
	// zero, defaults to 10 seconds.
	Timeout time.Duration

	// MaxInputBytes is the most bytes of a file one call reads. If zero,
	// defaults to 1 GiB.
	MaxInputBytes int64

	// MaxRecordBytes is the longest record line lro_extract and lro_search
	// decode (lro_read reads longer lines by character range). If zero,
	// defaults to 16 MiB.
	MaxRecordBytes int

	// MaxOutputBytes is the most output bytes one call may produce, counted
	// before any offload of the answer, each result of lro_extract counting
	// 32 bytes beside its text (the memory that keeps it apart): at most
	// MaxOutputBytes/32 results (2 Mi by default), and as many search
	// matches. It may be at most an eighth of MaxMemoryBytes, as the server
	// holds an answer several times over. If zero, defaults to 64 MiB or
	// that eighth, whichever is less.
	MaxOutputBytes int

	// MaxMemoryBytes is the memory one lro_extract or lro_search call may
	// use, worker and server together, beyond what the worker holds when it
	// starts. The worker may take all of it but twice MaxOutputBytes: on
	// Linux the kernel enforces it (RLIMIT_AS), elsewhere only GOMEMLIMIT.
	// If zero, defaults to 512 MiB.
	MaxMemoryBytes int64

	// Workers is how many calls of lro_extract and lro_search, and reads of
	// lro://results/{handle}, may run at once over every session; a call
	// that finds them all busy waits, within its time limit. If zero,
	// defaults to 4.
	Workers int
}

const (
	// resultCost is what each result of lro_extract counts against
	// MaxOutputBytes beside its text: its span in the worker, the frame and
	// the server.
	resultCost     = 32
	minMemoryBytes = 16 << 20
	// answerShare: MaxOutputBytes fits at least this often in
	// MaxMemoryBytes, as the server holds an answer several times over.
	answerShare = 8
)

// config is a validated copy of Options, and of the fields of LRO the tools
// use, with every default applied.
type config struct {
	Options
	Store           *store.Store
	Dir             string
	Prefix          string
	ThresholdTokens int
	Tokenizer       estimate.Tokenizer
	Observer        event.Observer
	create          func(operation string) (*jsonl.Writer, error) // offload.Config.Create; tests make it fail
	slots           chan struct{}                                 // a token for each running worker
	sweep           *cleanup.Options                              // of the janitor an offloaded answer starts; nil for none
	sweepInterval   time.Duration                                 // the longest wait between two sweeps of that janitor
	beforeOpen      func(base string)                             // between the check of a file and its opening: tests replace it
}

// newConfig copies opts, applies defaults and validates, naming the first
// invalid field: the error of AddTools.
func newConfig(opts *Options) (*config, error) {
	c := &config{Options: *cmp.Or(opts, &Options{}), Tokenizer: offload.Heuristic{}}
	if l := c.LRO; l != nil {
		c.Store, c.Dir, c.Prefix = l.Store, l.OutputDir, l.Prefix
		c.ThresholdTokens, c.Observer = l.ThresholdTokens, l.Observer
		c.Tokenizer = cmp.Or(l.Tokenizer, c.Tokenizer)
	}
	if l := c.LRO; l != nil && l.TTL < 0 {
		return nil, fmt.Errorf("extract: Options.LRO.TTL is %v: %w", l.TTL, lro.ErrInvalidOption)
	}
	if c.Store != nil {
		if err := c.useStore(); err != nil {
			return nil, err
		}
	} else {
		dir, err := filepath.Abs(cmp.Or(c.Dir, os.TempDir()))
		if err != nil {
			return nil, fmt.Errorf("extract: Options.LRO.OutputDir %q: %w", c.Dir, err)
		}
		if err := disk.CheckDir(dir); err != nil {
			return nil, fmt.Errorf("extract: Options.LRO.OutputDir %q: %w: %w", c.Dir, err, lro.ErrInvalidOption)
		}
		c.Dir = dir
	}
	c.Prefix = cmp.Or(c.Prefix, spec.DefaultPrefix)
	if err := disk.ValidatePrefix(c.Prefix); err != nil {
		return nil, fmt.Errorf("extract: Options.LRO.Prefix: %w", err)
	}
	c.sweep, c.sweepInterval = c.sweepOptions()
	err := cmp.Or(
		orDefault("Timeout", &c.Timeout, defaultTimeout),
		orDefault("MaxInputBytes", &c.MaxInputBytes, defaultMaxInputBytes),
		orDefault("MaxRecordBytes", &c.MaxRecordBytes, defaultMaxRecordBytes),
		orDefault("MaxOutputBytes", &c.MaxOutputBytes, 0), // default below
		orDefault("MaxMemoryBytes", &c.MaxMemoryBytes, defaultMaxMemoryBytes))
	if err == nil && c.MaxMemoryBytes < minMemoryBytes {
		err = fmt.Errorf("extract: Options.MaxMemoryBytes is %d, less than %d MiB, too little for a worker to run a query: %w",
			c.MaxMemoryBytes, minMemoryBytes>>20, lro.ErrInvalidOption)
	}
	err = cmp.Or(err,
		orDefault("Workers", &c.Workers, defaultWorkers),
		orDefault("LRO.ThresholdTokens", &c.ThresholdTokens, spec.DefaultThreshold))
	if err != nil {
		return nil, err
	}
	answerMax := c.MaxMemoryBytes / answerShare
	switch {
	case c.MaxOutputBytes == 0:
		c.MaxOutputBytes = int(max(min(defaultMaxOutputBytes, answerMax), 1))
	case int64(c.MaxOutputBytes) > answerMax:
		return nil, fmt.Errorf("extract: Options.MaxOutputBytes is %d, more than an eighth of MaxMemoryBytes (%d): the server holds an answer several times over while it builds it, within the memory of one call: %w",
			c.MaxOutputBytes, c.MaxMemoryBytes, lro.ErrInvalidOption)
	}
	c.slots = make(chan struct{}, c.Workers)
	return c, nil
}

// maxResults is the most results one call may produce.
func (c *config) maxResults() int { return max(c.MaxOutputBytes/resultCost, 1) }

// orDefault sets *v to def if it is zero; a negative *v is invalid.
func orDefault[T int | int64 | time.Duration](field string, v *T, def T) error {
	if *v < 0 {
		return fmt.Errorf("extract: Options.%s is %v: %w", field, *v, lro.ErrInvalidOption)
	}
	if *v == 0 {
		*v = def
	}
	return nil
}

// useStore checks that Dir, Prefix and the TTL of LRO, if given, are the
// Store's (as lro's decorator checks them), and sets Dir and Prefix to the
// Store's ("" for a bucket).
func (c *config) useStore() error {
	st := c.Store
	switch dir := st.Dir(); {
	case dir == "" && c.Dir != "":
		return fmt.Errorf("extract: Options.LRO.OutputDir is %q, but Options.LRO.Store keeps its files in a bucket, not a folder: leave OutputDir empty: %w", c.Dir, lro.ErrInvalidOption)
	case dir != "" && c.Dir != "":
		abs, err := filepath.Abs(c.Dir)
		if err != nil || (abs != dir && !sameDir(abs, dir)) {
			return fmt.Errorf("extract: Options.LRO.OutputDir is %q, but the folder of Options.LRO.Store is %q: leave OutputDir empty or give the same folder: %w", c.Dir, dir, lro.ErrInvalidOption)
		}
	}
	if ttl := c.LRO.TTL; ttl != 0 && ttl != st.TTL() {
		return fmt.Errorf("extract: Options.LRO.TTL is %v, but that of Options.LRO.Store is %v: leave TTL zero or give the same: %w", ttl, st.TTL(), lro.ErrInvalidOption)
	}
	if c.Prefix != "" && c.Prefix != st.Prefix() {
		return fmt.Errorf("extract: Options.LRO.Prefix is %q, but that of Options.LRO.Store is %q: leave Prefix empty or give the same: %w", c.Prefix, st.Prefix(), lro.ErrInvalidOption)
	}
	c.Dir, c.Prefix = st.Dir(), st.Prefix()
	return nil
}

// sweepOptions are the options and interval of the janitor of the answers'
// folder or store, as lro's decorator would start it with c.LRO; nil for
// none.
func (c *config) sweepOptions() (*cleanup.Options, time.Duration) {
	l := cmp.Or(c.LRO, &lro.Options{})
	if l.CleanupInterval < 0 {
		return nil, 0
	}
	o := &cleanup.Options{Dir: c.Dir, Prefix: c.Prefix, TTL: l.TTL, OnExpired: janitor.OnExpired(l.Observer)}
	if c.Store != nil {
		o.Bucket, o.TTL = c.Store.Bucket(), cmp.Or(o.TTL, c.Store.TTL())
	}
	o.TTL = cmp.Or(o.TTL, spec.DefaultTTL) // lro's, which the event names
	return o, cmp.Or(l.CleanupInterval, spec.DefaultInterval)
}

// Validate reports whether opts is a valid configuration, naming the first
// invalid field. A nil *Options is valid.
func (opts *Options) Validate() error {
	_, err := newConfig(opts)
	return err
}
