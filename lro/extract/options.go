package extract

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/zircote/lro-go/estimate"
	"github.com/zircote/lro-go/internal/jsonlfile"
	"github.com/zircote/lro-go/internal/offload"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/event"
	"github.com/zircote/lro-go/lro/store"
)

// Defaults of [Options], each documented on its field: what the zero value
// of the field means. The defaults the tools share with the offloading
// decorator ([Options.LRO]) have one definition each, outside this
// package: OutputDir defaults to [os.TempDir], Prefix to
// "atlatl" and ThresholdTokens to the specification's 1600.
const (
	// defaultTimeout bounds one tool call.
	defaultTimeout = 10 * time.Second
	// defaultMaxInputBytes is the most bytes of a file one call reads: enough
	// to stream through a 1 GB result, while a slurping query on a file that
	// large stops at defaultMaxMemoryBytes first.
	defaultMaxInputBytes int64 = 1 << 30
	// defaultMaxRecordBytes is the longest record line lro_extract and
	// lro_search decode. lro_read reads longer lines by character range.
	defaultMaxRecordBytes = 16 << 20
	// defaultMaxOutputBytes is the most output one call may produce before it
	// fails, counted before any offload of the result, when MaxMemoryBytes
	// allows it (see [Options.MaxOutputBytes]).
	defaultMaxOutputBytes = 64 << 20
	// defaultMaxResults is the most results (jq outputs, search matches) one
	// call may produce before it fails.
	defaultMaxResults = 100_000
	// defaultMaxMemoryBytes is the memory the worker of one call may use.
	defaultMaxMemoryBytes int64 = 512 << 20
	// defaultWorkers is how many workers may run at once.
	defaultWorkers = 4
)

// Options configure the extraction tools. A nil *Options, and the zero value
// of every field, means the defaults. Options are copied by [AddTools]:
// changing them afterwards has no effect.
type Options struct {
	// LRO are the options of the offloading decorator that wrote the
	// files (package lro), whose fields the tools share with it:
	//
	//   - Store, if not nil, is where the offloaded files are, a folder or
	//     a bucket. The tools then read its files by handle (the handle
	//     argument, or, for a folder store, the file_path of its
	//     descriptors) on any replica of the server, streamed from the
	//     bucket when it is one, under the same limits; an unknown or
	//     expired handle is a tool error that says which. AddTools also
	//     registers the resource template lro://results/{handle}, so that
	//     clients can fetch a result with resources/read, and lro_extract
	//     writes its answers above the threshold to the Store. OutputDir
	//     and Prefix may be left empty: if given, they must be the Store's
	//     (a bucket has no folder).
	//   - OutputDir is the output folder: the tools read offloaded files
	//     directly in it and nowhere else. If empty, defaults to the folder
	//     of Store, or with no Store to [os.TempDir]. It is made absolute.
	//   - Prefix is the first part of the names of offloaded files,
	//     {prefix}-{operation}-{ulid}.jsonl: only files named so can be
	//     read. If empty, defaults to the prefix of Store, or with no Store
	//     to "atlatl".
	//   - ThresholdTokens is the size above which a tool's answer is not
	//     shown inline: an lro_extract result is written to a new offloaded
	//     file (or, if that fails, truncated with a note), and lro_read and
	//     lro_search show what fits with a note saying how to continue. If
	//     zero, defaults to the specification's 1600.
	//   - Tokenizer estimates tokens. If nil, defaults to
	//     [estimate.Heuristic].
	//   - Observer receives an [event.Offloaded] for every lro_extract
	//     result written to a file, and an [event.WriteFailed] when that
	//     write fails. If nil, events are discarded. It may be called
	//     concurrently.
	//
	// Its other fields are not used. If nil, every one of those defaults.
	LRO *lro.Options

	// Timeout bounds each tool call: a query still running when it passes is
	// stopped with a tool error. If zero, defaults to 10 seconds.
	Timeout time.Duration

	// MaxInputBytes is the most bytes of a file one call reads. If zero,
	// defaults to 1 GiB: enough to stream through a 1 GB result, while a
	// slurping query on a file that large stops at MaxMemoryBytes first.
	MaxInputBytes int64

	// MaxRecordBytes is the longest record line lro_extract and lro_search
	// decode; a longer one stops the call with a tool error that points to
	// lro_read, which reads longer lines by character range. If zero,
	// defaults to 16 MiB.
	MaxRecordBytes int

	// MaxOutputBytes is the most output bytes one call may produce, as the
	// file of an answer offloaded in turn holds them (a string printed raw
	// counts quoted). The server holds an answer several times over while it
	// builds it, within the memory of the call: MaxOutputBytes may be at most
	// an eighth of MaxMemoryBytes. It is counted before any offload of the
	// result. If zero, defaults to 64 MiB or that eighth, whichever is less.
	MaxOutputBytes int

	// MaxResults is the most results one call may produce: jq outputs of
	// lro_extract, matching records of lro_search. If zero, defaults to
	// 100,000.
	MaxResults int

	// MaxMemoryBytes is the memory one lro_extract or lro_search call may
	// use, beyond what its worker process holds when it starts (about
	// 12 MiB). The worker may allocate all of it but twice MaxOutputBytes,
	// which the server keeps for reading the worker's answer; past that the
	// worker dies and the call fails with a tool error. Once the worker has
	// ended, the server builds the answer within MaxMemoryBytes.
	// On Linux the kernel enforces the worker's share (RLIMIT_AS); elsewhere
	// it is only the worker's soft Go memory limit (GOMEMLIMIT). If zero,
	// defaults to 512 MiB.
	MaxMemoryBytes int64

	// Workers is how many calls of lro_extract and lro_search (each with its
	// worker process) and reads of lro://results/{handle} may run at once,
	// for all the calls of the tools one AddTools registered, over every
	// session: they use at most Workers times MaxMemoryBytes, plus about
	// 12 MiB each. A call that finds them all busy waits, within its time
	// limit. If zero, defaults to 4.
	Workers int

	// now returns the current time, for the names and headers of offloaded
	// results; tests set it (export_test.go). If nil, defaults to [time.Now].
	now func() time.Time
}

