//go:build unix

package main

import (
	"errors"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// TestClientClosedStdout: a client that is gone, its end of the proxy's
// stdout closed first, makes the proxy's answers fail to be written; the
// proxy then ends as on EOF, stopping its upstream, rather than being
// killed by SIGPIPE at its first answer (which leaves the upstream to
// notice alone).
func TestClientClosedStdout(t *testing.T) {
	cmd := exec.Command(binary(t, "."), "-output-dir", t.TempDir(), "--", binary(t, "../memory"), "-output-dir", t.TempDir())
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stdout.Close() // the client will never read an answer
	if _, err := stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	stdin.Close() // the client is gone
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	time.AfterFunc(2*time.Minute, func() { cmd.Process.Kill() }) // a loaded machine: generous
	select {
	case err := <-done:
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			if ws := exit.Sys().(syscall.WaitStatus); ws.Signaled() {
				t.Fatalf("lro-proxy was killed by %v", ws.Signal())
			}
		}
	case <-time.After(3 * time.Minute):
		t.Fatal("lro-proxy did not end")
	}
}
