package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestCommandLastMessages checks that what an upstream command writes just
// before it exits is read: the messages of a process that has already
// exited, then the end of its output.
func TestCommandLastMessages(t *testing.T) {
	up := &Upstream{Cmd: exec.Command("sh", "-c",
		`printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{}}' '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"bye"}}'`)}
	c, err := startCommand(up, defaultMaxMessageBytes, defaultConnectTimeout, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	<-c.exited // the process has exited (and was waited for) before anything is read
	for _, want := range []string{"response", "notification"} {
		msg, err := c.Read(context.Background())
		if err != nil {
			t.Fatalf("reading the %s written before the command exited: %v", want, err)
		}
		_, isResp := msg.(*jsonrpc.Response)
		if got := map[bool]string{true: "response", false: "notification"}[isResp]; got != want {
			t.Errorf("read a %s, want the %s", got, want)
		}
	}
	if _, err := c.Read(context.Background()); !errors.Is(err, io.EOF) {
		t.Errorf("after the last message: %v, want io.EOF", err)
	}
}

// TestCommandHeldOpen checks that a Read ends, once the command exited,
// when a process it started keeps its stdout open: the relay learns that the
// connection ended, without waiting for that process.
func TestCommandHeldOpen(t *testing.T) {
	up := &Upstream{Cmd: exec.Command("sh", "-c",
		`sleep 30 & printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{}}'`)}
	c, err := startCommand(up, defaultMaxMessageBytes, defaultConnectTimeout, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-c.exited // sh has exited; sleep holds its stdout
	// Without the bound, the Read ends when sleep exits, with io.EOF.
	if _, err := c.Read(context.Background()); !errors.Is(err, errHeldOpen) {
		t.Errorf("Read after the command exited: %v, want %v", err, errHeldOpen)
	}
}

// TestCommandCloseClosesStdout checks that Close closes the pipe of the
// command's stdout, which no Wait closes.
func TestCommandCloseClosesStdout(t *testing.T) {
	up := &Upstream{Cmd: exec.Command("sh", "-c", `printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{}}'`)}
	c, err := startCommand(up, defaultMaxMessageBytes, defaultConnectTimeout, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.out.Read(make([]byte, 1)); !errors.Is(err, os.ErrClosed) {
		t.Errorf("reading stdout after Close: %v, want os.ErrClosed", err)
	}
}

// TestCommandWriteIsBounded checks that a write to a command that reads
// nothing ends by the context's deadline or after the stall bound,
// whichever comes first, and that a message cut short (the pipe took its
// first piece) breaks the connection.
func TestCommandWriteIsBounded(t *testing.T) {
	tests := []struct {
		name     string
		stall    time.Duration
		deadline time.Duration // of the write's context; none if zero
		want     string
	}{
		{"the context's deadline", time.Hour, 100 * time.Millisecond, "within the request's time limit"},
		{"the stall bound", time.Second, 0, "for 1s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := startCommand(&Upstream{Cmd: exec.Command("sh", "-c", "exec sleep 3600")}, defaultMaxMessageBytes, tt.stall, slog.New(slog.DiscardHandler))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			ctx := context.Background()
			if tt.deadline > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.deadline)
				defer cancel()
			}
			big, _ := json.Marshal(strings.Repeat("x", 1<<20)) // above a pipe's buffer
			msg := &jsonrpc.Request{Method: "notifications/x", Params: json.RawMessage(`{"x":` + string(big) + `}`)}
			done := make(chan error, 1)
			go func() { done <- c.Write(ctx, msg) }()
			select {
			case err = <-done:
			case <-time.After(time.Minute):
				t.Fatal("the write did not end within a minute")
			}
			if !errors.Is(err, errStalled) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Write: %v, want %v %s", err, errStalled, tt.want)
			}
			if tt.deadline > 0 {
				return // the deadline may have passed before a byte was written
			}
			small := &jsonrpc.Request{Method: "notifications/y"}
			if err := c.Write(context.Background(), small); !errors.Is(err, errStalled) {
				t.Errorf("Write after a message cut short: %v, want %v", err, errStalled)
			}
		})
	}
}
