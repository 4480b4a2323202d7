package extract

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// limitMemory lets the worker take at most n bytes of address space more
// than it has now (RLIMIT_AS). RLIMIT_DATA would not do: the Go runtime
// maps its heap into address space it reserved before, which the kernel
// does not count as data; RLIMIT_AS counts the reservation itself. Past the
// limit the runtime fails to allocate and the worker dies ("out of
// memory").
func limitMemory(n int64) error {
	size, err := statusBytes("VmSize:")
	if err != nil {
		return err
	}
	limit := uint64(size + n)
	return syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: limit, Max: limit})
}

// statusBytes returns a size of the process from /proc/self/status.
func statusBytes(field string) (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), field); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no %s in /proc/self/status", field)
}

// sysProcAttr makes the worker die with the server.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// executable is the program to start as a worker: the very file this
// process runs, even if it was since replaced or deleted on disk.
func executable() (string, error) { return "/proc/self/exe", nil }
