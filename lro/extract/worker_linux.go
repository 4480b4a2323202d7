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
// than it has now (RLIMIT_AS). The Go runtime reserves address space
// (PROT_NONE) before it maps memory into it, and a mapping over a
// reservation is not an expansion for the kernel: RLIMIT_DATA, which does
// not count reservations, was measured to let a 2 GB string through a
// 129 MiB limit. RLIMIT_AS counts the reservation itself. What the worker
// reserved at start (about 1.4 GiB, against 10 MiB resident) is its base:
// the runtime maps into it only its own metadata, which grows with the heap.
// Past the limit the runtime fails to allocate and the worker dies ("out
// of memory").
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
