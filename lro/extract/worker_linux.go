package extract

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// limitMemory lets the worker hold at most n bytes of data memory more
// than it holds now. RLIMIT_DATA counts the private writable mappings the
// Go runtime makes for its heap and stacks (since Linux 4.7), and not the
// address space it only reserves, which RLIMIT_AS would count (about
// 1.4 GiB for a worker at start, against 96 MiB of data and 10 MiB
// resident). Part of the data mapped at start is not resident yet (the
// first heap arena): the limit is what is resident, plus n, so that this
// part counts against n; never below what is mapped, which the runtime
// may use anyway. Past the limit the runtime fails to allocate and the
// worker dies ("out of memory").
func limitMemory(n int64) error {
	data, err := statusBytes("VmData:")
	if err != nil {
		return err
	}
	anon, err := statusBytes("RssAnon:")
	if err != nil {
		return err
	}
	limit := uint64(max(data, anon+n))
	if raceEnabled {
		// The race detector's shadow is data not yet resident, which
		// it fills as the heap grows: count from what is mapped.
		limit = uint64(data + n)
	}
	return syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: limit, Max: limit})
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
