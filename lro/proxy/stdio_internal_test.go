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

// TestCommandCloseEndsRead checks that Close ends a Read that waits on a
// process the command started, which keeps the command's stdout open after
// the command exited.
func TestCommandCloseEndsRead(t *testing.T) {
	up := &Upstream{Cmd: exec.Command("sh", "-c",
		`sleep 5 & printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{}}'`)}
	c, err := startCommand(up, defaultMaxMessageBytes, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Read(context.Background()); err != nil {
		t.Fatal(err)
	}
	<-c.exited // sh has exited; sleep still holds its stdout
	done := make(chan error)
	go func() {
		_, err := c.Read(context.Background())
		done <- err
	}()
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	// Without Close closing the pipe, the Read ends only when sleep exits,
	// with io.EOF.
	if err := <-done; !errors.Is(err, os.ErrClosed) {
		t.Errorf("Read after Close: %v, want os.ErrClosed", err)
	}
}
