package extract

import (
	"fmt"
	"os"
	"syscall"
)

// limitMemory lets the worker take at most n bytes of address space more
// than it has now (RLIMIT_AS: the kernel does not count the Go heap, mapped
// into reserved space, as RLIMIT_DATA).
func limitMemory(n int64) error {
	statm, err := os.ReadFile("/proc/self/statm") // the first field is VmSize, in pages
	if err != nil {
		return err
	}
	var pages int64
	if _, err := fmt.Sscan(string(statm), &pages); err != nil {
		return fmt.Errorf("reading /proc/self/statm: %w", err)
	}
	limit := addressLimit(pages*int64(os.Getpagesize()), n)
	return syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: limit, Max: limit})
}

// sysProcAttr makes the worker die with the server.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// executable is the program to start as a worker: the very file this
// process runs, even if it was since replaced on disk.
func executable() (string, error) { return "/proc/self/exe", nil }
