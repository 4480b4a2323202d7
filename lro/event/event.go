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
	"time"
)

// An Event is one of [Offloaded], [WriteFailed], [FileExpired] or
// [StoreUnavailable]: switch on its concrete type. Each has a name, the
// specification's where it names one, which [Slog] logs as the message:
// OffloadCompleted, OffloadWriteFailed, OffloadFileExpired and
// OffloadStoreUnavailable. Only this package defines events.
type Event interface {
	// name returns the event's name, for example "OffloadWriteFailed".
	name() string
	// attrs returns the event's fields as logging attributes, each under
	// the key given in its field's comment.
	attrs() []slog.Attr
}

// Offloaded is emitted after a result set was written to a file and the tool
// result replaced by a descriptor. Its name is "OffloadCompleted". [Slog]
// logs each field under the key given in its comment.
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
// (complete or partial) was left behind. Its name is "OffloadWriteFailed".
// [Slog] logs each field under the key given in its comment.
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
// an interrupted write left behind (with Temporary set). Its name is
// "OffloadFileExpired". [Slog] logs each field under the key given in its
// comment.
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
// name is "OffloadStoreUnavailable". [Slog] logs each field under the key
// given in its comment.
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

func (Offloaded) name() string        { return "OffloadCompleted" }
func (WriteFailed) name() string      { return "OffloadWriteFailed" }
func (FileExpired) name() string      { return "OffloadFileExpired" }
func (StoreUnavailable) name() string { return "OffloadStoreUnavailable" }

func (e StoreUnavailable) attrs() []slog.Attr {
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

func (e Offloaded) attrs() []slog.Attr {
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

func (e WriteFailed) attrs() []slog.Attr {
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

func (e FileExpired) attrs() []slog.Attr {
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
		switch e.(type) {
		case WriteFailed, StoreUnavailable:
			level = slog.LevelWarn
		}
		logger.LogAttrs(ctx, level, e.name(), e.attrs()...)
	})
}
