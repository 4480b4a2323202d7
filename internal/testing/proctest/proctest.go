//go:build linux

// Package proctest lets tests watch the processes a program under test
// starts: its children, and whether it left any behind when it exited. It reads /proc, so it is for Linux.
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

// procState returns the state, parent and start time of process pid, read
// from /proc/pid/stat after the second field, comm, which may hold spaces
// and parentheses.
func procState(pid int) (state byte, ppid int, start string, err error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, 0, "", err
	}
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	if i < 0 || len(f) < 20 {
		return 0, 0, "", errors.New("malformed /proc/pid/stat")
	}
	ppid, err = strconv.Atoi(f[1])
	return f[0][0], ppid, f[19], err
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
