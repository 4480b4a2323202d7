//go:build unix

package extract

import (
	"errors"
	"os/exec"
	"syscall"
	"time"
)

// limitWorker sets the worker's resource limits before it evaluates
// anything: its processor time (a second more than the time limit, rounded
// up to whole seconds: the kernel kills it then, should the server not
// have) and, where the system enforces it, its memory (see limitMemory).
func limitWorker(l limits) error {
	cpu := uint64(cpuLimit(l.Timeout).Seconds())
	if err := syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: cpu, Max: cpu}); err != nil {
		return err
	}
	return limitMemory(l.workerMemory())
}

// cpuKilled reports whether the kernel killed the worker at its processor
// time limit: it died of a signal having used a good part of that time (the
// time a process is reported to have used falls short of what the kernel
// counts against the limit, by 0.4 s measured). A worker killed from
// outside (the system short of memory, a signal of the user's) early has
// not.
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
