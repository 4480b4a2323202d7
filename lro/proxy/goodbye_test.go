package proxy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/event"
	"github.com/zircote/lro-go/lro/proxy"
)

// initializeLine is a client's initialize request, id 1.
const initializeLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"script","version":"0"}}}`

// runScript runs p on the lines of a client that closes its input right
// after writing them, as `printf ... | lro-proxy` does, and returns what the
// proxy wrote, once Run returned (within a generous bound).
func runScript(t *testing.T, p *proxy.Proxy, lines ...string) []jsonrpc.Message {
	t.Helper()
	out := &lockedLog{}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a guard against a hang
	defer cancel()
	in := io.NopCloser(strings.NewReader(strings.Join(lines, "\n") + "\n"))
	if err := p.Run(ctx, &mcp.IOTransport{Reader: in, Writer: nopCloser{out}, MaxLineLength: proxy.DefaultMaxMessageBytes}); err != nil {
		t.Fatalf("Run: %v", err)
	}
	var msgs []jsonrpc.Message
	sc := bufio.NewScanner(strings.NewReader(out.String()))
	sc.Buffer(nil, proxy.DefaultMaxMessageBytes)
	for sc.Scan() {
		msg, err := jsonrpc.DecodeMessage(sc.Bytes())
		if err != nil {
			t.Fatalf("the proxy wrote %q: %v", preview(sc.Text()), err)
		}
		msgs = append(msgs, msg)
	}
	return msgs
}

// nopCloser is a writer with a Close that does nothing.
type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// answers returns the responses among msgs by their ids.
func answers(msgs []jsonrpc.Message) map[any]*jsonrpc.Response {
	m := map[any]*jsonrpc.Response{}
	for _, msg := range msgs {
		if resp, ok := msg.(*jsonrpc.Response); ok {
			m[resp.ID.Raw()] = resp
		}
	}
	return m
}

// TestAnswersAfterInputEnds checks that a client that writes its requests
// and closes its input at once gets every answer, the initialize's and an
// offloaded call's included, before Run returns: the proxy waits for them.
func TestAnswersAfterInputEnds(t *testing.T) {
	for _, kind := range upstreamKinds {
		t.Run(kind.name, func(t *testing.T) {
			log := &lockedLog{}
			p, err := proxy.New(kind.start(t, t.TempDir()), &proxy.Options{
				LRO:    &lro.Options{OutputDir: t.TempDir()},
				Logger: slog.New(slog.NewTextHandler(log, nil)),
			})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			msgs := runScript(t, p, initializeLine,
				`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
				`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
				`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"text","arguments":{"count":2000}}}`,
				`{"jsonrpc":"2.0","id":4,"method":"ping"}`)
			got := map[any]string{}
			for id, resp := range answers(msgs) {
				switch {
				case resp.Error != nil:
					got[id] = "error: " + resp.Error.Error()
				case id == int64(3):
					var res mcp.CallToolResult
					if err := json.Unmarshal(resp.Result, &res); err != nil {
						t.Fatal(err)
					}
					got[id] = "inline"
					if offloaded(t, &res) != nil {
						got[id] = "offloaded"
					}
				default:
					got[id] = "ok"
				}
			}
			want := map[any]string{int64(1): "ok", int64(2): "ok", int64(3): "offloaded", int64(4): "ok"}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("answers (-want +got):\n%s\nlog:\n%s", diff, log)
			}
			if !strings.Contains(log.String(), "every request it sent is answered") {
				t.Errorf("the log does not say why the proxy stopped waiting:\n%s", log)
			}
		})
	}
}

// TestGoodbyeGraceIsBounded checks that once the client's input ended, the
// proxy waits for answers that do not come only for its grace period, and
// says how many it did not get.
func TestGoodbyeGraceIsBounded(t *testing.T) {
	log := &lockedLog{}
	// A command that reads nothing and answers nothing; the connection is
	// not given up before the grace period is over.
	p, err := proxy.New(proxy.Upstream{Cmd: exec.Command("sh", "-c", "exec sleep 3600")}, &proxy.Options{
		LRO:            &lro.Options{OutputDir: t.TempDir()},
		Logger:         slog.New(slog.NewTextHandler(log, nil)),
		ConnectTimeout: time.Hour,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	proxy.SetGrace(p, 100*time.Millisecond)
	runScript(t, p, initializeLine, `{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if !strings.Contains(log.String(), "grace period is over") || !strings.Contains(log.String(), "unanswered=2") {
		t.Errorf("the log does not say that the grace period ended with 2 requests unanswered:\n%s", log)
	}
}

