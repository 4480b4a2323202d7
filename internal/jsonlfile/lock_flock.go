//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd

package jsonlfile

import (
	"errors"
	"os"
	"syscall"
)

// locks reports that this system has flock(2): a Writer holds an exclusive
// lock on its temporary file until Commit or Abort.
const locks = true

// lockTemp takes an exclusive flock(2) lock on f, a temporary file Create has
// just made, waiting for a janitor that holds it (a janitor holds it only to
// remove the file). It reports whether the file was removed before the lock
// was taken, in which case the caller must give it up and start again under
// a new name.
//
// A lock that cannot be taken at all (a file system without locks, such as
// some network ones) is no reason to fail a write: the file is then left
// unlocked, and a janitor that cannot lock it either keeps it for a long
// grace period instead (see package cleanup).
func lockTemp(f *os.File) (removed bool, err error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return false, err
	}
	var lockErr error
	err = rc.Control(func(fd uintptr) {
		for {
			lockErr = syscall.Flock(int(fd), syscall.LOCK_EX)
			if !errors.Is(lockErr, syscall.EINTR) {
				return
			}
		}
	})
	if err != nil {
		return false, err
	}
	// A lock error leaves the file unlocked; see above. Whether it is still
	// linked matters either way.
	fi, err := f.Stat()
	if err != nil {
		return false, err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Nlink == 0, nil
}
