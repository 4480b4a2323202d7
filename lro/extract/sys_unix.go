//go:build unix

package extract

import (
	"io/fs"
	"syscall"
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
