//go:build unix

package proxy_test

import (
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/proxy"
)

// TestRunEndsTheUpstreamItConnectsTo checks that when the client leaves
// while the proxy connects to its upstream again, Run returns only once
// that upstream's process has exited, though the process ignores SIGTERM
// and never answers the initialize the proxy replays.
func TestRunEndsTheUpstreamItConnectsTo(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "started")
	env := append(os.Environ(), stdioUpstreamEnv+"="+t.TempDir(), hangOnRestartEnv+"="+marker)
	p, err := proxy.New(proxy.Upstream{Cmd: cmdWith(env, os.Stderr, os.Args[0])}, &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c1, c2 := net.Pipe()
	ran := make(chan error, 1)
	go func() { ran <- p.Run(ctx, &mcp.IOTransport{Reader: c1, Writer: c1}) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, nil).Connect(ctx, &mcp.IOTransport{Reader: c2, Writer: c2}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call(t, cs, "exit", 0) // the first process exits
	// The next call starts a second process, which never answers.
	go cs.CallTool(ctx, &mcp.CallToolParams{Name: "pid", Arguments: map[string]any{"count": 0}})
	pid := 0
	for deadline := time.Now().Add(time.Minute); pid == 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no second upstream process started within a minute")
		}
		data, _ := os.ReadFile(marker + ".pid")
		pid, _ = strconv.Atoi(string(data))
	}
	cancel()
	<-ran
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("Run returned while the upstream process %d it was connecting to still ran", pid)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// TestRunStartsNoUpstreamAfterItReturns checks that a client that sends a
// request and leaves at once leaves no upstream process behind Run: a
// connection attempt that comes after the relay ended starts none.
func TestRunStartsNoUpstreamAfterItReturns(t *testing.T) {
	for i := range 10 {
		pidFile := filepath.Join(t.TempDir(), "pid")
		// sleep ignores the end of its input, not SIGTERM.
		cmd := exec.Command("sh", "-c", `echo $$ > "$0"; exec sleep 30`, pidFile)
		// The initialize, never answered, fails after ConnectTimeout: Run
		// waits for its answer once the client's input ended.
		p, err := proxy.New(proxy.Upstream{Cmd: cmd}, &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}, ConnectTimeout: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		c1, c2 := net.Pipe()
		ran := make(chan error, 1)
		go func() { ran <- p.Run(context.Background(), &mcp.IOTransport{Reader: c1, Writer: c1}) }()
		go func() {
			c2.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}` + "\n"))
			c2.Close()
		}()
		<-ran
		time.Sleep(300 * time.Millisecond) // time for a late attempt to start a process, which the check below finds
		data, err := os.ReadFile(pidFile)
		if pid, _ := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && pid > 0 && syscall.Kill(pid, 0) == nil {
			t.Errorf("run %d: the upstream process %d runs after Run returned", i, pid)
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		p.Close()
	}
}

// TestAChildOfTheUpstreamHoldsNothing checks that when an upstream
// command started again exits at once, leaving a child that holds its
// standard error (a writer that is no file, so os/exec copies from a
// pipe), the call is answered with an error: the proxy waits for the
// command, not for the child.
func TestAChildOfTheUpstreamHoldsNothing(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "started")
	cmd := exec.Command("sh", "-c", `if [ -e "$0" ]; then sleep 3600 </dev/null >/dev/null & echo $! > "$0.child"; exit 0; fi
: > "$0"; exec "$1"`, marker, os.Args[0])
	cmd.Env = append(os.Environ(), stdioUpstreamEnv+"="+t.TempDir())
	cmd.Stderr = struct{ io.Writer }{io.Discard}
	t.Cleanup(func() {
		data, _ := os.ReadFile(marker + ".child")
		if pid, _ := strconv.Atoi(strings.TrimSpace(string(data))); pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	_, cs := newProxy(t, proxy.Upstream{Cmd: cmd}, &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}}, nil)
	call(t, cs, "exit", 0) // the first process exits
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "pid", Arguments: map[string]any{"count": 0}})
	switch {
	case ctx.Err() != nil:
		t.Error("no answer within a minute: the proxy waits for the upstream's child")
	case err == nil && !res.IsError:
		t.Errorf("pid: %s, want an error: the upstream exited at once", text(res))
	}
}

// TestFailedReconnectAnswersAtOnce checks that a connection attempt that
// fails answers its request without waiting for the command to be done:
// here a child holds the command's standard error, and the command's
// WaitDelay lets os/exec wait an hour for it. Run still waits for it.
func TestFailedReconnectAnswersAtOnce(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "started")
	cmd := exec.Command("sh", "-c", `if [ -e "$0" ]; then sleep 3600 </dev/null >/dev/null & echo $! > "$0.child"; exit 0; fi
: > "$0"; exec "$1"`, marker, os.Args[0])
	cmd.Env = append(os.Environ(), stdioUpstreamEnv+"="+t.TempDir())
	cmd.Stderr = struct{ io.Writer }{io.Discard}
	cmd.WaitDelay = time.Hour
	_, cs := newProxy(t, proxy.Upstream{Cmd: cmd}, &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}}, nil)
	t.Cleanup(func() { // before Run's end, which waits for the command
		data, _ := os.ReadFile(marker + ".child")
		if pid, _ := strconv.Atoi(strings.TrimSpace(string(data))); pid > 0 {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	call(t, cs, "exit", 0) // the first process exits
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "pid", Arguments: map[string]any{"count": 0}})
	switch {
	case ctx.Err() != nil:
		t.Error("no answer within a minute: the failed attempt waits for its command to be done")
	case err == nil && !res.IsError:
		t.Errorf("pid: %s, want an error: the upstream exited at once", text(res))
	}
}
