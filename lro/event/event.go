// Package event defines the observability events of Large Result Offloading
// and the [Observer] interface that receives them: package lro, the
// janitor of package cleanup and the stores of package lro/store emit them
// through the same Observer. A nil Observer discards every event.
package event

import (
	"cmp"
	"context"
	"log/slog"
	"reflect"
	"time"
)

// An Event is one of [Offloaded], [WriteFailed], [FileExpired] or
// [StoreUnavailable]: switch on its concrete type. [Slog] logs each under
// its name (the specification's where it names one) and its fields under
// the keys of their log tags.
type Event interface {
	// name returns the event's name, for example "OffloadWriteFailed".
	name() string
}

// Offloaded, named "OffloadCompleted", is emitted after a result set was
// written to a file and the tool result replaced by a descriptor.
type Offloaded struct {
	// Tool is the name of the tool that produced the result.
	Tool string `log:"tool"`
	// Operation is the operation recorded in the file's header and name,
	// as sanitized for a file name, for example "recall".
	Operation string `log:"operation"`
	// Path is the absolute path of the offload file, or the key of the
	// object written to a bucket, which is its handle. (In a folder of a
	// store, lro.Options.Store, the handle is the file's base name.)
	Path string `log:"path"`
	// Count is the number of records written: the lines after the header.
	Count int `log:"count"`
	// EstimatedTokens is the estimated size of the whole result set, the sum
	// over its record lines.
	EstimatedTokens int `log:"estimated_tokens"`
	// Bytes is the size of the file, header line included.
	Bytes int64 `log:"bytes"`
	// Duration is the time spent writing the file and building the
	// descriptor.
	Duration time.Duration `log:"duration"`
}

// WriteFailed, named "OffloadWriteFailed", is emitted when a result set
// above the threshold could not be written. The call still succeeded, with
// as many whole records inline as fit within the threshold and a warning
// that says how many of Count they are, and no file was left behind.
type WriteFailed struct {
	// Tool is the name of the tool that produced the result.
	Tool string `log:"tool"`
	// Operation is the operation that would have named the file, as
	// sanitized for a file name.
	Operation string `log:"operation"`
	// Count is the number of records in the whole result set.
	Count int `log:"count"`
	// EstimatedTokens is the estimated size of the whole result set.
	EstimatedTokens int `log:"estimated_tokens"`
	// Err is why the write failed, wrapping the underlying error (such as
	// syscall.ENOSPC or fs.ErrPermission).
	Err error `log:"error"`
}

// FileExpired, named "OffloadFileExpired", is emitted by the janitor for
// each offloaded file it deleted after its time to live passed, and for
// each temporary file of an interrupted write it deleted.
type FileExpired struct {
	// Path is the absolute path of the deleted file, or the key of the
	// deleted object of a bucket.
	Path string `log:"path"`
	// CreatedAt is when the file was created, as its name records it, to
	// the millisecond.
	CreatedAt time.Time `log:"created_at"`
	// Temporary reports that the file was the temporary file of an
	// interrupted write.
	Temporary bool `log:"temporary"`
}

// StoreUnavailable, named "OffloadStoreUnavailable", is emitted by a
// bucket store when its writes have failed Failures times in a row: until
// Until, every offload falls back at once (each with its [WriteFailed]);
// then one write tries the bucket again, and if it fails, the event is
// emitted again, with a longer wait.
type StoreUnavailable struct {
	// Failures is the number of writes in a row that failed.
	Failures int `log:"failures"`
	// Until is when a write tries the bucket again, by the store's clock.
	Until time.Time `log:"until"`
	// Err is why the last write failed.
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

// Slog returns an Observer that logs each event to l, under its name:
// write failures and an unavailable store at [slog.LevelWarn], the others
// at [slog.LevelInfo]. A nil l uses [slog.Default].
func Slog(l *slog.Logger) Observer { return slogObserver{l} }

// slogObserver is the Observer of Slog.
type slogObserver struct{ l *slog.Logger }

func (o slogObserver) Observe(ctx context.Context, e Event) {
	level := slog.LevelInfo
	switch e.(type) {
	case WriteFailed, StoreUnavailable:
		level = slog.LevelWarn
	}
	cmp.Or(o.l, slog.Default()).LogAttrs(ctx, level, e.name(), attrs(e)...)
}