// minMemoryBytes is the least MaxMemoryBytes may be.
const minMemoryBytes = 16 << 20

// answerShare is how many times MaxOutputBytes fits in MaxMemoryBytes at
// least. The server reads a worker's answer into a buffer of its size,
// then builds the text shown and the offloaded file's sample from it, with
// garbage of the same size not yet collected: the server grew by seven
// times a 16 MiB answer (TestBoundedCalls).
const answerShare = 8

// config is a validated copy of Options with every default applied.
type config struct {
	Options
	// The fields of Options.LRO the tools use, with their defaults.
	Store           *store.Store
	Dir             string
	Prefix          string
	ThresholdTokens int
	Tokenizer       estimate.Tokenizer
	Observer        event.Observer
	// create starts an offloaded file; tests replace it to make the write
	// of an extraction result fail.
	create func(operation string, opts *jsonlfile.Options) (*jsonlfile.Writer, error)
	// slots holds a token for each running worker, at most Workers.
	slots chan struct{}
	// Now is Options.now, or time.Now.
	Now func() time.Time
}

// newConfig copies opts, applies defaults and validates, naming the first
// invalid field.
func newConfig(opts *Options) (*config, error) {
	c := &config{create: jsonlfile.Create}
	if opts != nil {
		c.Options = *opts
	}
	if l := c.LRO; l != nil {
		c.Store, c.Dir, c.Prefix = l.Store, l.OutputDir, l.Prefix
		c.ThresholdTokens, c.Tokenizer, c.Observer = l.ThresholdTokens, l.Tokenizer, l.Observer
	}
	invalid := func(field string, v any) error {
		return fmt.Errorf("extract: Options.%s is %v: %w", field, v, lro.ErrInvalidOption)
	}
	if c.Store != nil {
		if err := c.useStore(); err != nil {
			return nil, err
		}
	}
	if c.Dir == "" && c.Store == nil {
		c.Dir = os.TempDir()
	}
	if c.Dir != "" {
		dir, err := filepath.Abs(c.Dir)
		if err != nil {
			return nil, fmt.Errorf("extract: Options.LRO.OutputDir %q: %w", c.Dir, err)
		}
		c.Dir = dir
	}
	if c.Prefix == "" {
		c.Prefix = jsonlfile.DefaultPrefix
	}
	if err := jsonlfile.ValidatePrefix(c.Prefix); err != nil {
		return nil, fmt.Errorf("extract: Options.LRO.Prefix: %w", err)
	}
	switch {
	case c.Timeout < 0:
		return nil, invalid("Timeout", c.Timeout)
	case c.MaxInputBytes < 0:
		return nil, invalid("MaxInputBytes", c.MaxInputBytes)
	case c.MaxRecordBytes < 0:
		return nil, invalid("MaxRecordBytes", c.MaxRecordBytes)
	case c.MaxOutputBytes < 0:
		return nil, invalid("MaxOutputBytes", c.MaxOutputBytes)
	case c.MaxResults < 0:
		return nil, invalid("MaxResults", c.MaxResults)
	case c.MaxMemoryBytes < 0:
		return nil, invalid("MaxMemoryBytes", c.MaxMemoryBytes)
	case c.MaxMemoryBytes > 0 && c.MaxMemoryBytes < minMemoryBytes:
		return nil, fmt.Errorf("extract: Options.MaxMemoryBytes is %d, less than %d MiB, too little for a worker to run a query: %w", c.MaxMemoryBytes, minMemoryBytes>>20, lro.ErrInvalidOption)
	case c.Workers < 0:
		return nil, invalid("Workers", c.Workers)
	case c.ThresholdTokens < 0:
		return nil, invalid("LRO.ThresholdTokens", c.ThresholdTokens)
	}
	if c.Timeout == 0 {
		c.Timeout = defaultTimeout
	}
	if c.MaxInputBytes == 0 {
		c.MaxInputBytes = defaultMaxInputBytes
	}
	if c.MaxRecordBytes == 0 {
		c.MaxRecordBytes = defaultMaxRecordBytes
	}
	if c.MaxResults == 0 {
		c.MaxResults = defaultMaxResults
	}
	if c.MaxMemoryBytes == 0 {
		c.MaxMemoryBytes = defaultMaxMemoryBytes
	}
	answerMax := c.MaxMemoryBytes / answerShare
	switch {
	case c.MaxOutputBytes == 0:
		c.MaxOutputBytes = int(max(min(defaultMaxOutputBytes, answerMax), 1))
	case int64(c.MaxOutputBytes) > answerMax:
		return nil, fmt.Errorf("extract: Options.MaxOutputBytes is %d, more than an eighth of MaxMemoryBytes (%d): the server holds an answer several times over while it builds it, within the memory of one call: %w",
			c.MaxOutputBytes, c.MaxMemoryBytes, lro.ErrInvalidOption)
	}
	if c.Workers == 0 {
		c.Workers = defaultWorkers
	}
	c.slots = make(chan struct{}, c.Workers)
	if c.ThresholdTokens == 0 {
		c.ThresholdTokens = offload.DefaultThreshold
	}
	if c.Tokenizer == nil {
		c.Tokenizer = estimate.Heuristic{}
	}
	c.Now = c.now
	if c.Now == nil {
		c.Now = time.Now
	}
	return c, nil
}

// useStore checks that Dir and Prefix, if given, are the Store's, and sets
// them to the Store's: Dir is "" for a bucket.
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
	if c.Prefix != "" && c.Prefix != st.Prefix() {
		return fmt.Errorf("extract: Options.LRO.Prefix is %q, but that of Options.LRO.Store is %q: leave Prefix empty or give the same: %w", c.Prefix, st.Prefix(), lro.ErrInvalidOption)
	}
	c.Dir, c.Prefix = st.Dir(), st.Prefix()
	return nil
}

// Validate reports whether opts is a valid configuration, naming the first
// invalid field. A nil *Options is valid.
func (opts *Options) Validate() error {
	_, err := newConfig(opts)
	return err
}
