//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd

package cleanup

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// tempLocks reports that this system has flock(2), so that the lock of a
// temporary file tells whether its Writer is alive; see [lockTemp].
const tempLocks = true

// lockTemp opens the temporary file name of root, which an lstat found to be
// the regular file fi, and tries to take its exclusive flock(2) lock without
// waiting: a live [jsonl.Writer] holds that lock from just after it creates
// the file until it has renamed or removed it.
//
// When it gets the lock, lockTemp checks that name still is the file it
// opened and returns that file, still locked, with lockTaken: the caller
// removes the file by name and then closes it. Otherwise it returns no file
// and lockBusy (the Writer is alive), lockGone (the file was removed or
// replaced meanwhile), lockNone (the file system refuses locks, so only age
// can tell) or, with the error of the open, lockFailed.
//
// The open never blocks (O_NONBLOCK: a FIFO put there meanwhile would) and
// acts on no file but fi: os.Root follows a symlink put there meanwhile only
// within the folder, and the file opened must be fi itself.
func lockTemp(root *os.Root, name string, fi fs.FileInfo) (*os.File, lockState, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
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
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, lockFailed, err
	}
	var lockErr error
	if err := rc.Control(func(fd uintptr) {
		for {
			lockErr = syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB)
			if !errors.Is(lockErr, syscall.EINTR) {
				return
			}
		}
	}); err != nil {
		return nil, lockFailed, err
	}
	switch {
	case errors.Is(lockErr, syscall.EWOULDBLOCK):
		return nil, lockBusy, nil
	case lockErr != nil:
		return nil, lockNone, nil
	}
	// The name may have been removed (by another janitor that held the lock
	// first) or replaced since the open.
	if nfi, err := root.Lstat(name); err != nil || !os.SameFile(fi, nfi) {
		return nil, lockGone, nil
	}
	keep = true
	return f, lockTaken, nil
}
