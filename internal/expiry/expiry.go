// Package expiry records, with a complete offloaded file in a folder, when
// it expires, and reads it back: the file's modification time, if its mode
// is [Mode], which no file gets by being written; a file without that mark
// is judged by the time of its name.
package expiry

import (
	"io/fs"
	"time"
)

// Defaults of the specification, shared by cleanup, lro and lro/store:
// how long an offloaded file lives, and the time between two sweeps.
const (
	DefaultTTL      = time.Hour
	DefaultInterval = time.Hour
)

// SkewMargin is how much longer than the TTL a sweep keeps an object of a
// bucket, for the clocks of the machines that share it. A folder, swept by
// the clock of its one machine, has no margin.
const SkewMargin = time.Minute

// Mode is the mode of a file whose modification time is its expiry.
const Mode fs.FileMode = 0o400

// Of returns the expiry recorded with the file of fi, and whether it has
// one.
func Of(fi fs.FileInfo) (time.Time, bool) {
	if !fi.Mode().IsRegular() || fi.Mode().Perm() != Mode {
		return time.Time{}, false
	}
	return fi.ModTime(), true
}
