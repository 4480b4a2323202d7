package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro/descriptor"
)

// Bounds of TestSignalStopsCalls. The calls could run for signalTimeout;
// the server must be gone within signalExit of the signal, ten times less,
// so that a server that waits for its calls cannot pass by luck, and one
// that stops them has seconds to spare on a loaded machine (it needs a kill
// and a few writes).
const (
	signalTimeout = 30 * time.Second
	signalExit    = 3 * time.Second
	signalCalls   = 4 // extract.DefaultWorkers: all of them busy
)

// TestSignalStopsCalls starts the server with calls of lro_extract that do
// not end (def f: f; f) and a long time limit, sends it SIGTERM or SIGINT
// once their workers run, and checks that the server cancels the calls and
// exits at once, with status 0, having ended its workers.
func TestSignalStopsCalls(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to find the workers")
	}
	bin := buildBinary(t)
	adoptOrphans(t)
	for _, tc := range []struct {
		name         string
		http, bucket bool // serve HTTP; statelessly, with a bucket
		sig          os.Signal
	}{
		{"stdio SIGTERM", false, false, syscall.SIGTERM},
		{"stdio SIGINT", false, false, os.Interrupt},
		{"http SIGTERM", true, false, syscall.SIGTERM},
		{"stateless http SIGINT", true, true, os.Interrupt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := []string{"-extract", "-extract-timeout", signalTimeout.String()}
			if tc.bucket {
				args = append(args, "-storage", "file://"+filepath.ToSlash(dir))
			} else {
				args = append(args, "-output-dir", dir)
			}
			if tc.http {
				args = append(args, "-http", "127.0.0.1:0")
			}
			srv := startServer(t, exec.Command(bin, args...), tc.http)
			res := call(t, srv.cs, "recall_memories", map[string]any{"query": "semantic", "limit": 300, "detail": "full"})
			var d descriptor.OffloadResponse
			if err := json.Unmarshal([]byte(text(res)), &d); err != nil || !d.Offloaded {
				t.Fatalf("not offloaded: %s", text(res))
			}
			extract := map[string]any{"file_path": d.FilePath, "query": "def f: f; f"}
			if d.Handle != "" {
				extract = map[string]any{"handle": d.Handle, "query": "def f: f; f"}
			}
			ended := make(chan error, signalCalls)
			for range signalCalls {
				go func() {
					_, err := srv.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "lro_extract", Arguments: extract})
					ended <- err
				}()
			}
			if tc.http {
				// A connection with no request yet, such as an HTTP client
				// dials ahead and keeps idle, which Shutdown waits for.
				c, err := net.Dial("tcp", srv.addr)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
			}
			workers := waitWorkers(t, srv.cmd.Process.Pid, signalCalls, signalTimeout/2)

			start := time.Now()
			if err := srv.cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-srv.exited:
				t.Logf("exited (%v) %v after %v", err, time.Since(start), tc.sig)
				if err != nil {
					t.Errorf("exit: %v; want status 0", err)
				}
			case <-time.After(signalExit):
				srv.cmd.Process.Signal(syscall.SIGQUIT) // its goroutines, to its stderr
				select {
				case <-srv.exited:
				case <-time.After(signalTimeout):
					srv.cmd.Process.Kill()
				}
				t.Fatalf("the server did not exit within %v of %v", signalExit, tc.sig)
			}
			checkGone(t, workers)
			for range signalCalls {
				select {
				case <-ended:
				case <-time.After(signalExit):
					t.Fatal("a call still waits for the server that exited")
				}
			}
		})
	}
}

// server is the program started by startServer.
type server struct {
	cmd    *exec.Cmd
	cs     *mcp.ClientSession
	exited chan error // its exit, once
	addr   string     // host:port, with HTTP
	log    *lockedBuffer
}

// startServer starts cmd, a server over stdio or (httpMode) at
// -http 127.0.0.1:0, and connects a client to it. The test waits for the
// process itself (a CommandTransport would), so that it sees when the
// process exits.
func startServer(t *testing.T, cmd *exec.Cmd, httpMode bool) *server {
	t.Helper()
	s := &server{cmd: cmd, exited: make(chan error, 1), log: &lockedBuffer{}}
	var transport mcp.Transport
	serving := make(chan string, 1)
	if httpMode {
		stderr, err := cmd.StderrPipe()
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			sc := bufio.NewScanner(stderr)
			re := regexp.MustCompile(`msg="serving HTTP" mcp=(\S+)`)
			for sc.Scan() {
				s.log.Write(append(sc.Bytes(), '\n'))
				if m := re.FindStringSubmatch(sc.Text()); m != nil {
					serving <- m[1]
				}
			}
		}()
	} else {
		cmd.Stderr = s.log
		inR, inW, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		outR, outW, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdin, cmd.Stdout = inR, outW
		t.Cleanup(func() { inW.Close(); outR.Close() })
		defer inR.Close()
		defer outW.Close()
		transport = &mcp.IOTransport{Reader: outR, Writer: inW}
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		if t.Failed() {
			t.Logf("server stderr:\n%s", s.log.String())
		}
	})
	if httpMode {
		select {
		case u := <-serving:
			transport = &mcp.StreamableClientTransport{Endpoint: u}
			pu, err := url.Parse(u)
			if err != nil {
				t.Fatal(err)
			}
			s.addr = pu.Host
		case err := <-s.exited:
			t.Fatalf("the server exited: %v\n%s", err, s.log.String())
		case <-time.After(time.Minute):
			t.Fatalf("the server did not serve within a minute:\n%s", s.log.String())
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "signal", Version: "v0"}, nil).Connect(ctx, transport, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, s.log.String())
	}
	t.Cleanup(func() { cs.Close() })
	s.cs = cs
	return s
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

// waitWorkers waits until pid has n children, the workers of n calls, and
// returns them.
func waitWorkers(t *testing.T, pid, n int, limit time.Duration) []proc {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		ps := children(pid)
		if len(ps) == n {
			return ps
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d workers after %v, want %d", len(ps), limit, n)
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
// proxy has exited: a process the server ended itself has been waited for
// (reaped) by it, and no longer exists; one it left behind, dying or not,
// has become a child of this test (see adoptOrphans), which reaps it.
func checkGone(t *testing.T, ps []proc) {
	t.Helper()
	for _, p := range ps {
		state, ppid, start, err := stat(p.pid)
		if err != nil || start != p.start {
			continue
		}
		t.Errorf("process %d was left behind by the server (state %c)", p.pid, state)
		if ppid == os.Getpid() {
			syscall.Kill(p.pid, syscall.SIGKILL)
			var ws syscall.WaitStatus
			syscall.Wait4(p.pid, &ws, 0, nil)
		}
	}
}
