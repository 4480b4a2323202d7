package extract

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// limitMemory lets the worker map at most n bytes of data memory more than
// it has now: RLIMIT_DATA counts the private writable mappings the Go
// runtime makes for its heap and stacks (since Linux 4.7), and not the
// address space it only reserves, which RLIMIT_AS would count. Setting it
// relative to the worker's current size leaves room for what the runtime
// (or the race detector, in a test binary) mapped at start. Past the limit
// the runtime fails to allocate and the worker dies with "out of memory".
func limitMemory(n int64) error {
	data, err := vmData()
	if err != nil {
		return err
	}
	limit := uint64(data) + uint64(n)
	return syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: limit, Max: limit})
}

// vmData returns the process's data size, VmData in /proc/self/status.
func vmData() (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmData:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmData in /proc/self/status")
}

// sysProcAttr makes the worker die with the server.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// executable is the program to start as a worker: the very file this
// process runs, even if it was since replaced or deleted on disk.
func executable() (string, error) { return "/proc/self/exe", nil }
