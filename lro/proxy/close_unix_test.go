//go:build unix

package proxy_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
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
	for pid == 0 {
		data, _ := os.ReadFile(marker + ".pid")
		pid, _ = strconv.Atoi(string(data))
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	<-ran
	if err := syscall.Kill(pid, 0); err == nil {
		t.Errorf("Run returned while the upstream process %d it was connecting to still ran", pid)
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}
