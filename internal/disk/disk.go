// Package disk holds what an offloaded file needs besides its format
// (package jsonl): its name ([Name], [ParseName]), a safe folder to write
// it in ([CheckDir], [PrepareDir]), the hidden temporary file it is written
// to and renamed from ([Create], [TempName]), the flock(2) calls by which a
// writer and a janitor tell a live write from the leftover of a dead
// process ([Lock], [Unlinked], [LockLeftover]; see docs/cleanup.md), and
// the expiry a complete file records ([RecordExpiry], [ExpiryOf]).
package disk

import (
	"errors"
	"time"
)

// TimestampLayout is the layout of a header's timestamp: RFC 3339, UTC,
// milliseconds.
const TimestampLayout = "2006-01-02T15:04:05.000Z07:00"

// SkewMargin is how much longer than the TTL a sweep keeps an object of a
// bucket, for the clocks of the machines that share it. A folder, swept by
// the clock of its one machine, has no margin.
const SkewMargin = time.Minute

var (
	// ErrInvalidPrefix: a prefix longer than 64 bytes, starting with a dot,
	// or with a byte outside [A-Za-z0-9_.-] (ValidatePrefix, Create).
	ErrInvalidPrefix = errors.New("jsonl: invalid file name prefix")
	// ErrUnsafeDir: an output folder that another user could replace, or
	// replace files in (CheckDir, Create), wrapped with the reason.
	ErrUnsafeDir = errors.New("jsonl: unsafe output folder")
	// ErrBusy is returned by Lock without wait when another open file
	// description holds the lock: the file's writer is alive.
	ErrBusy = errors.New("tempname: locked by another")
	// ErrNoLock is wrapped by the error of Lock where the system or the
	// file system has no locks: only age can tell.
	ErrNoLock = errors.New("tempname: no lock on this file system")
)
