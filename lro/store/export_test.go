package store

import (
	"context"
	"io"
)

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
