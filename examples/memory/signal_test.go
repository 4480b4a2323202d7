//go:build linux

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/testing/proctest"
)

// Bounds of TestSignalStopsCalls. The calls could run for signalTimeout;
// the server must be gone within signalExit of the signal, ten times less,
// so that a server that waits for its calls cannot pass by luck, and one
// that stops them has half a minute on a loaded machine (it needs a kill
// and a few writes).
const (
	signalTimeout = 5 * time.Minute
	signalExit    = signalTimeout / 10
	signalCalls   = 4 // extract.Options.Workers defaults to 4: all of them busy
)

// TestSignalStopsCalls starts the server with calls of lro_extract that do
// not end (def f: f; f) and a long time limit, sends it SIGTERM or SIGINT
// once their workers run, and checks that the server cancels the calls and
// exits at once, with status 0, having ended its workers.
func TestSignalStopsCalls(t *testing.T) {
	bin := buildBinary(t)
	proctest.AdoptOrphans(t)
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
			var d offloadResponse
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
			workers := proctest.WaitChildren(t, srv.cmd.Process.Pid, signalCalls, signalTimeout/2)

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
			proctest.CheckGone(t, "server", workers)
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
