//go:build unix

package extract

import "syscall"

// limitWorker sets the worker's processor time and, where the system
// enforces it, its memory.
func limitWorker(l limits) error {
	cpu := uint64(cpuLimit(l.Timeout).Seconds())
	if err := syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: cpu, Max: cpu}); err != nil {
		return err
	}
	return limitMemory(l.workerMemory())
}
