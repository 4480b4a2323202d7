package proxy_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/proxy"
)

// TestListenToStreamsWithoutIDs: an HTTP upstream that sends its own
// messages on GET streams without event IDs (go-sdk and TypeScript servers
// without an event store), and closes each stream after a message (as a
// server, or a reverse proxy's idle timeout, may), keeps being listened to:
// each stream that brought a message is progress. The proxy stopped after
// the third stream, and every later message of the upstream was lost,
// silently.
func TestListenToStreamsWithoutIDs(t *testing.T) {
	t.Parallel()
	const streams = 6
	var gets atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet:
			n := gets.Add(1)
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			if n > streams {
				w.(http.Flusher).Flush()
				<-r.Context().Done() // the last stream stays open
				return
			}
			fmt.Fprintf(w, "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":%d}}\n\n", n)
		case http.MethodPost:
			data, _ := io.ReadAll(r.Body)
			msg, err := jsonrpc.DecodeMessage(data)
			req, ok := msg.(*jsonrpc.Request)
			if err != nil || !ok || !req.IsCall() {
				w.WriteHeader(http.StatusAccepted)
				return
			}
			result := `{}`
			if req.Method == "initialize" {
				result = `{"protocolVersion":"2025-06-18","capabilities":{"logging":{}},"serverInfo":{"name":"streams","version":"1"}}`
			}
			out, _ := jsonrpc.EncodeMessage(&jsonrpc.Response{ID: req.ID, Result: json.RawMessage(result)})
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Mcp-Session-Id", "s1")
			w.Write(out)
		default:
			w.WriteHeader(http.StatusOK)
		}
	}))
	t.Cleanup(srv.Close)
	p, err := proxy.New(proxy.Upstream{URL: srv.URL}, &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	proxy.SetListenRetry(p, 10*time.Millisecond)
	c := newRawClient(t, p)
	c.response(c.request("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"0"}}`))
	c.send(&jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)})
	bound := time.After(time.Minute) // a guard against a hang, not a timing assertion
	for want := 1; want <= streams; want++ {
		select {
		case msg, ok := <-c.in:
			if !ok {
				t.Fatal("the proxy closed the connection")
			}
			req, isReq := msg.(*jsonrpc.Request)
			var params struct{ Data int }
			if !isReq || req.Method != "notifications/message" || json.Unmarshal(req.Params, &params) != nil || params.Data != want {
				t.Fatalf("got %s; want the message of stream %d", summary(msg), want)
			}
		case <-bound:
			t.Fatalf("the upstream's message of stream %d never came (streams opened: %d)", want, gets.Load())
		}
	}
}
