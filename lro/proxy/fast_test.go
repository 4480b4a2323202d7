package proxy_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/proxy"
)

// rawClient speaks JSON-RPC lines to a proxy, to see its answers byte for
// byte rather than through a client's decoding.
type rawClient struct {
	t    *testing.T
	conn net.Conn
	sc   *bufio.Scanner
}

// dialRaw connects a raw client to p, through p.Connect (the fast path) or
// through p.Server().Connect (the SDK's path only), and initializes.
func dialRaw(t *testing.T, p *proxy.Proxy, fast bool) *rawClient {
	t.Helper()
	c1, c2 := net.Pipe()
	var ss *mcp.ServerSession
	var err error
	if fast {
		ss, err = p.Connect(context.Background(), &mcp.IOTransport{Reader: c1, Writer: c1})
	} else {
		ss, err = p.Server().Connect(context.Background(), &mcp.IOTransport{Reader: c1, Writer: c1}, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	rc := &rawClient{t: t, conn: c2, sc: bufio.NewScanner(c2)}
	rc.sc.Buffer(nil, 1<<24)
	rc.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"v0"}}}`)
	rc.response(`"init"`)
	rc.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return rc
}

// notes reads n more notifications, if want, else none.
func (rc *rawClient) notes(n int, want bool) []map[string]any {
	rc.t.Helper()
	if !want || n <= 0 {
		return nil
	}
	rc.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var out []map[string]any
	for len(out) < n && rc.sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(rc.sc.Bytes(), &m); err != nil {
			rc.t.Fatalf("%v: %s", err, rc.sc.Bytes())
		}
		out = append(out, m)
	}
	return out
}

func (rc *rawClient) send(line string) {
	rc.t.Helper()
	rc.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := rc.conn.Write([]byte(line + "\n")); err != nil {
		rc.t.Fatal(err)
	}
}

// response reads messages until the response to id (as JSON), and returns
// it, with the notifications read before it.
func (rc *rawClient) response(id string) (resp map[string]any, notes []map[string]any) {
	rc.t.Helper()
	rc.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	for rc.sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(rc.sc.Bytes(), &m); err != nil {
			rc.t.Fatalf("%v: %s", err, rc.sc.Bytes())
		}
		if _, ok := m["id"]; !ok {
			notes = append(notes, m)
			continue
		}
		got, _ := json.Marshal(m["id"])
		if string(got) == id {
			return m, notes
		}
	}
	rc.t.Fatalf("no response to %s: %v", id, rc.sc.Err())
	return nil, nil
}

// TestFastPathAnswersAsTheSDK sends the same calls to a proxy through its
// fast path and through the SDK's path only, and compares the answers as
// the client reads them, while the fast path's count shows which calls it
// answered itself.
func TestFastPathAnswersAsTheSDK(t *testing.T) {
	for _, kind := range upstreamKinds {
		t.Run(kind.name, func(t *testing.T) {
			dir := t.TempDir()
			p, err := proxy.New(context.Background(), kind.start(t, t.TempDir()), &proxy.Options{LRO: &lro.Options{OutputDir: dir}})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { p.Close() })
			fast, slow := dialRaw(t, p, true), dialRaw(t, p, false)
			// The fast path serves upstreams of protocols before 2026-07-28;
			// the stdio upstream speaks 2026-07-28.
			served := kind.name != "stdio"

			tests := []struct {
				name   string
				params string
				id     string
				inline bool // answered by the fast path itself
			}{
				{"text", `{"name":"text","arguments":{"count":3}}`, `1`, true},
				{"typed", `{"name":"items","arguments":{"count":3}}`, `2`, true},
				{"exact numbers and key order", `{"name":"exact","arguments":{"count":3}}`, `"three"`, true},
				{"structured content without records", `{"name":"recordless","arguments":{"count":3}}`, `4`, true},
				{"tool error above the threshold, which lro leaves alone", `{"name":"fail","arguments":{}}`, `5`, true},
				{"arguments null", `{"name":"text","arguments":null}`, `6`, true},
				{"no arguments", `{"name":"text"}`, `7`, true},
				{"client _meta", `{"_meta":{"x.example/trace":"t-1","io.github.zircote/lro":{"proxy":false}},"name":"meta","arguments":{}}`, `8`, true},
				{"progress", `{"_meta":{"progressToken":42},"name":"progress","arguments":{}}`, `9`, true},
				{"requests to the client during the call", `{"name":"ask","arguments":{}}`, `16`, true},
				{"protocol error", `{"name":"protocol_error","arguments":{}}`, `10`, false},
				{"unknown tool", `{"name":"no_such_tool","arguments":{}}`, `11`, false},
				{"offloaded", `{"name":"exact","arguments":{"count":100}}`, `12`, false},
				{"offloaded page", `{"name":"page","arguments":{"count":200}}`, `13`, false},
				{"params the fast path does not read", `{"name":"text","arguments":{"count":2},"requestState":"x"}`, `14`, false},
				{"SDK _meta", `{"_meta":{"io.modelcontextprotocol/logLevel":"debug"},"name":"text","arguments":{"count":2}}`, `15`, false},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					fast.t, slow.t = t, t
					line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":%s}`, tt.id, tt.params)
					before := proxy.FastCalls(p)
					fast.send(line)
					got, gotNotes := fast.response(tt.id)
					if n := proxy.FastCalls(p) - before; (n == 1) != (tt.inline && served) {
						t.Errorf("the fast path answered %d calls; want it to answer this one itself: %v", n, tt.inline && served)
					}
					slow.send(line)
					want, wantNotes := slow.response(tt.id)
					// The SDK's path may relay progress after the response.
					gotNotes = append(gotNotes, fast.notes(3-len(gotNotes), tt.name == "progress")...)
					wantNotes = append(wantNotes, slow.notes(3-len(wantNotes), tt.name == "progress")...)
					if d := offloadedPath(got); d != "" {
						// Each offload has a file of its own.
						if diff := cmp.Diff(fileRecords(t, offloadedPath(want)), fileRecords(t, d)); diff != "" {
							t.Errorf("records (-SDK +fast):\n%s", diff)
						}
						got, want = withoutPath(got), withoutPath(want)
					}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("response (-SDK +fast):\n%s", diff)
					}
					if diff := cmp.Diff(wantNotes, gotNotes); diff != "" {
						t.Errorf("notifications (-SDK +fast):\n%s", diff)
					}
				})
			}
		})
	}
}

