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
	"io/fs"
	"os"
	"runtime"
	"time"
)

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
