package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
	"time"

	"github.com/zircote/lro-go/internal/disk"
)

// NewRangeReader opens the file of handle for reading length bytes from
// offset, or to the end if length is negative, and returns the size of the
// whole file; close r after use. A range past the end of the file is an
// error in a bucket and reads nothing in a folder. A folder's file is
// opened through an [os.Root], following no link (symbolic or hard) and
// blocking on no FIFO; in a folder that other users may write to, only a
// file of the Store's user is read. The error wraps [ErrUnknownHandle] for a handle that is not a
// name the Store makes or names no regular file, and [ErrExpiredHandle]
// once the handle has expired.
func (s *Store) NewRangeReader(ctx context.Context, handle string, offset, length int64) (r io.ReadCloser, size int64, err error) {
	late, err := s.check(handle)
	if err != nil {
		return nil, 0, err
	}
	if offset < 0 {
		return nil, 0, fmt.Errorf("store: handle %q: negative offset %d", handle, offset)
	}
	if s.bucket != nil {
		if late != nil { // valid while the recorded expiry is ahead
			expiry, err := s.bucket.Expiry(ctx, handle)
			if errors.Is(err, fs.ErrNotExist) {
				return nil, 0, late(time.Time{}) // and deleted
			}
			if err != nil {
				return nil, 0, fmt.Errorf("store: handle %q: %w", handle, err)
			}
			if !s.now().Before(expiry) {
				return nil, 0, late(expiry)
			}
		}
		r, size, err := s.bucket.NewRangeReader(ctx, handle, offset, length)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, 0, fmt.Errorf("%w %q: no such result (results are deleted some time after their handle expires)", ErrUnknownHandle, handle)
		}
		if err != nil {
			return nil, 0, fmt.Errorf("store: handle %q: %w", handle, err)
		}
		return r, size, nil
	}
	return s.openFile(handle, offset, length, late)
}

// check returns the error of a malformed handle. For a handle past its
// created_at + TTL, it returns late, which returns the error of an expired
// handle given the expiry recorded with its file, the later of the two.
func (s *Store) check(handle string) (late func(recorded time.Time) error, err error) {
	op, id, ok := disk.ParseName(handle, s.prefix)
	if !ok || disk.Name(s.prefix, op, id) == handle { // no random part: guessed
		return nil, fmt.Errorf("%w %q: not a handle of this server (handles are named %s-{operation}-{ULID}-{random}.jsonl)", ErrUnknownHandle, handle, s.prefix)
	}
	created := time.UnixMilli(int64(id.Time())).UTC()
	expiry := created.Add(s.ttl)
	if s.now().Before(expiry) {
		return nil, nil
	}
	return func(recorded time.Time) error {
		if recorded.After(expiry) {
			expiry = recorded.UTC()
		}
		return fmt.Errorf("%w %q: created at %s, it expired at %s (results live %v): offload the result again",
			ErrExpiredHandle, handle, created.Format(time.RFC3339), expiry.Format(time.RFC3339), s.ttl)
	}, nil
}

// openFile opens the range of the folder's file named handle; if late is
// not nil, only while the file's recorded expiry is ahead.
func (s *Store) openFile(handle string, offset, length int64, late func(time.Time) error) (io.ReadCloser, int64, error) {
	unknown := func(reason string) error {
		if late != nil {
			return late(time.Time{}) // expired by its TTL, and gone
		}
		return fmt.Errorf("%w %q: %s", ErrUnknownHandle, handle, reason)
	}
	root, err := os.OpenRoot(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, unknown("no such result (nothing has been stored yet)")
	}
	if err != nil {
		return nil, 0, fmt.Errorf("store: handle %q: %w", handle, err)
	}
	defer root.Close()
	fi, err := root.Lstat(handle)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, 0, unknown("no such result (results are deleted some time after their handle expires)")
	case err != nil:
		return nil, 0, fmt.Errorf("store: handle %q: %w", handle, err)
	case !fi.Mode().IsRegular():
		return nil, 0, unknown("not a regular file, not a stored result")
	}
	f, fi, err := disk.OpenChecked(root, handle, fi) // no link swapped in since, nor a FIFO
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, 0, unknown("no such result (results are deleted some time after their handle expires)")
	case errors.Is(err, syscall.ELOOP):
		return nil, 0, unknown("a symbolic link, not a stored result")
	case errors.Is(err, disk.ErrNotRegular), errors.Is(err, disk.ErrReplaced), errors.Is(err, disk.ErrLinked), errors.Is(err, disk.ErrForeign):
		return nil, 0, unknown(err.Error() + ", not a stored result")
	case err != nil:
		return nil, 0, fmt.Errorf("store: handle %q: %w", handle, err)
	}
	if late != nil {
		if recorded, _ := disk.ExpiryOf(fi); !s.now().Before(recorded) {
			f.Close()
			return nil, 0, late(recorded)
		}
	}
	if offset > 0 {
		if _, err := f.Seek(offset, io.SeekStart); err != nil {
			f.Close()
			return nil, 0, fmt.Errorf("store: handle %q: %w", handle, err)
		}
	}
	if length >= 0 {
		return struct {
			io.Reader
			io.Closer
		}{io.LimitReader(f, length), f}, fi.Size(), nil
	}
	return f, fi.Size(), nil
}
