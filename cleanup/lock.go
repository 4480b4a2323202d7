package cleanup

import (
	"errors"
	"io/fs"
	"os"

	"github.com/zircote/lro-go/internal/tempname"
)

// tempLocks reports that this system has flock(2): the lock of a temporary
// file tells whether its Writer is alive. Without, its age alone decides.
const tempLocks = tempname.Locks

// lockTemp opens the temporary file name of root, which an lstat found to be
// the regular file fi, and tries to take its exclusive flock(2) lock without
// waiting: a live jsonl.Writer holds it until it has renamed or removed the
// file. With lockTaken, it returns the file, still locked and still at
// name, for the caller to remove by name and then close; otherwise no file
// (and with lockFailed, the error). The open never blocks (on a FIFO put
// there meanwhile) and the file opened must be fi itself.
func lockTemp(root *os.Root, name string, fi fs.FileInfo) (*os.File, lockState, error) {
	if !tempLocks {
		return nil, lockNone, nil
	}
	f, err := tempname.OpenForLock(root, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, lockGone, nil
	}
	if err != nil {
		return nil, lockFailed, err
	}
	keep := false
	defer func() {
		if !keep {
			f.Close()
		}
	}()
	ofi, err := f.Stat()
	if err != nil {
		return nil, lockFailed, err
	}
	if !os.SameFile(fi, ofi) {
		return nil, lockGone, nil
	}
	switch err := tempname.Lock(f, false); {
	case errors.Is(err, tempname.ErrBusy):
		return nil, lockBusy, nil
	case errors.Is(err, tempname.ErrNoLock):
		return nil, lockNone, nil
	case err != nil:
		return nil, lockFailed, err
	}
	// Another janitor may have removed the name, or someone replaced it.
	if nfi, err := root.Lstat(name); err != nil || !os.SameFile(fi, nfi) {
		return nil, lockGone, nil
	}
	keep = true
	return f, lockTaken, nil
}