// offloadedPath returns the file of an offloaded response, or "".
func offloadedPath(resp map[string]any) string {
	res, _ := resp["result"].(map[string]any)
	sc, _ := res["structuredContent"].(map[string]any)
	path, _ := sc["file_path"].(string)
	return path
}

// withoutPath returns an offloaded response with the file's name and path
// and the descriptor's text, which holds them, taken out.
func withoutPath(resp map[string]any) map[string]any {
	data, _ := json.Marshal(resp)
	var out map[string]any
	_ = json.Unmarshal(data, &out)
	res := out["result"].(map[string]any)
	sc := res["structuredContent"].(map[string]any)
	delete(sc, "file_path")
	delete(sc, "guidance")
	delete(sc, "jq_recipes")
	delete(sc, "created_at")
	delete(sc, "expires_at")
	res["content"].([]any)[0] = "descriptor"
	return out
}

// TestFastPathCancellation cancels a call in flight: the fast path tells
// the upstream, and answers the client as the SDK's path does.
func TestFastPathCancellation(t *testing.T) {
	u := startHTTPUpstream(t, newUpstream(t.TempDir()))
	p, err := proxy.New(context.Background(), proxy.Upstream{URL: u.url()}, &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	answers := map[bool]map[string]any{}
	for _, fast := range []bool{true, false} {
		rc := dialRaw(t, p, fast)
		rc.send(`{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"block","arguments":{}}}`)
		waitBlocked(t, "started")
		rc.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"b","reason":"changed my mind"}}`)
		waitBlocked(t, "canceled")
		answers[fast], _ = rc.response(`"b"`)
		// The proxy still serves calls.
		rc.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"text","arguments":{"count":1}}}`)
		if resp, _ := rc.response(`2`); resp["result"] == nil {
			t.Errorf("fast %v: after the cancellation: %v", fast, resp)
		}
	}
	if diff := cmp.Diff(answers[false], answers[true]); diff != "" {
		t.Errorf("answer to the canceled call (-SDK +fast):\n%s", diff)
	}
}

