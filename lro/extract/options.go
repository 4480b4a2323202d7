package extract

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/zircote/lro-go/estimate"
	"github.com/zircote/lro-go/internal/jsonlfile"
	"github.com/zircote/lro-go/internal/offload"
	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro/event"
	"github.com/zircote/lro-go/lro/store"
)

// Defaults of [Options]. Each is what the zero value of the corresponding
// field means. The defaults the tools share with the offloading decorator
// have one definition each, outside this package: Dir defaults to
// [os.TempDir], Prefix to [jsonl.DefaultPrefix] and ThresholdTokens to
// [github.com/zircote/lro-go/lro.DefaultThresholdTokens].
const (
	// DefaultTimeout bounds one tool call.
	DefaultTimeout = 10 * time.Second
	// DefaultMaxInputBytes is the most bytes of a file one call reads: enough
	// to stream through a 1 GB result, while a slurping query on a file that
	// large stops at DefaultMaxMemoryBytes first.
	DefaultMaxInputBytes int64 = 1 << 30
	// DefaultMaxRecordBytes is the longest record line lro_extract and
	// lro_search decode. lro_read reads longer lines by character range.
	DefaultMaxRecordBytes = 16 << 20
	// DefaultMaxOutputBytes is the most output one call may produce before it
	// fails, counted before any offload of the result, when MaxMemoryBytes
	// allows it (see [Options.MaxOutputBytes]).
	DefaultMaxOutputBytes = 64 << 20
	// DefaultMaxResults is the most results (jq outputs, search matches) one
	// call may produce before it fails.
	DefaultMaxResults = 100_000
	// DefaultMaxMemoryBytes is the memory the worker of one call may use.
	DefaultMaxMemoryBytes int64 = 512 << 20
	// DefaultWorkers is how many workers may run at once.
	DefaultWorkers = 4
)

// ErrInvalidOption is wrapped by the error that reports an invalid [Options]
// field; the message names the field and its value.
var ErrInvalidOption = errors.New("extract: invalid option")

// Options configure the extraction tools. A nil *Options, and the zero value
// of every field, means the defaults. Options are copied by [AddTools]:
// changing them afterwards has no effect.
type Options struct {
	// Store, if not nil, is where the offloaded files are: the store of
	// the offloading decorator (lro.Options.Store), a folder or a bucket.
	// The tools then read its files by handle (the handle argument, or,
	// for a folder store, the file_path of its descriptors) on any replica
	// of the server,
	// streamed from the bucket when it is one, under the same limits; an
	// unknown or expired handle is a tool error that says which. AddTools
	// also registers the resource template lro://results/{handle}, so that
	// clients can fetch a result with resources/read, and lro_extract
	// writes its answers above the threshold to the Store. Dir and Prefix
	// may be left empty: if given, they must be the Store's (a bucket has
	// no Dir). If nil, the tools read Dir.
	Store *store.Store

	// Dir is the output folder: the tools read offloaded files directly in
	// it and nowhere else. It must be the folder the offloading decorator
	// writes to (lro.Options.OutputDir). If empty, defaults to the folder
	// of Store, or with no Store to [os.TempDir], as the decorator does. It
	// is made absolute.
	Dir string

	// Prefix is the first part of the names of offloaded files,
	// {prefix}-{operation}-{ulid}.jsonl: only files named so can be read. It
	// must be the prefix the decorator writes with (lro.Options.Prefix). If
	// empty, defaults to the prefix of Store, or with no Store to
	// [jsonl.DefaultPrefix], as the decorator does.
	Prefix string

	// Timeout bounds each tool call: a query still running when it passes is
	// stopped with a tool error. If zero, defaults to [DefaultTimeout].
	Timeout time.Duration

	// MaxInputBytes is the most bytes of a file one call reads. If zero,
	// defaults to [DefaultMaxInputBytes].
	MaxInputBytes int64

	// MaxRecordBytes is the longest record line lro_extract and lro_search
	// decode; a longer one stops the call with a tool error that points to
	// lro_read. If zero, defaults to [DefaultMaxRecordBytes].
	MaxRecordBytes int

	// MaxOutputBytes is the most output bytes one call may produce, as the
	// file of an answer offloaded in turn holds them (a string printed raw
	// counts quoted). The server holds an answer several times over while it
	// builds it, within the memory of the call: MaxOutputBytes may be at most
	// an eighth of MaxMemoryBytes. If zero, defaults to
	// [DefaultMaxOutputBytes] or that eighth, whichever is less.
	MaxOutputBytes int

	// MaxResults is the most results one call may produce: jq outputs of
	// lro_extract, matching records of lro_search. If zero, defaults to
	// [DefaultMaxResults].
	MaxResults int

	// MaxMemoryBytes is the memory one lro_extract or lro_search call may
	// use, beyond what its worker process holds when it starts (about
	// 12 MiB). The worker may allocate all of it but twice MaxOutputBytes,
	// which the server keeps for reading the worker's answer; past that the
	// worker dies and the call fails with a tool error. Once the worker has
	// ended, the server builds the answer within MaxMemoryBytes.
	// On Linux the kernel enforces the worker's share (RLIMIT_AS); elsewhere
	// it is only the worker's soft Go memory limit (GOMEMLIMIT). If zero,
	// defaults to [DefaultMaxMemoryBytes].
	MaxMemoryBytes int64

	// Workers is how many calls of lro_extract and lro_search (each with its
	// worker process) and reads of lro://results/{handle} may run at once,
	// for all the calls of the tools one AddTools registered, over every
	// session: they use at most Workers times MaxMemoryBytes, plus about
	// 12 MiB each. A call that finds them all busy waits, within its time
	// limit. If zero, defaults to [DefaultWorkers].
	Workers int

	// ThresholdTokens is the size above which a tool's answer is not shown
	// inline: an lro_extract result is written to a new offloaded file (or,
	// if that fails, truncated with a note), and lro_read and lro_search show
	// what fits with a note saying how to continue. If zero, defaults to
	// the specification's 1600,
	// [github.com/zircote/lro-go/lro.DefaultThresholdTokens].
	ThresholdTokens int

	// Tokenizer estimates tokens. If nil, defaults to [estimate.Heuristic].
	Tokenizer estimate.Tokenizer

	// Observer receives an [event.Offloaded] for every lro_extract result
	// written to a file, and an [event.WriteFailed] when that write fails. If
	// nil, events are discarded. It may be called concurrently.
	Observer event.Observer

	// Now returns the current time, for the names and headers of offloaded
	// results. If nil, defaults to [time.Now].
	Now func() time.Time
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
	// create starts an offloaded file; tests replace it to make the write
	// of an extraction result fail.
	create func(operation string, opts *jsonlfile.Options) (*jsonlfile.Writer, error)
	// slots holds a token for each running worker, at most Workers.
	slots chan struct{}
}

