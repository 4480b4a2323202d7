package proxy

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestCommandLastMessages checks that what an upstream command writes just
// before it exits is read: the messages of a process that has already
// exited, then the end of its output.
func TestCommandLastMessages(t *testing.T) {
	up := &Upstream{Cmd: exec.Command("sh", "-c",
		`printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{}}' '{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"bye"}}'`)}
	c, err := startCommand(up, defaultMaxMessageBytes, slog.New(slog.DiscardHandler))
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
	c, err := startCommand(up, defaultMaxMessageBytes, slog.New(slog.DiscardHandler))
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
	c, err := startCommand(up, defaultMaxMessageBytes, slog.New(slog.DiscardHandler))
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
