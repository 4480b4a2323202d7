package main

import (
	"bufio"
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
	OS        string     // operating system and distribution
	Kernel    string     // kernel release, where known
	MemBytes  int64      // physical memory, 0 when unknown
	Go        string     // `go version` of the go tool the benchmarks ran with
	JQ        string     // `jq --version`, empty when there is no jq
	LoadStart [3]float64 // load averages when the run started
	LoadEnd   [3]float64 // and when it ended
}

// noisy reports whether the load average was high while measuring: above
// half the logical CPUs at the start or the end of the run.
func (m machine) noisy() bool {
	return max(m.LoadStart[0], m.LoadEnd[0]) > float64(m.Cores)/2
}

// readMachine describes this machine and the go tool goTool.
func readMachine(ctx context.Context, goTool, jq string) (machine, error) {
	m := machine{CPU: cpuModel(), Cores: runtime.NumCPU(), OS: osName(), MemBytes: memTotal()}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	out, err := exec.CommandContext(ctx, goTool, "version").Output()
	if err != nil {
		return m, fmt.Errorf("go version: %w", err)
	}
	m.Go = strings.TrimSpace(string(out))
	if jq != "" {
		if out, err := exec.CommandContext(ctx, jq, "--version").Output(); err == nil {
			m.JQ = strings.TrimSpace(string(out))
		}
	}
	m.LoadStart = loadAvg()
	return m, nil
}

// cpuModel returns the CPU's model name from /proc/cpuinfo, or the
// architecture when it cannot be read.
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v) + " (" + runtime.GOARCH + ")"
		}
	}
	return runtime.GOARCH
}

// osName returns the distribution's pretty name with the GOOS, or the GOOS.
func osName() string {
	b, err := os.ReadFile("/etc/os-release")
	if err != nil {
		return runtime.GOOS
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok {
			return runtime.GOOS + ", " + strings.Trim(v, `"`)
		}
	}
	return runtime.GOOS
}

// memTotal returns the physical memory from /proc/meminfo, or 0.
func memTotal() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// loadAvg returns the 1, 5 and 15 minute load averages, zero where unknown.
func loadAvg() [3]float64 {
	var l [3]float64
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return l
	}
	f := strings.Fields(string(b))
	for i := 0; i < 3 && i < len(f); i++ {
		l[i], _ = strconv.ParseFloat(f[i], 64)
	}
	return l
}