func waitBlocked(t *testing.T, want string) {
	t.Helper()
	select {
	case got := <-blocked:
		if got != want {
			t.Fatalf("the upstream's tool block: %s; want %s", got, want)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("the upstream's tool block did not report %s", want)
	}
}

// TestFastPathClientCancelsThroughSDK cancels through a go-sdk client, as
// users do: the call returns, the upstream sees the cancellation, and the
// next call works.
func TestFastPathClientCancelsThroughSDK(t *testing.T) {
	u := startHTTPUpstream(t, newUpstream(t.TempDir()))
	p, cs := newProxy(t, proxy.Upstream{URL: u.url()}, &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}}, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "block", Arguments: map[string]any{}})
		done <- err
	}()
	waitBlocked(t, "started")
	cancel()
	if err := <-done; err == nil {
		t.Error("the canceled call returned no error")
	}
	waitBlocked(t, "canceled")
	before := proxy.FastCalls(p)
	if res := call(t, cs, "text", 2); res.IsError {
		t.Errorf("after the cancellation: %s", text(res))
	}
	if proxy.FastCalls(p) != before+1 {
		t.Errorf("the call after the cancellation did not take the fast path: %d fast calls before, %d after", before, proxy.FastCalls(p))
	}
}

// TestFastPathReconnectStdio ends a legacy stdio upstream during a call on
// the fast path: the call fails with the tool error of the SDK's path, and
// the next call starts the command again.
func TestFastPathReconnectStdio(t *testing.T) {
	p, cs := newProxy(t, legacyStdioUpstream(t.TempDir()), &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}}, nil)
	first := text(call(t, cs, "pid", 0))
	if proxy.FastCalls(p) != 1 {
		t.Fatalf("pid did not take the fast path: %d fast calls", proxy.FastCalls(p))
	}
	res := call(t, cs, "exit", 0)
	if !res.IsError || !strings.Contains(text(res), "command "+os.Args[0]) || !strings.Contains(text(res), "upstream unavailable") {
		t.Errorf("exit: isError %v, %q; want a tool error naming the command", res.IsError, text(res))
	}
	res = call(t, cs, "pid", 0)
	if res.IsError {
		t.Fatalf("after the exit: %s", text(res))
	}
	if second := text(res); second == first || second == "" {
		t.Errorf("pid after the restart = %q, before = %q; want a new process", second, first)
	}
	// The call after the restart connected through the SDK's path; the
	// next one is fast again.
	before := proxy.FastCalls(p)
	call(t, cs, "pid", 0)
	if proxy.FastCalls(p) != before+1 {
		t.Error("the fast path is not used again after the restart")
	}
}

// TestNewProtocolClient connects a client of protocol 2026-07-28, whose
// requests carry the protocol's _meta: the SDK's path serves it, through
// Connect as through Server().Connect.
func TestNewProtocolClient(t *testing.T) {
	up := proxy.Upstream{URL: startHTTPUpstream(t, newUpstream(t.TempDir())).url()}
	p, err := proxy.New(context.Background(), up, &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	c1, c2 := net.Pipe()
	ss, err := p.Connect(context.Background(), &mcp.IOTransport{Reader: c1, Writer: c1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	viaConnect, err := mcp.NewClient(&mcp.Implementation{Name: "new", Version: "v0"}, nil).Connect(context.Background(), &mcp.IOTransport{Reader: c2, Writer: c2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { viaConnect.Close() })
	st, ct := mcp.NewInMemoryTransports()
	ss2, err := p.Server().Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss2.Close() })
	viaServer, err := mcp.NewClient(&mcp.Implementation{Name: "new", Version: "v0"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { viaServer.Close() })
	for _, tool := range []string{"text", "exact", "recordless"} {
		want, got := call(t, viaServer, tool, 3), call(t, viaConnect, tool, 3)
		if diff := cmp.Diff(generic(t, want), generic(t, got)); diff != "" {
			t.Errorf("%s (-Server().Connect +Connect):\n%s", tool, diff)
		}
	}
	if n := proxy.FastCalls(p); n != 0 {
		t.Errorf("the fast path answered %d calls of a 2026-07-28 client", n)
	}
}

// injectNotes wraps an upstream's handler: the event stream that answers a
// call of the tool ask begins with notifications that go-sdk's server sends
// on streams of their own (a change of the tool list, a log message), as
// another server may send them in the call's stream.
func injectNotes(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(`"method":"tools/call"`)) && bytes.Contains(body, []byte(`"name":"ask"`)) {
				w = &noteWriter{ResponseWriter: w}
			}
		}
		h.ServeHTTP(w, r)
	})
}

// upstreamNotes are the events injectNotes adds.
const upstreamNotes = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/tools/list_changed\"}\n\n" +
	"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"asking\"}}\n\n"

type noteWriter struct {
	http.ResponseWriter
	written bool
}

