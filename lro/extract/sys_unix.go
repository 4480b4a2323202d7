//go:build unix

package extract

import (
	"errors"
	"io/fs"
	"os/exec"
	"syscall"
	"time"
)

// limitWorker sets the worker's processor time (see cpuLimit: the kernel
// kills it then, should the server not have) and, where the system enforces
// it, its memory (see limitMemory).
func limitWorker(l limits) error {
	cpu := uint64(cpuLimit(l.Timeout).Seconds())
	if err := syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: cpu, Max: cpu}); err != nil {
		return err
	}
	return limitMemory(l.workerMemory())
}

// cpuKilled reports whether the kernel killed the worker at its processor
// time limit: it died of a signal having used at least half of that time
// (the time reported falls short of what the kernel counts). A worker
// killed early from outside has not.
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

// openFlags make opening a FIFO return at once instead of waiting for a
// writer. O_NOFOLLOW refuses a link only where os.Root honours it: it
// follows a link that stays in the folder (Go 1.26), which openFile
// refuses by comparing the file opened with the file checked.
const openFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// links returns the number of hard links to the file fi describes.
func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
