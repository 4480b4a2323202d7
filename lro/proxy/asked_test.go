package proxy_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/proxy"
)

// TestAnswerToAnEndedConnection: the client's answer to a request of an
// upstream connection that has ended since goes nowhere. The proxy sent it
// to the next connection, a new process that never asked it, and that
// could have a request of its own under the same id (go-sdk numbers a
// connection's requests from 1): that process took another's answer for
// its own.
func TestAnswerToAnEndedConnection(t *testing.T) {
	up := proxy.Upstream{Cmd: cmdWith(append(os.Environ(), rawUpstreamEnv+"=1"), os.Stderr, os.Args[0])}
	p, err := proxy.New(up, &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	c := newRawClient(t, p)
	c.response(c.request("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"0"}}`))
	c.send(&jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)})
	if req, ok := c.next().(*jsonrpc.Request); !ok || req.Method != "x/future-notification" {
		t.Fatalf("got %v; want the upstream's notification", req)
	}

	asking := c.request("tools/call", `{"name":"ask","arguments":{}}`)
	ask, ok := c.next().(*jsonrpc.Request)
	if !ok || ask.Method != "x/ask" {
		t.Fatalf("got %v; want the upstream's request x/ask", ask)
	}
	exit := c.request("tools/call", `{"name":"exit","arguments":{}}`) // the upstream ends: both calls fail
	failed := map[jsonrpc.ID]bool{}
	for range 2 {
		resp, ok := c.next().(*jsonrpc.Response)
		if !ok || errorOf(t, resp) == "" {
			t.Fatalf("got %v; want the failure of a call", resp)
		}
		failed[resp.ID] = true
	}
	if !failed[asking] || !failed[exit] {
		t.Fatalf("failed calls %v; want %v and %v", failed, asking.Raw(), exit.Raw())
	}
	// The upstream's notifications come before its answers to what follows.
	pong := func(ping jsonrpc.ID) {
		t.Helper()
		for {
			switch msg := c.next().(type) {
			case *jsonrpc.Request:
				if msg.Method == "x/unasked-answer" {
					t.Fatalf("the new upstream process got the answer to a request of the one before: %s", msg.Params)
				}
				continue
			case *jsonrpc.Response:
				if msg.ID != ping || msg.Error != nil {
					t.Fatalf("got %s; want the answer to the ping", summary(msg))
				}
			}
			return
		}
	}
	pong(c.request("ping", `{}`)) // connects again: a new process
	c.send(&jsonrpc.Response{ID: ask.ID, Result: json.RawMessage(`{"answer":"late"}`)})
	pong(c.request("ping", `{}`))
}
