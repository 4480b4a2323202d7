//go:build linux

package main

import (
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/testing/proctest"
)

// Bounds of TestSignalStopsCalls. The calls could run for signalTimeout;
// the proxy must be gone within signalExit of the signal, ten times less,
// so that a proxy that waits for its calls cannot pass by luck, and one
// that stops them has half a minute on a loaded machine (it needs a kill
// and a few writes, and the upstream's exit).
const (
	signalTimeout = 5 * time.Minute
	signalExit    = signalTimeout / 10
	signalCalls   = 4 // extract.Options.Workers defaults to 4: all of them busy
)

// TestSignalStopsCalls starts the proxy in front of the memory server over
// stdio, with calls of its own lro_extract that do not end (def f: f; f)
// and a long time limit, sends it SIGTERM or SIGINT once their workers run,
// and checks that it exits at once, with status 0, leaving neither a worker
// nor the upstream behind.
func TestSignalStopsCalls(t *testing.T) {
	proxyBin, memoryBin := binary(t, "."), binary(t, "../memory")
	proctest.AdoptOrphans(t)
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
			procs := proctest.WaitChildren(t, cmd.Process.Pid, 1+signalCalls, signalTimeout/2)

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
			proctest.CheckGone(t, "proxy", procs)
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
