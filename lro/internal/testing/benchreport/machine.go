package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
)

// machine describes where the figures were measured.
type machine struct {
	CPU       string     // CPU model name
	Cores     int        // logical CPUs
	OS        string     // operating system, distribution and kernel release, where known
	MemBytes  int64      // physical memory, 0 when unknown
	Go        string     // `go version` of the go tool the benchmarks ran with
	JQ        string     // `jq --version`
	LoadStart [3]float64 // load averages when the run started
	LoadEnd   [3]float64 // and when it ended
}

// readMachine describes this machine, the go tool and jq.
func readMachine(ctx context.Context) (machine, error) {
	m := machine{CPU: runtime.GOARCH, Cores: runtime.NumCPU(), OS: runtime.GOOS, LoadStart: loadAvg()}
	if cpu := fileField("/proc/cpuinfo", "model name", ":"); cpu != "" {
		m.CPU = cpu + " (" + runtime.GOARCH + ")"
	}
	if name := fileField("/etc/os-release", "PRETTY_NAME", "="); name != "" {
		m.OS += ", " + strings.Trim(name, `"`)
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.OS += ", kernel " + strings.TrimSpace(string(b))
	}
	m.MemBytes, _ = kB(fileField("/proc/meminfo", "MemTotal", ":"))
	out, err := exec.CommandContext(ctx, "go", "version").Output()
	if err != nil {
		return m, fmt.Errorf("go version: %w", err)
	}
	m.Go = strings.TrimSpace(string(out))
	if out, err = exec.CommandContext(ctx, "jq", "--version").Output(); err != nil {
		return m, fmt.Errorf("jq --version: %w", err)
	}
	m.JQ = strings.TrimSpace(string(out))
	return m, nil
}

// fileField returns the value after sep on the first line of the file at
// path whose key (before sep, spaces trimmed) is key, or "".
func fileField(path, key, sep string) string {
	b, _ := os.ReadFile(path)
	for line := range strings.Lines(string(b)) {
		if k, v, ok := strings.Cut(line, sep); ok && strings.TrimSpace(k) == key {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// kB parses a size of /proc, "1234 kB", into bytes.
func kB(s string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSuffix(s, " kB"), 10, 64)
	return n << 10, err
}

// loadAvg returns the 1, 5 and 15 minute load averages, zero where unknown.
func loadAvg() (l [3]float64) {
	b, _ := os.ReadFile("/proc/loadavg")
	fmt.Sscan(string(b), &l[0], &l[1], &l[2])
	return l
}
