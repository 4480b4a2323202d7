package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Bounds of TestSignalStopsCalls. The calls could run for signalTimeout;
// the proxy must be gone within signalExit of the signal, ten times less,
// so that a proxy that waits for its calls cannot pass by luck, and one
// that stops them has seconds to spare on a loaded machine (it needs a kill
// and a few writes, and the upstream's exit).
const (
	signalTimeout = 30 * time.Second
	signalExit    = 3 * time.Second
	signalCalls   = 4 // extract.DefaultWorkers: all of them busy
)

// TestSignalStopsCalls starts the proxy in front of the memory server over
// stdio, with calls of its own lro_extract that do not end (def f: f; f)
// and a long time limit, sends it SIGTERM or SIGINT once their workers run,
// and checks that it exits at once, with status 0, leaving neither a worker
// nor the upstream behind.
func TestSignalStopsCalls(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to find the workers")
	}
	proxyBin, memoryBin := binary(t, "."), binary(t, "../memory")
	adoptOrphans(t)
	for _, sig := range []os.Signal{syscall.SIGTERM, os.Interrupt} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			cmd := exec.Command(proxyBin, "-output-dir", dir, "-extract-timeout", signalTimeout.String(),
				"--", memoryBin, "-output-dir", t.TempDir())
			log := &lockedBuffer{}
			cmd.Stderr = log
			inR, inW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			outR, outW, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer inW.Close()
			defer outR.Close()
			cmd.Stdin, cmd.Stdout = inR, outW
			// The test waits for the process itself (a CommandTransport
			// would), to see when it exits.
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			inR.Close()
			outW.Close()
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			defer func() {
				cmd.Process.Kill()
				if t.Failed() {
					t.Logf("proxy stderr:\n%s", log.String())
				}
			}()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "signal", Version: "v0"}, nil).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
			if err != nil {
				t.Fatalf("connect: %v\n%s", err, log.String())
			}
			defer cs.Close()

			d := mustOffload(t, callTool(t, cs, "recall_memories", map[string]any{"query": "semantic", "limit": 300, "detail": "full"}), dir)
			ended := make(chan error, signalCalls)
			for range signalCalls {
				go func() {
					_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "lro_extract",
						Arguments: map[string]any{"file_path": d.FilePath, "query": "def f: f; f"}})
					ended <- err
				}()
			}
			// The upstream and the workers.
			procs := waitChildren(t, cmd.Process.Pid, 1+signalCalls, signalTimeout/2)

			start := time.Now()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-exited:
				t.Logf("exited (%v) %v after %v", err, time.Since(start), sig)
				if err != nil {
					t.Errorf("exit: %v; want status 0", err)
				}
			case <-time.After(signalExit):
				cmd.Process.Signal(syscall.SIGQUIT) // its goroutines, to its stderr
				select {
				case <-exited:
				case <-time.After(signalTimeout):
					cmd.Process.Kill()
				}
				t.Fatalf("the proxy did not exit within %v of %v", signalExit, sig)
			}
			checkGone(t, procs)
			for range signalCalls {
				select {
				case <-ended:
				case <-time.After(signalExit):
					t.Fatal("a call still waits for the proxy that exited")
				}
			}
		})
	}
}

// proc identifies a process: its pid and its start time, which tells it
// from a later process given the same pid.
type proc struct {
	pid   int
	start string
}

// stat returns the state, parent and start time of process pid from
// /proc/pid/stat.
func stat(pid int) (state byte, ppid int, start string, err error) {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, 0, "", err
	}
	// pid (comm) state ppid ...: comm may hold spaces and parentheses.
	i := strings.LastIndexByte(string(b), ')')
	f := strings.Fields(string(b[i+1:]))
	if i < 0 || len(f) < 20 {
		return 0, 0, "", errors.New("malformed /proc/pid/stat")
	}
	ppid, err = strconv.Atoi(f[1])
	return f[0][0], ppid, f[19], err
}

// children returns the living child processes of pid.
func children(pid int) []proc {
	ents, _ := os.ReadDir("/proc")
	var ps []proc
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if state, ppid, start, err := stat(p); err == nil && ppid == pid && state != 'Z' {
			ps = append(ps, proc{p, start})
		}
	}
	return ps
}

// waitChildren waits until pid has n children and returns them.
func waitChildren(t *testing.T, pid, n int, limit time.Duration) []proc {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		ps := children(pid)
		if len(ps) == n {
			return ps
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d child processes after %v, want %d", len(ps), limit, n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// adoptOrphans makes this process the parent of the processes its
// children leave behind (PR_SET_CHILD_SUBREAPER), until the test ends, so
// that checkGone sees them even once they have died.
func adoptOrphans(t *testing.T) {
	t.Helper()
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); e != 0 {
		t.Skipf("prctl(PR_SET_CHILD_SUBREAPER): %v", e)
	}
	t.Cleanup(func() { syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 0, 0) })
}

const prSetChildSubreaper = 36 // linux/prctl.h

// checkGone fails the test if a process of ps is still there once the
// proxy has exited: a process the proxy ended itself has been waited for
// (reaped) by it, and no longer exists; one it left behind, dying or not,
// has become a child of this test (see adoptOrphans), which reaps it.
func checkGone(t *testing.T, ps []proc) {
	t.Helper()
	for _, p := range ps {
		state, ppid, start, err := stat(p.pid)
		if err != nil || start != p.start {
			continue
		}
		t.Errorf("process %d was left behind by the proxy (state %c)", p.pid, state)
		if ppid == os.Getpid() {
			syscall.Kill(p.pid, syscall.SIGKILL)
			var ws syscall.WaitStatus
			syscall.Wait4(p.pid, &ws, 0, nil)
		}
	}
}
