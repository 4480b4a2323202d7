package proxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/proxy"
)

// newTestProxy is a proxy in front of the HTTP upstream at url, with opts
// (nil for the defaults), offloading into a test folder.
func newTestProxy(t *testing.T, url string, opts *proxy.Options) *proxy.Proxy {
	t.Helper()
	if opts == nil {
		opts = &proxy.Options{}
	}
	opts.LRO = &lro.Options{OutputDir: t.TempDir()}
	p, _ := newProxy(t, proxy.Upstream{URL: url}, opts, nil)
	return p
}

// TestFastPathLongLineIsWhole sends a message longer than the tap's buffer,
// in two writes, while a call the fast path hands to go-sdk's server ends
// between them: the hand-off must wait for the end of the long line (it
// used to land in its middle, which ended the session).
func TestFastPathLongLineIsWhole(t *testing.T) {
	u := startHTTPUpstream(t, newUpstream(t.TempDir()))
	p := newTestProxy(t, u.url(), nil)
	rc := dialRaw(t, p, true)
	rc.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"protocol_error","arguments":{}}}`)
	head := `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"pad":"` + strings.Repeat("x", 100<<10)
	rc.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := rc.conn.Write([]byte(head)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // call 1 is handed off meanwhile
	if _, err := rc.conn.Write([]byte(`"}}}` + "\n")); err != nil {
		t.Fatalf("the session ended: %v", err)
	}
	got := map[string]bool{}
	for range 2 {
		rc.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		if !rc.sc.Scan() {
			t.Fatalf("reading the answers: %v", rc.sc.Err())
		}
		var m struct{ ID json.RawMessage }
		if err := json.Unmarshal(rc.sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		got[string(m.ID)] = true
	}
	if !got["1"] || !got["2"] {
		t.Errorf("answers to %v, want to 1 and 2", got)
	}
}

// TestFastPathDoesNotStallWhileConnecting makes the proxy reconnect to a
// slow upstream: a call made meanwhile must not hold up the client's other
// messages (the tap's reader used to wait for the connection).
func TestFastPathDoesNotStallWhileConnecting(t *testing.T) {
	var slow atomic.Bool
	u := &httpUpstream{tb: t, s: newUpstream(t.TempDir()), addr: "127.0.0.1:0", wrap: func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if slow.Load() && bytes.Contains(body, []byte(`"method":"initialize"`)) {
				time.Sleep(3 * time.Second)
			}
			h.ServeHTTP(w, r)
		})
	}}
	u.start()
	t.Cleanup(u.stop)
	p := newTestProxy(t, u.url(), nil)
	rc := dialRaw(t, p, true)
	u.stop() // the session is lost: the next call connects again, slowly
	u.start()
	slow.Store(true)
	rc.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"text","arguments":{"count":1}}}`)
	time.Sleep(500 * time.Millisecond)
	rc.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"text","arguments":{"count":1}}}`)
	start := time.Now()
	rc.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	rc.response(`3`)
	if d := time.Since(start); d > time.Second {
		t.Errorf("a ping sent while the proxy connects was answered after %v", d)
	}
}

// TestFastPathValidUTF8 has the upstream answer with text that is not valid
// UTF-8: the client gets valid UTF-8 (U+FFFD), as on go-sdk's path, not the
// upstream's bytes.
func TestFastPathValidUTF8(t *testing.T) {
	const result = "{\"content\":[{\"type\":\"text\",\"text\":\"ab\xffcd\"}]}"
	u := &httpUpstream{tb: t, s: newUpstream(t.TempDir()), addr: "127.0.0.1:0", wrap: func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(`"method":"tools/call"`)) {
				var m struct{ ID json.RawMessage }
				_ = json.Unmarshal(body, &m)
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + result + `}`))
				return
			}
			h.ServeHTTP(w, r)
		})
	}}
	u.start()
	t.Cleanup(u.stop)
	p := newTestProxy(t, u.url(), nil)
	for _, fast := range []bool{false, true} {
		rc := dialRaw(t, p, fast)
		rc.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"text","arguments":{}}}`)
		rc.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		if !rc.sc.Scan() {
			t.Fatal(rc.sc.Err())
		}
		line := rc.sc.Bytes()
		if !utf8.Valid(line) || !bytes.Contains(line, []byte(`ab\ufffdcd`)) && !bytes.Contains(line, []byte("ab\uFFFDcd")) {
			t.Errorf("fast=%v: %q, want valid UTF-8 with U+FFFD", fast, line)
		}
	}
}

// TestDisableFastPath adds receiving middleware to the proxy's server: with
// Options.DisableFastPath it sees every call made through Connect.
func TestDisableFastPath(t *testing.T) {
	u := startHTTPUpstream(t, newUpstream(t.TempDir()))
	for _, disable := range []bool{false, true} {
		p := newTestProxy(t, u.url(), &proxy.Options{DisableFastPath: disable})
		var seen atomic.Int32
		p.Server().AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if method == "tools/call" {
					seen.Add(1)
				}
				return next(ctx, method, req)
			}
		})
		rc := dialRaw(t, p, true)
		rc.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"text","arguments":{"count":1}}}`)
		rc.response(`1`)
		if got, want := seen.Load() == 1, disable; got != want {
			t.Errorf("DisableFastPath %v: the middleware saw %d calls", disable, seen.Load())
		}
		if fast := proxy.FastCalls(p); (fast == 1) == disable {
			t.Errorf("DisableFastPath %v: %d fast calls", disable, fast)
		}
	}
}

// TestLostAnswerIsNotFetchedAgain sends a call marked as handed off by the
// fast path with an answer the proxy does not have (as when it waited
// longer than it is kept): the call fails with a tool error instead of
// running the tool upstream a second time.
func TestLostAnswerIsNotFetchedAgain(t *testing.T) {
	u := startHTTPUpstream(t, newUpstream(t.TempDir()))
	p := newTestProxy(t, u.url(), nil)
	for _, fast := range []bool{false, true} {
		rc := dialRaw(t, p, fast)
		rc.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"text","arguments":{"count":1},"_meta":{"io.github.zircote/lro-proxy-prefetched":"0123"}}}`)
		resp, _ := rc.response(`1`)
		res, _ := resp["result"].(map[string]any)
		text, _ := json.Marshal(res["content"])
		if res == nil || res["isError"] != true || !strings.Contains(string(text), "not called again") {
			t.Errorf("fast=%v: %v, want the tool error of a lost answer", fast, resp)
		}
	}
}
