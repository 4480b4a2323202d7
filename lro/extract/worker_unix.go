//go:build unix

package extract

import (
	"errors"
	"os/exec"
	"syscall"
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
	return limitMemory(l.MaxMemoryBytes)
}

// cpuKilled reports whether the worker was killed by the kernel, as it is
// at its processor time limit.
func cpuKilled(err error) bool {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		return false
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	return ok && ws.Signaled() && (ws.Signal() == syscall.SIGKILL || ws.Signal() == syscall.SIGXCPU)
}
