package disk

import (
	"io/fs"
	"time"
)

// ExpiryMode is the mode of a file whose modification time is its expiry,
// which no file gets by being written; a file without that mark is judged
// by the time of its name.
const ExpiryMode fs.FileMode = 0o400

// ExpiryOf returns the expiry recorded with the file of fi, and whether it
// has one.
func ExpiryOf(fi fs.FileInfo) (time.Time, bool) {
	if !fi.Mode().IsRegular() || fi.Mode().Perm() != ExpiryMode {
		return time.Time{}, false
	}
	return fi.ModTime(), true
}
