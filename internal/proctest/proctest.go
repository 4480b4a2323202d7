//go:build linux

// Package proctest lets tests watch the processes a program under test
// starts: its children, their memory, and whether it left any behind when
// it exited. It reads /proc, so it is for Linux.
package proctest

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Proc identifies a process: its pid and its start time, which tells it
// from a later process given the same pid.
type Proc struct {
	PID   int
	Start string
}

// stat returns the fields of /proc/pid/stat from the third, the state, on:
// the second, comm, may hold spaces and parentheses.
func stat(pid int) ([]string, error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return nil, err
	}
	i := strings.LastIndexByte(string(b), ')')
	if f := strings.Fields(string(b[i+1:])); i >= 0 && len(f) >= 20 {
		return f, nil
	}
	return nil, errors.New("malformed /proc/pid/stat")
}

// procState returns the state, parent and start time of process pid.
func procState(pid int) (state byte, ppid int, start string, err error) {
	f, err := stat(pid)
	if err != nil {
		return 0, 0, "", err
	}
	ppid, err = strconv.Atoi(f[1])
	return f[0][0], ppid, f[19], err
}

// CPU returns the processor time process pid has used (user and system),
// and that of its children it has waited for: unlike the time on the wall,
// what a bounded process uses does not grow when other processes load the
// machine.
func CPU(pid int) (self, children time.Duration, err error) {
	f, err := stat(pid)
	if err != nil {
		return 0, 0, err
	}
	var ticks [4]int64 // utime, stime, cutime, cstime: fields 14 to 17
	for j := range ticks {
		if ticks[j], err = strconv.ParseInt(f[11+j], 10, 64); err != nil {
			return 0, 0, err
		}
	}
	// The unit is USER_HZ, 100 on every Linux architecture.
	const tick = time.Second / 100
	return time.Duration(ticks[0]+ticks[1]) * tick, time.Duration(ticks[2]+ticks[3]) * tick, nil
}

// Children returns the living (not zombie) child processes of pid.
func Children(pid int) []Proc {
	ents, _ := os.ReadDir("/proc")
	var ps []Proc
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if state, ppid, start, err := procState(p); err == nil && ppid == pid && state != 'Z' {
			ps = append(ps, Proc{p, start})
		}
	}
	return ps
}

// WaitChildren waits until pid has n children, at most limit, and returns
// them; it fails the test if they do not come.
func WaitChildren(t testing.TB, pid, n int, limit time.Duration) []Proc {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		ps := Children(pid)
		if len(ps) == n {
			return ps
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d child processes after %v, want %d", len(ps), limit, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Status returns a size in kB from /proc/pid/status (VmRSS:, VmHWM:), in
// bytes; 0 if the process is gone.
func Status(pid int, field string) int64 {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, field); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// AdoptOrphans makes the test process the parent of the processes its
// children leave behind (PR_SET_CHILD_SUBREAPER), until the test ends, so
// that CheckGone sees them even once they have died.
func AdoptOrphans(t testing.TB) {
	t.Helper()
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		t.Fatalf("prctl(PR_SET_CHILD_SUBREAPER): %v", e)
	}
	t.Cleanup(func() { syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 0, 0) })
}

const prSetChildSubreaper = 36 // linux/prctl.h

// CheckGone fails the test if a process of ps is still there once the
// program that started them (who) has exited: a process the program ended
// itself has been waited for (reaped) by it, and no longer exists; one it
// left behind, dying or not, has become a child of the test (see
// AdoptOrphans), which kills and reaps it.
func CheckGone(t testing.TB, who string, ps []Proc) {
	t.Helper()
	for _, p := range ps {
		state, ppid, start, err := procState(p.PID)
		if err != nil || start != p.Start {
			continue
		}
		t.Errorf("process %d was left behind by the %s (state %c)", p.PID, who, state)
		if ppid == os.Getpid() {
			syscall.Kill(p.PID, syscall.SIGKILL)
			var ws syscall.WaitStatus
			syscall.Wait4(p.PID, &ws, 0, nil)
		}
	}
}
