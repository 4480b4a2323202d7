// Package event defines the observability events of Large Result Offloading
// and the [Observer] interface that receives them.
//
// The package is a leaf: both the [github.com/zircote/lro-go/lro] decorator and
// the [github.com/zircote/lro-go/cleanup] janitor emit events through the same
// Observer, so one implementation (for example [Slog]) sees every event of a
// server.
//
// Observers may be called concurrently from many goroutines (one per tool call
// in flight, plus the janitor) and must be safe for concurrent use. They are
// called synchronously on the path of the tool call, so they should return
// quickly. A nil Observer is valid everywhere and discards every event.
package event

import (
	"context"
	"log/slog"
	"strconv"
	"time"
)

// Kind identifies the type of an [Event].
type Kind int

const (
	// KindOffloaded reports a result set written to a JSONL file and replaced by
	// a descriptor. Its payload is [Offloaded].
	KindOffloaded Kind = iota + 1
	// KindWriteFailed reports a result set that exceeded the threshold but could
	// not be written; the call fell back to an inline, truncated result. Its
	// payload is [WriteFailed]. The specification calls it OffloadWriteFailed.
	KindWriteFailed
	// KindFileExpired reports an offloaded file deleted by the TTL janitor after
	// its time to live passed. Its payload is [FileExpired]. The specification
	// calls it OffloadFileExpired.
	KindFileExpired
	// KindStoreUnavailable reports that writes to a bucket store failed
	// repeatedly, so that offloads fall back at once for a while without
	// trying the bucket. Its payload is [StoreUnavailable].
	KindStoreUnavailable
)

// String returns the event name used by the specification, for example
// "OffloadWriteFailed".
func (k Kind) String() string {
	switch k {
	case KindOffloaded:
		return "OffloadCompleted"
	case KindWriteFailed:
		return "OffloadWriteFailed"
	case KindFileExpired:
		return "OffloadFileExpired"
	case KindStoreUnavailable:
		return "OffloadStoreUnavailable"
	}
	return "OffloadEvent(" + strconv.Itoa(int(k)) + ")"
}

// An Event is one of [Offloaded], [WriteFailed], [FileExpired] or
// [StoreUnavailable]. Switch on its concrete type, or on [Event.Kind].
type Event interface {
	// Kind reports which payload type this event is.
	Kind() Kind
	// LogAttrs returns the event's fields as structured logging attributes.
	LogAttrs() []slog.Attr
}

// Offloaded is emitted after a result set was written to a file and the tool
// result replaced by a descriptor. Its name, [Kind.String], is
// "OffloadCompleted". [Offloaded.LogAttrs] logs each field under the key
// given in its comment.
type Offloaded struct {
	// Tool is the name of the tool that produced the result ("tool").
	Tool string
	// Operation is the operation recorded in the file's header and name,
	// as sanitized for a file name, for example "recall" ("operation").
	Operation string
	// Path is the absolute path of the JSONL file, or "" for a file
	// written to a bucket ("path").
	Path string
	// Handle is the file's handle when it was written to a store
	// (lro.Options.Store): its name, which the descriptor gives and the
	// extraction tools take, and its key in a bucket ("handle"). It is ""
	// without a store.
	Handle string
	// Count is the number of records written: the lines after the header
	// ("count").
	Count int
	// EstimatedTokens is the estimated size of the whole result set, the sum
	// over its record lines ("estimated_tokens").
	EstimatedTokens int
	// ThresholdTokens is the threshold the estimate exceeded
	// ("threshold_tokens").
	ThresholdTokens int
	// Detail is the detail level of the records: "light", "medium" or
	// "full" ("detail").
	Detail string
	// Bytes is the size of the file, header line included ("bytes").
	Bytes int64
	// Duration is the time spent writing the file and building the
	// descriptor, measured with the decorator's clock ("duration").
	Duration time.Duration
}

// WriteFailed is emitted when a result set above the threshold could not be
// written: the folder is missing and cannot be created, permission is
// denied, the disk is full, or a file is in the folder's way. The call still
// succeeded, with Shown of Count records inline and a warning, and no file
// (complete or partial) was left behind. Its name, [Kind.String], is
// "OffloadWriteFailed". [WriteFailed.LogAttrs] logs each field under the key
// given in its comment.
type WriteFailed struct {
	// Tool is the name of the tool that produced the result ("tool").
	Tool string
	// Operation is the operation that would have named the file, as
	// sanitized for a file name ("operation").
	Operation string
	// Dir is the absolute path of the output folder, or "" for a bucket
	// ("dir").
	Dir string
	// Count is the number of records in the whole result set ("count").
	Count int
	// Shown is the number of leading records kept in the truncated inline
	// result: as many whole records as fit within the threshold ("shown").
	Shown int
	// EstimatedTokens is the estimated size of the whole result set
	// ("estimated_tokens").
	EstimatedTokens int
	// Err is why the write failed. It wraps the underlying error, so that
	// errors.Is(Err, syscall.ENOSPC) or errors.Is(Err, fs.ErrPermission)
	// tells the cause; it is logged as its message ("error").
	Err error
}

