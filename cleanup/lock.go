package cleanup

import (
	"errors"
	"io/fs"
	"os"

	"github.com/zircote/lro-go/internal/tempname"
)

// tempLocks reports that this system has flock(2), so that the lock of a
// temporary file tells whether its Writer is alive; see [lockTemp]. Without
// it, a temporary file's age alone decides, with [unlockedGrace] added to the
// TTL.
const tempLocks = tempname.Locks

// lockTemp opens the temporary file name of root, which an lstat found to be
// the regular file fi, and tries to take its exclusive flock(2) lock without
// waiting: a live [github.com/zircote/lro-go/jsonl.Writer] holds that lock from just after it creates
// the file until it has renamed or removed it.
//
// When it gets the lock, lockTemp checks that name still is the file it
// opened and returns that file, still locked, with lockTaken: the caller
// removes the file by name and then closes it. Otherwise it returns no file
// and lockBusy (the Writer is alive), lockGone (the file was removed or
// replaced meanwhile), lockNone (the file system refuses locks, or the
// system has no flock(2), so only age can tell) or, with the error of the
// open, lockFailed.
//
// The open never blocks (a FIFO put there meanwhile would) and acts on no
// file but fi: os.Root follows a symlink put there meanwhile only within
// the folder, and the file opened must be fi itself.
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
	// The name may have been removed (by another janitor that held the lock
	// first) or replaced since the open.
	if nfi, err := root.Lstat(name); err != nil || !os.SameFile(fi, nfi) {
		return nil, lockGone, nil
	}
	keep = true
	return f, lockTaken, nil
}
