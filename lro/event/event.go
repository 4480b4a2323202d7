// Package event defines the observability events of Large Result Offloading
// and the [Observer] interface that receives them.
//
// The [github.com/zircote/lro-go/lro] decorator, the
// [github.com/zircote/lro-go/cleanup] janitor and the stores of package
// [github.com/zircote/lro-go/lro/store] emit events through the same
// Observer, so one implementation (for example [Slog]) sees every event of
// a server. Observers are called concurrently, on the path of the tool
// call. A nil Observer is valid everywhere and discards every event.
package event

import (
	"cmp"
	"context"
	"log/slog"
	"reflect"
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
}

// Offloaded is emitted after a result set was written to a file and the tool
// result replaced by a descriptor. Its name is "OffloadCompleted". [Slog]
// logs each field under the key of its log tag.
type Offloaded struct {
	// Tool is the name of the tool that produced the result.
	Tool string `log:"tool"`
	// Operation is the operation recorded in the file's header and name,
	// as sanitized for a file name, for example "recall".
	Operation string `log:"operation"`
	// Path is the absolute path of the JSONL file, or "" for a file
	// written to a bucket.
	Path string `log:"path"`
	// Handle is the file's handle when it was written to a store
	// (lro.Options.Store): its name, which the descriptor gives and the
	// extraction tools take, and its key in a bucket. It is "" without a
	// store.
	Handle string `log:"handle"`
	// Count is the number of records written: the lines after the header.
	Count int `log:"count"`
	// EstimatedTokens is the estimated size of the whole result set, the sum
	// over its record lines.
	EstimatedTokens int `log:"estimated_tokens"`
	// ThresholdTokens is the threshold the estimate exceeded.
	ThresholdTokens int `log:"threshold_tokens"`
	// Detail is the detail level of the records: "light", "medium" or
	// "full".
	Detail string `log:"detail"`
	// Bytes is the size of the file, header line included.
	Bytes int64 `log:"bytes"`
	// Duration is the time spent writing the file and building the
	// descriptor, measured with the decorator's clock.
	Duration time.Duration `log:"duration"`
}

// WriteFailed is emitted when a result set above the threshold could not be
// written: the folder is missing and cannot be created, permission is
// denied, the disk is full, or a file is in the folder's way. The call still
// succeeded, with Shown of Count records inline and a warning, and no file
// (complete or partial) was left behind. Its name is "OffloadWriteFailed".
// [Slog] logs each field under the key of its log tag.
type WriteFailed struct {
	// Tool is the name of the tool that produced the result.
	Tool string `log:"tool"`
	// Operation is the operation that would have named the file, as
	// sanitized for a file name.
	Operation string `log:"operation"`
	// Dir is the absolute path of the output folder, or "" for a bucket.
	Dir string `log:"dir"`
	// Count is the number of records in the whole result set.
	Count int `log:"count"`
	// Shown is the number of leading records kept in the truncated inline
	// result: as many whole records as fit within the threshold.
	Shown int `log:"shown"`
	// EstimatedTokens is the estimated size of the whole result set.
	EstimatedTokens int `log:"estimated_tokens"`
	// Err is why the write failed. It wraps the underlying error, so that
	// errors.Is(Err, syscall.ENOSPC) or errors.Is(Err, fs.ErrPermission)
	// tells the cause; it is logged as its message.
	Err error `log:"error"`
}

// FileExpired is emitted by the janitor for each offloaded file it deleted
// after its time to live passed, and for each temporary file it deleted that
// an interrupted write left behind (with Temporary set). Its name is
// "OffloadFileExpired". [Slog] logs each field under the key of its log
// tag.
type FileExpired struct {
	// Path is the absolute path of the deleted file, or the key of the
	// deleted object of a bucket.
	Path string `log:"path"`
	// CreatedAt is when the file was created, as its name records it, to
	// the millisecond.
	CreatedAt time.Time `log:"created_at"`
	// TTL is the time to live that passed.
	TTL time.Duration `log:"ttl"`
	// Temporary reports that the file was the hidden temporary file of an
	// interrupted write rather than a committed offload file.
	Temporary bool `log:"temporary"`
}

// StoreUnavailable is emitted by a bucket store (package
// [github.com/zircote/lro-go/lro/store]) when its writes have failed
// Failures times in a row: until Until, every offload falls back at once
// (each with its own [WriteFailed]); then one write tries the bucket again,
// and if it fails, the event is emitted again, with a longer wait. Its name
// is "OffloadStoreUnavailable". [Slog] logs each field under the key of its
// log tag.
type StoreUnavailable struct {
	// Failures is the number of writes in a row that failed.
	Failures int `log:"failures"`
	// Until is when a write tries the bucket again, by the store's clock.
	Until time.Time `log:"until"`
	// Err is why the last write failed; it is logged as its message.
	Err error `log:"error"`
}

func (Offloaded) name() string        { return "OffloadCompleted" }
func (WriteFailed) name() string      { return "OffloadWriteFailed" }
func (FileExpired) name() string      { return "OffloadFileExpired" }
func (StoreUnavailable) name() string { return "OffloadStoreUnavailable" }

// attrs returns the fields of e as logging attributes, each under the key
// of its log tag; an error is logged as its message.
func attrs(e Event) []slog.Attr {
	v := reflect.ValueOf(e)
	out := make([]slog.Attr, v.NumField())
	for i := range out {
		f := v.Field(i).Interface()
		if v.Field(i).Type() == reflect.TypeFor[error]() {
			f = ""
			if err, ok := v.Field(i).Interface().(error); ok {
				f = err.Error()
			}
		}
		out[i] = slog.Any(v.Type().Field(i).Tag.Get("log"), f)
	}
	return out
}

// An Observer receives events. Implementations must be safe for concurrent
// use and should return quickly: they are called on the path of the call.
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
		logger := cmp.Or(l, slog.Default())
		level := slog.LevelInfo
		switch e.(type) {
		case WriteFailed, StoreUnavailable:
			level = slog.LevelWarn
		}
		logger.LogAttrs(ctx, level, e.name(), attrs(e)...)
	})
}
