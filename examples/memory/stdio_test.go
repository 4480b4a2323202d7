package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The messages of a client that writes its requests, then closes its input.
const pipedRequests = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"wait","arguments":{}}}
{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"wait","arguments":{}}}
`

// eofReader is the client's input: it signals eof when it has been read
// to its end.
type eofReader struct {
	r    io.Reader
	eof  chan struct{}
	once sync.Once
}

func (r *eofReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err == io.EOF {
		r.once.Do(func() { close(r.eof) })
	}
	return n, err
}

func (r *eofReader) Close() error { return nil }

// lockedWriter is the client's output.
type lockedWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.Write(p)
}

func (w *lockedWriter) Close() error { return nil }

func (w *lockedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// serveInput runs a server whose tool "wait" returns when release is
// closed, over a transport that draining wraps, on the input in, and
// returns its output and what Run returned.
func serveInput(t *testing.T, release func(eof <-chan struct{}, ctx context.Context), grace time.Duration) (string, error) {
	return serveInputCtx(t, context.Background(), release, grace)
}

// serveInputCtx is serveInput with the server's life ctx, which cancelWith
// passes to the calls in flight.
func serveInputCtx(t *testing.T, life context.Context, release func(eof <-chan struct{}, ctx context.Context), grace time.Duration) (string, error) {
	t.Helper()
	return serveInputTo(t, life, &lockedWriter{}, release, grace)
}

// serveInputTo is serveInputCtx with the client's output out.
func serveInputTo(t *testing.T, life context.Context, out io.WriteCloser, release func(eof <-chan struct{}, ctx context.Context), grace time.Duration) (string, error) {
	t.Helper()
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	s.AddReceivingMiddleware(cancelWith(life))
	in := &eofReader{r: strings.NewReader(pipedRequests), eof: make(chan struct{})}
	s.AddTool(&mcp.Tool{Name: "wait", InputSchema: &jsonschema.Schema{Type: "object"}}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		release(in.eof, ctx)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "answered"}}}, nil
	})
	tr := &drainingTransport{Transport: &mcp.IOTransport{Reader: in, Writer: out}, grace: grace, logger: slog.New(slog.DiscardHandler)}
	err := s.Run(life, tr)
	return fmt.Sprint(out), err
}

// TestPipedInputAnswered: a client that writes its requests and closes its
// input (printf ... | memory) gets every answer, a call still running when
// the input ended included. go-sdk cancels the calls in flight and writes
// nothing more once its transport reports the end of the input: the
// server exited without answering.
func TestPipedInputAnswered(t *testing.T) {
	out, err := serveInput(t, func(eof <-chan struct{}, _ context.Context) { <-eof }, time.Minute)
	if err != nil {
		t.Errorf("Run = %v, want nil", err)
	}
	for _, want := range []string{`"id":1,"result"`, `"id":2,"result"`, `"id":3,"result":{"content":[{"type":"text","text":"answered"}]`} {
		if !strings.Contains(out, want) {
			t.Errorf("output does not hold %s:\n%s", want, out)
		}
	}
}

// TestPipedInputGrace: a call that does not end within the grace period
// does not keep the server alive once the input ended.
func TestPipedInputGrace(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		out, _ := serveInput(t, func(_ <-chan struct{}, ctx context.Context) { <-ctx.Done() }, time.Minute)
		if waited := time.Since(start); waited != time.Minute {
			t.Errorf("Run returned after %v, want the grace period, 1m0s", waited)
		}
		if !strings.Contains(out, `"id":2,"result"`) {
			t.Errorf("output does not hold the answer to tools/list:\n%s", out)
		}
	})
}

// TestPipedInputSignal: a signal while the server waits for the answers
// of a client that closed its input stops it at once, the calls in flight
// cancelled, as without the wait.
func TestPipedInputSignal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		life, stop := context.WithCancel(context.Background())
		start := time.Now()
		serveInputCtx(t, life, func(eof <-chan struct{}, ctx context.Context) {
			<-eof
			stop() // the signal, once the input ended
			<-ctx.Done()
		}, time.Minute)
		if waited := time.Since(start); waited != 0 {
			t.Errorf("Run returned after %v, want at once", waited)
		}
	})
}

// brokenOutput is the output of a client that goes after its first
// answers.
type brokenOutput struct {
	mu   sync.Mutex
	left int // writes that succeed
}

func (o *brokenOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.left == 0 {
		return 0, errors.New("broken pipe")
	}
	o.left--
	return len(p), nil
}

func (o *brokenOutput) Close() error { return nil }

// TestPipedInputGone: a client that closed its input and its output (it
// exited) is not waited for: go-sdk writes nothing more once a write
// failed, and closes the connection, which ends the wait.
func TestPipedInputGone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		serveInputTo(t, context.Background(), &brokenOutput{left: 2}, func(eof <-chan struct{}, _ context.Context) { <-eof }, time.Minute)
		if waited := time.Since(start); waited != 0 {
			t.Errorf("Run returned after %v, want at once", waited)
		}
	})
}
