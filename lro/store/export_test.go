package store

import (
	"context"
	"io"
	"time"
)

// WithClock makes s run on the clock now (its names, expiries, reads and
// write deadlines) and returns s. Call it before s is used. An automatic
// janitor still runs on the system's clock: offload with CleanupInterval -1.
func WithClock(s *Store, now func() time.Time) *Store {
	s.now = now
	return s
}

// WithWriter makes s wrap the writer of every file it writes with wrap (a
// disk or a network that fails or stalls) and returns s. Call it before s
// is used.
func WithWriter(s *Store, wrap func(io.Writer) io.Writer) *Store {
	s.wrap = wrap
	return s
}

// WaitDiscards waits until the removals of failed uploads have ended,
// without stopping them as Close does.
func WaitDiscards(s *Store) { s.wg.Wait() }

// The defaults of Options.TTL and Options.WriteTimeout, which users find
// documented on the fields.
const (
	DefaultTTL          = defaultTTL
	DefaultWriteTimeout = defaultWriteTimeout
)

// Reader is a stored file opened by NewReader, with its size.
type Reader struct {
	io.ReadCloser
	size int64
}

// Size returns the size of the whole file in bytes.
func (r *Reader) Size() int64 { return r.size }

// NewReader opens the file of handle for reading from its start, as
// NewRangeReader(ctx, handle, 0, -1).
func (s *Store) NewReader(ctx context.Context, handle string) (*Reader, error) {
	r, size, err := s.NewRangeReader(ctx, handle, 0, -1)
	if err != nil {
		return nil, err
	}
	return &Reader{r, size}, nil
}
