package tempname

import (
	"errors"
	"os"
)

// The errors of [Lock].
var (
	// ErrBusy is returned by Lock without wait when another open file
	// description holds the lock: the file's Writer is alive.
	ErrBusy = errors.New("tempname: locked by another")
	// ErrNoLock is wrapped by the error of Lock where the system or the
	// file system has no locks: only age can tell.
	ErrNoLock = errors.New("tempname: no lock on this file system")
)

// OpenForLock opens the file name of root read-only to lock it, without
// following a symlink out of root and without blocking on a FIFO.
func OpenForLock(root *os.Root, name string) (*os.File, error) {
	return root.OpenFile(name, os.O_RDONLY|openNonblock, 0)
}