func (w *noteWriter) Write(b []byte) (int, error) {
	if !w.written {
		w.written = true
		if strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") {
			if _, err := io.WriteString(w.ResponseWriter, upstreamNotes); err != nil {
				return 0, err
			}
		}
	}
	return w.ResponseWriter.Write(b)
}

func (w *noteWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *noteWriter) Flush() { http.NewResponseController(w.ResponseWriter).Flush() }

// TestFastPathRelaysUpstreamMessages calls, on the fast path and on the
// SDK's path, a tool of an HTTP upstream that sends, in the call's own
// stream, requests to the client (ping, roots/list) and notifications (a
// tool list change, a log message): go-sdk's client session of the proxy
// handles them alike on both paths. It answers the requests (the tool's
// result says how), and lists the upstream's tools again on the change.
func TestFastPathRelaysUpstreamMessages(t *testing.T) {
	var lists atomic.Int32
	s := newUpstream(t.TempDir())
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "tools/list" {
				lists.Add(1)
			}
			return next(ctx, method, req)
		}
	})
	u := &httpUpstream{tb: t, s: s, addr: "127.0.0.1:0", wrap: injectNotes}
	u.start()
	t.Cleanup(u.stop)
	p, err := proxy.New(context.Background(), proxy.Upstream{URL: u.url()}, &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })

	answers := map[bool]map[string]any{}
	for _, fast := range []bool{true, false} {
		rc := dialRaw(t, p, fast)
		listed, answered := lists.Load(), proxy.FastCalls(p)
		rc.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"ask","arguments":{}}}`)
		answers[fast], _ = rc.response(`1`)
		if n := proxy.FastCalls(p) - answered; (n == 1) != fast {
			t.Errorf("fast %v: the fast path answered %d calls", fast, n)
		}
		waitFor(t, fmt.Sprintf("fast %v: the proxy to list the upstream's tools after the change", fast), func() bool { return lists.Load() > listed })
	}
	if diff := cmp.Diff(answers[false], answers[true]); diff != "" {
		t.Errorf("answer (-SDK +fast):\n%s", diff)
	}
	data, _ := json.Marshal(answers[true])
	if !strings.Contains(string(data), "ping: ok") {
		t.Errorf("the upstream's ping got no answer: %s", data)
	}
	t.Logf("answer: %s", data)
}

// faults wraps an upstream's handler with the failures of a test case.
type faults struct {
	mu   sync.Mutex
	last string          // the session of the last request
	gone map[string]bool // sessions the upstream no longer knows
	// call, if not nil, answers the calls of tool instead of the upstream.
	call http.HandlerFunc
	tool string
}

func (f *faults) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		f.mu.Lock()
		session := r.Header.Get("Mcp-Session-Id")
		if session != "" {
			f.last = session
		}
		gone, call, tool := f.gone[session], f.call, f.tool
		f.mu.Unlock()
		switch {
		case gone:
			http.Error(w, "session not found", http.StatusNotFound)
		case call != nil && bytes.Contains(body, []byte(`"method":"tools/call"`)) && bytes.Contains(body, []byte(`"name":"`+tool+`"`)):
			call(w, r)
		default:
			h.ServeHTTP(w, r)
		}
	})
}

// forget makes the upstream forget the session of the last request.
func (f *faults) forget() {
	f.mu.Lock()
	f.gone[f.last] = true
	f.mu.Unlock()
}

// TestFastPathHTTPFailures makes the HTTP upstream fail a call in several
// ways: the fast path answers the client as the SDK's path does, for a tool
// that the proxy calls again on a new session after a failure (text, which
// is read-only) and for one it does not (lines).
func TestFastPathHTTPFailures(t *testing.T) {
	tests := []struct {
		name   string
		forget bool             // the upstream forgets the session
		call   http.HandlerFunc // else answers the call so
		ok     bool             // the call still succeeds, on a new session
	}{
		{name: "session gone: a new session, and the call again", forget: true, ok: true},
		{name: "server error", call: func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "boom", http.StatusInternalServerError)
		}},
		{name: "overloaded, which go-sdk counts as transient", call: func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "later", http.StatusServiceUnavailable)
		}},
		{name: "a JSON-RPC error in an HTTP error, without an ID", call: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32602,"message":"bad arguments"}}`)
		}},
		{name: "a JSON-RPC error in an HTTP error", call: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"bad arguments"}}`)
		}},
		{name: "neither JSON nor an event stream", call: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/plain")
			io.WriteString(w, "hello")
		}},
		{name: "a stream that ends without the response", call: func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, ": nothing\n\n")
		}},
	}
	for _, tt := range tests {
		for _, tool := range []string{"text", "lines"} {
			t.Run(tool+"/"+tt.name, func(t *testing.T) {
				f := &faults{gone: map[string]bool{}, tool: tool}
				u := &httpUpstream{tb: t, s: newUpstream(t.TempDir()), addr: "127.0.0.1:0", wrap: f.wrap}
				u.start()
				t.Cleanup(u.stop)
				p, err := proxy.New(context.Background(), proxy.Upstream{URL: u.url()}, &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { p.Close() })
				answers := map[bool]map[string]any{}
				for _, fast := range []bool{true, false} {
					rc := dialRaw(t, p, fast)
					rc.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"count":1}}}`)
					if resp, _ := rc.response(`1`); resp["result"] == nil {
						t.Fatalf("fast %v: before the failure: %v", fast, resp)
					}
					f.mu.Lock()
					f.call = tt.call
					f.mu.Unlock()
					if tt.forget {
						f.forget()
					}
					rc.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"count":1}}}`)
					answers[fast], _ = rc.response(`2`)
					f.mu.Lock()
					f.call = nil
					f.mu.Unlock()
					// The proxy serves calls after the failure.
					rc.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"` + tool + `","arguments":{"count":1}}}`)
					if resp, _ := rc.response(`3`); resp["result"] == nil {
						t.Errorf("fast %v: after the failure: %v", fast, resp)
					}
				}
				data, _ := json.Marshal(answers[true])
				t.Logf("fast: %s", data)
				if diff := cmp.Diff(answers[false], answers[true]); diff != "" {
					t.Errorf("answer (-SDK +fast):\n%s", diff)
				}
				res, _ := answers[true]["result"].(map[string]any)
				if failed := res == nil || res["isError"] == true; failed == tt.ok {
					t.Errorf("the call failed: %v; want it to fail: %v", failed, !tt.ok)
				}
			})
		}
	}
}

