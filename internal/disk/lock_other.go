//go:build !(darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd)

package disk

import (
	"io/fs"
	"os"
)

// Locks reports that this system has flock(2). Here it has not: only a
// temporary file's age tells whether its Writer is alive.
const Locks = false

// openNonblock is no flag where there is no flock(2).
const openNonblock = 0

// Lock returns [ErrNoLock]: there is no flock(2) here.
func Lock(*os.File, bool) error { return ErrNoLock }

// Unlinked reports false, and no FileInfo: without flock(2), nothing asks.
func Unlinked(*os.File) (fs.FileInfo, bool, error) { return nil, false, nil }
