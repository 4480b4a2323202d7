// Package expiry records, with a complete offloaded file in a folder, when
// it expires, and reads it back: for the offloader that writes the file,
// and the janitor and the store that judge it.
//
// The expiry is the file's modification time, and a file carries one only
// if its mode is [Mode], read-only for its owner: the mode that Record gives
// it after setting the time, and that no file gets by being written (the
// files of package jsonl are created 0600). A file without the mark (one
// written before expiries were recorded, or whose mark was lost) has
// none, and is judged by the time of its name, as before.
package expiry

import (
	"context"
	"io/fs"
	"os"
	"runtime"
	"time"
)

// Defaults of the specification, which package cleanup documents on its
// Options fields and packages lro and lro/store share.
const (
	// DefaultTTL is how long an offloaded file lives: 3600 seconds.
	DefaultTTL = time.Hour
	// DefaultInterval is the time between two background sweeps: the
	// specification's "every hour" schedule.
	DefaultInterval = time.Hour
)

// SkewMargin is how much longer than the TTL a sweep keeps an object of a
// bucket: the clocks of the machines that write, read and sweep a shared
// bucket may differ by up to this much without a sweep deleting an object
// that any of them still holds to be within its TTL. A folder is swept by
// the clock of its one machine, without a margin.
const SkewMargin = time.Minute

// Bucket is what the janitor of package cleanup needs of a bucket of
// objects, such as one of gocloud.dev/blob (S3, GCS, Azure, ...) adapted by
// package lro/store/blobstore, whose store.Bucket includes it.
type Bucket interface {
	// List calls fn with the key of every object whose key starts with
	// prefix and has no '/' after it, in any order, until fn returns an
	// error, which List returns.
	List(ctx context.Context, prefix string, fn func(key string) error) error
	// Delete deletes the object of key. It returns an error wrapping
	// [fs.ErrNotExist] if there is none.
	Delete(ctx context.Context, key string) error
	// Expiry returns the expiry recorded with the object of key when it
	// was written (package lro/store records it), or the zero time for an
	// object without one. It returns an error wrapping [fs.ErrNotExist] if
	// there is no such object.
	Expiry(ctx context.Context, key string) (time.Time, error)
}

// Mode is the mode of a file whose modification time is its expiry.
const Mode fs.FileMode = 0o400

// Record sets the expiry of the complete file at path to t: its
// modification time, then its mode to Mode. On Windows, where a read-only
// file cannot be removed, it records nothing and returns nil. It returns
// the errors of os.Chtimes and os.Chmod.
func Record(path string, t time.Time) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	if err := os.Chtimes(path, time.Time{}, t); err != nil {
		return err
	}
	return os.Chmod(path, Mode)
}

// Of returns the expiry recorded with the file of fi, and whether it has
// one.
func Of(fi fs.FileInfo) (time.Time, bool) {
	if !fi.Mode().IsRegular() || fi.Mode().Perm() != Mode {
		return time.Time{}, false
	}
	return fi.ModTime(), true
}
