//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd

package disk

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// Locks reports that this system has flock(2).
const Locks = true

// openNonblock keeps an open from blocking on a FIFO put in a file's place.
const openNonblock = syscall.O_NONBLOCK

// Lock takes an exclusive flock(2) lock on f, retrying when a signal
// interrupts it. With wait it waits for the lock; without, it returns
// [ErrBusy] when another open file description holds it. A file system that
// refuses locks gives an error wrapping [ErrNoLock]; any other error is
// f's own (a closed file, say).
func Lock(f *os.File, wait bool) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	var lockErr error
	if err := rc.Control(func(fd uintptr) {
		for lockErr = syscall.EINTR; errors.Is(lockErr, syscall.EINTR); {
			lockErr = syscall.Flock(int(fd), how)
		}
	}); err != nil {
		return err
	}
	switch {
	case lockErr == nil:
		return nil
	case errors.Is(lockErr, syscall.EWOULDBLOCK):
		return ErrBusy
	}
	return errors.Join(ErrNoLock, lockErr)
}

// Unlinked reports whether the file open as f has no name left: someone
// removed it after it was opened. fi is f's, as f.Stat returns it.
func Unlinked(f *os.File) (fi fs.FileInfo, unlinked bool, err error) {
	fi, err = f.Stat()
	if err != nil {
		return nil, false, err
	}
	return fi, Links(fi) == 0, nil
}