// nextWithin returns the next message of c, failing when none comes within
// a minute, where the proxy's bound makes it a second.
func nextWithin(t *testing.T, c *rawClient) jsonrpc.Message {
	t.Helper()
	select {
	case msg, ok := <-c.in:
		if !ok {
			t.Fatal("the proxy closed the connection")
		}
		return msg
	case <-time.After(time.Minute):
		t.Fatal("no answer within a minute")
	}
	return nil
}

// errorOf returns the error of a response, or of a tool result, or "".
func errorOf(t *testing.T, msg jsonrpc.Message) string {
	t.Helper()
	resp, ok := msg.(*jsonrpc.Response)
	switch {
	case !ok:
		t.Fatalf("got %s, want a response", summary(msg))
	case resp.Error != nil:
		return resp.Error.Error()
	}
	var res mcp.CallToolResult
	if json.Unmarshal(resp.Result, &res) == nil && res.IsError {
		return text(&res)
	}
	return ""
}

// TestSilentUpstream checks that an upstream that reads nothing and
// answers nothing fails the requests sent to it, ping included, within
// ConnectTimeout, and again on the connection the next request makes.
func TestSilentUpstream(t *testing.T) {
	p, err := proxy.New(proxy.Upstream{Cmd: exec.Command("sh", "-c", "exec sleep 3600")}, &proxy.Options{
		LRO:            &lro.Options{OutputDir: t.TempDir()},
		ConnectTimeout: 500 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c := newRawClient(t, p)
	c.request("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"0"}}`)
	c.request("ping", `{}`)
	for range 2 {
		if e := errorOf(t, nextWithin(t, c)); !strings.Contains(e, "nothing came from the upstream") {
			t.Errorf("answer %q, want an error saying nothing came from the upstream", e)
		}
	}
	c.request("ping", `{}`)
	if e := errorOf(t, nextWithin(t, c)); !strings.Contains(e, "nothing came from the upstream") {
		t.Errorf("ping on a new connection: %q, want an error saying nothing came from the upstream", e)
	}
}

// TestUpstreamStopsReading checks that a call whose message the upstream
// does not read (it answered the initialize, then reads nothing more) fails
// within ConnectTimeout, though writing it fills the pipe.
func TestUpstreamStopsReading(t *testing.T) {
	script := `read -r line; printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"deaf","version":"0"}}}'; exec sleep 3600`
	p, err := proxy.New(proxy.Upstream{Cmd: exec.Command("sh", "-c", script)}, &proxy.Options{
		LRO:            &lro.Options{OutputDir: t.TempDir()},
		ConnectTimeout: 2 * time.Second, // for the initialize too, on a loaded machine
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c := newRawClient(t, p)
	c.response(c.request("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"0"}}`))
	big, _ := json.Marshal(strings.Repeat("x", 1<<20)) // above a pipe's buffer
	c.request("tools/call", `{"name":"echo","arguments":{"text":`+string(big)+`}}`)
	if e := errorOf(t, nextWithin(t, c)); !strings.Contains(e, "read nothing") {
		t.Errorf("the call: %q, want an error saying the upstream read nothing", e)
	}
}

// TestGoodbyeWhenOutputCloses checks that once the client's input ended,
// the proxy stops waiting for answers as soon as a write to the client
// fails: a client that closed both ends reads none of them.
func TestGoodbyeWhenOutputCloses(t *testing.T) {
	script := `read -r line; printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"deaf","version":"0"}}}'; exec sleep 3600`
	p, err := proxy.New(proxy.Upstream{Cmd: exec.Command("sh", "-c", script)}, &proxy.Options{
		LRO:            &lro.Options{OutputDir: t.TempDir()},
		ConnectTimeout: time.Hour,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	proxy.SetGrace(p, time.Hour)
	c1, c2 := net.Pipe()
	ran := make(chan error, 1)
	go func() { ran <- p.Run(context.Background(), &mcp.IOTransport{Reader: c1, Writer: c1}) }()
	// The ping is never answered; the initialize's answer cannot be written.
	c2.Write([]byte(initializeLine + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n"))
	c2.Close()
	select {
	case <-ran:
	case <-time.After(time.Minute):
		t.Fatal("Run did not return within a minute of the client's leaving")
	}
}

// TestUpstreamAsksAfterInputEnds checks that once the client's input
// ended, a request of the upstream to the client (here sampling, in the
// middle of a call) gets an error from the proxy, no answer of the
// client's being able to come: the call is answered without waiting for
// the grace period.
func TestUpstreamAsksAfterInputEnds(t *testing.T) {
	p, err := proxy.New(stdioUpstream(t.TempDir()), &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	proxy.SetGrace(p, time.Hour) // runScript's guard ends a wait that long
	msgs := runScript(t, p,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"script","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample","arguments":{"count":0}}}`)
	resp := answers(msgs)[int64(2)]
	if resp == nil {
		t.Fatal("no answer to the call")
	}
	if e := errorOf(t, resp); !strings.Contains(e, "closed its input") {
		t.Errorf("the call: %q, want an error saying the client closed its input", e)
	}
}

// TestAnswerBeingWrittenAtInputEnd: the client's input ends while the
// answer of its last call, answered by the upstream, is being offloaded (an
// Observer holds it once the file is written): the proxy waits for that
// answer to be written before it ends. (A tools/call stays among the calls
// until its answer is written; the answers of other methods leave them
// first, and drain waits for those to be written too, a window too short to
// hold from a test.)
func TestAnswerBeingWrittenAtInputEnd(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	opts := &lro.Options{OutputDir: t.TempDir(), Observer: onOffloaded(func() { // the file is written, the answer not yet
		once.Do(func() { close(started); <-release })
	})}
	p, err := proxy.New(upstreamKinds[0].start(t, t.TempDir()), &proxy.Options{LRO: opts})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a guard against a hang
	defer cancel()
	in, client := io.Pipe()
	out := &lockedLog{}
	done := make(chan error, 1)
	go func() {
		done <- p.Run(ctx, &mcp.IOTransport{Reader: in, Writer: nopCloser{out}, MaxLineLength: proxy.DefaultMaxMessageBytes})
	}()
	for _, line := range []string{initializeLine, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"text","arguments":{"count":2000}}}`} {
		if _, err := io.WriteString(client, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-started:
	case <-ctx.Done():
		t.Fatal("the answer was never offloaded")
	}
	client.Close() // the input ends while the answer is written to its file
	select {
	case err := <-done:
		t.Errorf("Run returned (%v) while an answer was being written", err)
	case <-time.After(2 * time.Second):
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !strings.Contains(out.String(), `"id":3`) {
		t.Errorf("the call's answer is missing; the proxy wrote:\n%s", preview(out.String()))
	}
}

// onOffloaded is an Observer that calls f on each event.Offloaded.
type onOffloaded func()

func (f onOffloaded) Observe(_ context.Context, e event.Event) {
	if _, ok := e.(event.Offloaded); ok {
		f()
	}
}

// TestUpstreamAskedBeforeInputEnds: the client's input ends while a request
// of the upstream that the proxy passed to it (sampling, in the middle of a
// call) is unanswered: the proxy answers it with an error, as it does a
// request that comes after, so that the call is answered without waiting
// for the grace period; the upstream waited for an answer that could not
// come.
func TestUpstreamAskedBeforeInputEnds(t *testing.T) {
	p, err := proxy.New(stdioUpstream(t.TempDir()), &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	proxy.SetGrace(p, time.Hour) // the guard below ends a wait that long
	// A guard against a hang.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	in, client := io.Pipe()
	asked := make(chan struct{})
	out := &lockedLog{}
	var once sync.Once
	w := writerFunc(func(b []byte) (int, error) {
		n, err := out.Write(b)
		if strings.Contains(out.String(), "sampling/createMessage") {
			once.Do(func() { close(asked) })
		}
		return n, err
	})
	done := make(chan error, 1)
	go func() {
		done <- p.Run(ctx, &mcp.IOTransport{Reader: in, Writer: nopCloser{w}, MaxLineLength: proxy.DefaultMaxMessageBytes})
	}()
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"sampling":{}},"clientInfo":{"name":"script","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sample","arguments":{"count":0}}}`,
	} {
		if _, err := io.WriteString(client, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-asked:
	case <-ctx.Done():
		t.Fatal("the upstream's request never reached the client")
	}
	client.Close() // unanswered
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	var call *jsonrpc.Response
	for line := range strings.Lines(out.String()) {
		if msg, err := jsonrpc.DecodeMessage([]byte(line)); err == nil {
			if resp, ok := msg.(*jsonrpc.Response); ok && resp.ID.Raw() == int64(2) {
				call = resp
			}
		}
	}
	if call == nil {
		t.Fatalf("no answer to the call; the proxy wrote:\n%s", preview(out.String()))
	}
	if e := errorOf(t, call); !strings.Contains(e, "closed its input") {
		t.Errorf("the call: %q, want an error saying the client closed its input", e)
	}
}

// writerFunc is a writer of a function.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// TestPingAfterInputEnds: once the client's input ended, a ping of the
// upstream gets the empty result from the proxy, which is there to deliver
// the answers, where it got the error of other requests: a go-sdk server
// with KeepAlive closes its session at the first ping that fails, and the
// call the proxy was waiting for was lost.
func TestPingAfterInputEnds(t *testing.T) {
	release := make(chan struct{})
	s := mcp.NewServer(&mcp.Implementation{Name: "pinger", Version: "v1"}, nil)
	s.AddTool(&mcp.Tool{Name: "ping-client", InputSchema: countSchema}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		<-release
		if err := req.Session.Ping(ctx, nil); err != nil {
			return textResult("the ping failed: " + err.Error()), nil
		}
		return textResult("the ping was answered"), nil
	})
	log := &lockedLog{}
	p, err := proxy.New(proxy.Upstream{URL: startHTTPUpstream(t, s).url()}, &proxy.Options{
		LRO: &lro.Options{OutputDir: t.TempDir()}, Logger: slog.New(slog.NewTextHandler(log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	// A guard against a hang.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	in, client := io.Pipe()
	out := &lockedLog{}
	done := make(chan error, 1)
	go func() {
		done <- p.Run(ctx, &mcp.IOTransport{Reader: in, Writer: nopCloser{out}, MaxLineLength: proxy.DefaultMaxMessageBytes})
	}()
	for _, line := range []string{initializeLine, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ping-client","arguments":{"count":0}}}`} {
		if _, err := io.WriteString(client, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	client.Close()
	waitFor(t, "the proxy to read the end of its input", func() bool {
		return strings.Contains(log.String(), "the client closed its input")
	})
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	var got string
	for line := range strings.Lines(out.String()) {
		if msg, err := jsonrpc.DecodeMessage([]byte(line)); err == nil {
			if resp, ok := msg.(*jsonrpc.Response); ok && resp.ID.Raw() == int64(2) && resp.Error == nil {
				var res mcp.CallToolResult
				if err := json.Unmarshal(resp.Result, &res); err == nil {
					got = text(&res)
				}
			}
		}
	}
	if got != "the ping was answered" {
		t.Errorf("the call: %q, want the ping answered; the proxy wrote:\n%s", got, preview(out.String()))
	}
}
