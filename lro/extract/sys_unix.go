//go:build unix

package extract

import (
	"errors"
	"io/fs"
	"os/exec"
	"syscall"
	"time"
)

// limitWorker sets the worker's processor time and, where the system
// enforces it, its memory.
func limitWorker(l limits) error {
	cpu := uint64(cpuLimit(l.Timeout).Seconds())
	if err := syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: cpu, Max: cpu}); err != nil {
		return err
	}
	return limitMemory(l.workerMemory())
}

// cpuKilled reports whether the kernel killed the worker at its processor
// time limit: it died of a signal having used at least half of that time.
func cpuKilled(err error, limit time.Duration) bool {
	var ee *exec.ExitError
	return signaled(err) && errors.As(err, &ee) && ee.UserTime()+ee.SystemTime() >= limit/2
}

// signaled reports whether the worker died of a signal.
func signaled(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled()
}

// openFlags make opening a FIFO return at once; O_NOFOLLOW refuses a link
// where os.Root honours it (openFile checks the rest).
const openFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// links returns the number of hard links to the file fi describes.
func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