// FileExpired is emitted by the janitor for each offloaded file it deleted
// after its time to live passed, and for each temporary file it deleted that
// an interrupted write left behind (with Temporary set). Its name,
// [Kind.String], is "OffloadFileExpired". [FileExpired.LogAttrs] logs each
// field under the key given in its comment.
type FileExpired struct {
	// Path is the absolute path of the deleted file, or the key of the
	// deleted object of a bucket ("path").
	Path string
	// CreatedAt is when the file was created, as its name records it, to
	// the millisecond ("created_at").
	CreatedAt time.Time
	// TTL is the time to live that passed ("ttl").
	TTL time.Duration
	// Temporary reports that the file was the hidden temporary file of an
	// interrupted write rather than a committed offload file ("temporary").
	Temporary bool
}

// StoreUnavailable is emitted by a bucket store (package
// [github.com/zircote/lro-go/lro/store]) when its writes have failed
// Failures times in a row: until Until, every offload falls back at once,
// without trying the bucket (each with its own [WriteFailed]). From Until
// on, one write tries the bucket again: if it succeeds, writes go on as
// before; if it fails, the event is emitted again, with a longer wait. Its
// name, [Kind.String], is "OffloadStoreUnavailable".
// [StoreUnavailable.LogAttrs] logs each field under the key given in its
// comment.
type StoreUnavailable struct {
	// Failures is the number of writes in a row that failed ("failures").
	Failures int
	// Until is when a write tries the bucket again, by the store's clock
	// ("until").
	Until time.Time
	// Err is why the last write failed; it is logged as its message
	// ("error").
	Err error
}

// Kind returns [KindOffloaded].
func (Offloaded) Kind() Kind { return KindOffloaded }

// Kind returns [KindWriteFailed].
func (WriteFailed) Kind() Kind { return KindWriteFailed }

// Kind returns [KindFileExpired].
func (FileExpired) Kind() Kind { return KindFileExpired }

// Kind returns [KindStoreUnavailable].
func (StoreUnavailable) Kind() Kind { return KindStoreUnavailable }

// LogAttrs returns the event's fields as logging attributes.
func (e StoreUnavailable) LogAttrs() []slog.Attr {
	errText := ""
	if e.Err != nil {
		errText = e.Err.Error()
	}
	return []slog.Attr{
		slog.Int("failures", e.Failures),
		slog.Time("until", e.Until),
		slog.String("error", errText),
	}
}

// LogAttrs returns the event's fields as logging attributes.
func (e Offloaded) LogAttrs() []slog.Attr {
	return []slog.Attr{
		slog.String("tool", e.Tool),
		slog.String("operation", e.Operation),
		slog.String("path", e.Path),
		slog.String("handle", e.Handle),
		slog.Int("count", e.Count),
		slog.Int("estimated_tokens", e.EstimatedTokens),
		slog.Int("threshold_tokens", e.ThresholdTokens),
		slog.String("detail", e.Detail),
		slog.Int64("bytes", e.Bytes),
		slog.Duration("duration", e.Duration),
	}
}

// LogAttrs returns the event's fields as logging attributes.
func (e WriteFailed) LogAttrs() []slog.Attr {
	errText := ""
	if e.Err != nil {
		errText = e.Err.Error()
	}
	return []slog.Attr{
		slog.String("tool", e.Tool),
		slog.String("operation", e.Operation),
		slog.String("dir", e.Dir),
		slog.Int("count", e.Count),
		slog.Int("shown", e.Shown),
		slog.Int("estimated_tokens", e.EstimatedTokens),
		slog.String("error", errText),
	}
}

// LogAttrs returns the event's fields as logging attributes.
func (e FileExpired) LogAttrs() []slog.Attr {
	return []slog.Attr{
		slog.String("path", e.Path),
		slog.Time("created_at", e.CreatedAt),
		slog.Duration("ttl", e.TTL),
		slog.Bool("temporary", e.Temporary),
	}
}

// An Observer receives events. Implementations must be safe for concurrent
// use and should return quickly.
type Observer interface {
	Observe(ctx context.Context, e Event)
}

// ObserverFunc adapts an ordinary function to the [Observer] interface.
type ObserverFunc func(ctx context.Context, e Event)

// Observe calls f(ctx, e).
func (f ObserverFunc) Observe(ctx context.Context, e Event) { f(ctx, e) }

// Emit delivers e to o. A nil o discards the event.
func Emit(ctx context.Context, o Observer, e Event) {
	if o != nil {
		o.Observe(ctx, e)
	}
}

// Slog returns an Observer that logs each event to l: write failures and
// an unavailable store at [slog.LevelWarn], the others at [slog.LevelInfo]. The message is the
// event's name, for example "OffloadCompleted". A nil l uses [slog.Default].
func Slog(l *slog.Logger) Observer {
	return ObserverFunc(func(ctx context.Context, e Event) {
		logger := l
		if logger == nil {
			logger = slog.Default()
		}
		level := slog.LevelInfo
		if k := e.Kind(); k == KindWriteFailed || k == KindStoreUnavailable {
			level = slog.LevelWarn
		}
		logger.LogAttrs(ctx, level, e.Kind().String(), e.LogAttrs()...)
	})
}