// newConfig copies opts, applies defaults and validates, naming the first
// invalid field.
func newConfig(opts *Options) (*config, error) {
	c := &config{create: jsonlfile.Create}
	if opts != nil {
		c.Options = *opts
	}
	invalid := func(field string, v any) error {
		return fmt.Errorf("extract: Options.%s is %v: %w", field, v, ErrInvalidOption)
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
			return nil, fmt.Errorf("extract: Options.Dir %q: %w", c.Dir, err)
		}
		c.Dir = dir
	}
	if c.Prefix == "" {
		c.Prefix = jsonl.DefaultPrefix
	}
	if err := jsonlfile.ValidatePrefix(c.Prefix); err != nil {
		return nil, fmt.Errorf("extract: Options.Prefix: %w", err)
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
		return nil, fmt.Errorf("extract: Options.MaxMemoryBytes is %d, less than %d MiB, too little for a worker to run a query: %w", c.MaxMemoryBytes, minMemoryBytes>>20, ErrInvalidOption)
	case c.Workers < 0:
		return nil, invalid("Workers", c.Workers)
	case c.ThresholdTokens < 0:
		return nil, invalid("ThresholdTokens", c.ThresholdTokens)
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MaxInputBytes == 0 {
		c.MaxInputBytes = DefaultMaxInputBytes
	}
	if c.MaxRecordBytes == 0 {
		c.MaxRecordBytes = DefaultMaxRecordBytes
	}
	if c.MaxResults == 0 {
		c.MaxResults = DefaultMaxResults
	}
	if c.MaxMemoryBytes == 0 {
		c.MaxMemoryBytes = DefaultMaxMemoryBytes
	}
	answerMax := c.MaxMemoryBytes / answerShare
	switch {
	case c.MaxOutputBytes == 0:
		c.MaxOutputBytes = int(max(min(DefaultMaxOutputBytes, answerMax), 1))
	case int64(c.MaxOutputBytes) > answerMax:
		return nil, fmt.Errorf("extract: Options.MaxOutputBytes is %d, more than an eighth of MaxMemoryBytes (%d): the server holds an answer several times over while it builds it, within the memory of one call: %w",
			c.MaxOutputBytes, c.MaxMemoryBytes, ErrInvalidOption)
	}
	if c.Workers == 0 {
		c.Workers = DefaultWorkers
	}
	c.slots = make(chan struct{}, c.Workers)
	if c.ThresholdTokens == 0 {
		c.ThresholdTokens = offload.DefaultThreshold
	}
	if c.Tokenizer == nil {
		c.Tokenizer = estimate.Heuristic{}
	}
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
		return fmt.Errorf("extract: Options.Dir is %q, but Options.Store keeps its files in a bucket, not a folder: leave Dir empty: %w", c.Dir, ErrInvalidOption)
	case dir != "" && c.Dir != "":
		abs, err := filepath.Abs(c.Dir)
		if err != nil || (abs != dir && !sameDir(abs, dir)) {
			return fmt.Errorf("extract: Options.Dir is %q, but the folder of Options.Store is %q: leave Dir empty or give the same folder: %w", c.Dir, dir, ErrInvalidOption)
		}
	}
	if c.Prefix != "" && c.Prefix != st.Prefix() {
		return fmt.Errorf("extract: Options.Prefix is %q, but that of Options.Store is %q: leave Prefix empty or give the same: %w", c.Prefix, st.Prefix(), ErrInvalidOption)
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