// headerRoundTripper is a user's transport that adds a header.
type headerRoundTripper struct{}

func (headerRoundTripper) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("X-Round-Tripper", "user")
	return http.DefaultTransport.RoundTrip(r)
}

// TestFastPathHeaders compares the HTTP request of a call on the fast path
// with that of the SDK's path: the same headers, the session's and the
// user's (Upstream.Header, the transport of Upstream.HTTPClient).
func TestFastPathHeaders(t *testing.T) {
	var mu sync.Mutex
	var calls []http.Header
	record := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(`"method":"tools/call"`)) {
				mu.Lock()
				calls = append(calls, r.Header.Clone())
				mu.Unlock()
			}
			h.ServeHTTP(w, r)
		})
	}
	u := &httpUpstream{tb: t, s: newUpstream(t.TempDir()), addr: "127.0.0.1:0", wrap: record}
	u.start()
	t.Cleanup(u.stop)
	up := proxy.Upstream{
		URL:        u.url(),
		Header:     http.Header{"Authorization": {"Bearer t0ken"}, "X-Trace": {"a", "b"}},
		HTTPClient: &http.Client{Transport: headerRoundTripper{}},
	}
	p, err := proxy.New(context.Background(), up, &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	for _, fast := range []bool{true, false} {
		rc := dialRaw(t, p, fast)
		rc.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"lines","arguments":{"count":1}}}`)
		if resp, _ := rc.response(`1`); resp["result"] == nil {
			t.Fatalf("fast %v: %v", fast, resp)
		}
	}
	if proxy.FastCalls(p) != 1 {
		t.Fatalf("the fast path answered %d calls; want 1", proxy.FastCalls(p))
	}
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 2 {
		t.Fatalf("the upstream saw %d calls; want 2", len(calls))
	}
	for _, h := range calls {
		h.Del("Content-Length") // the bodies differ
	}
	if diff := cmp.Diff(calls[1], calls[0]); diff != "" {
		t.Errorf("headers of a call (-SDK +fast):\n%s", diff)
	}
	for k, v := range map[string]string{"Authorization": "Bearer t0ken", "X-Round-Tripper": "user", "Mcp-Protocol-Version": "2025-11-25"} {
		if got := calls[0].Get(k); got != v {
			t.Errorf("fast path: %s: %q; want %q", k, got, v)
		}
	}
	if calls[0].Get("Mcp-Session-Id") == "" {
		t.Error("fast path: no Mcp-Session-Id")
	}
	t.Logf("headers: %v", calls[0])
}
