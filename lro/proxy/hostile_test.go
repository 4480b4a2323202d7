package proxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/proxyflag"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/proxy"
)

// This file drives the proxy in front of upstreams that break the protocol
// in ways the other tests do not: scripted by hand over stdio, or an HTTP
// server wrapped to misbehave.

// clientInit is the params of a raw client's initialize.
const clientInit = `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw-client","version":"0"}}`

// scriptInitResult is a scripted upstream's initialize result.
const scriptInitResult = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"script","version":"0"}}`

// TestReplayAnsweredManyTimes: an upstream that answers the initialize the
// proxy replays on a new connection several times over (the id is the
// proxy's own) does not stop the proxy reading it: the request that made
// the connection is answered.
func TestReplayAnsweredManyTimes(t *testing.T) {
	// The first process answers the client's initialize and exits; the
	// second answers the replayed one six times, then the ping.
	script := `if [ -e "$MARKER" ]; then
  read -r line
  for i in 1 2 3 4 5 6; do printf '%s\n' '{"jsonrpc":"2.0","id":"lro-proxy-1","result":` + scriptInitResult + `}'; done
  read -r line
  read -r line
  printf '%s\n' '{"jsonrpc":"2.0","id":2,"result":{}}'
  exec sleep 3600
fi
: > "$MARKER"
read -r line
printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":` + scriptInitResult + `}'
read -r line
exit 0`
	cmd := exec.Command("sh", "-c", script)
	cmd.Env = []string{"MARKER=" + filepath.Join(t.TempDir(), "started")}
	var log lockedLog
	p, err := proxy.New(proxy.Upstream{Cmd: cmd}, &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c := newRawClient(t, p)
	c.response(c.request("initialize", clientInit))
	c.send(&jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)})
	waitFor(t, "the first upstream process to exit", func() bool { return strings.Contains(log.String(), "upstream connection ended") })
	id := c.request("ping", `{}`)
	if resp, ok := nextWithin(t, c).(*jsonrpc.Response); !ok || resp.ID != id || resp.Error != nil {
		t.Fatalf("got %v; want the upstream's answer to the ping", resp)
	}
}

// TestToolsListLastPage: the local tools are listed once, on the last page
// of tools/list, whether the upstream ends its pages without a nextCursor
// (go-sdk, paging two tools at a time) or with an empty one, the end for
// go-sdk's and TypeScript's clients.
func TestToolsListLastPage(t *testing.T) {
	local := &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}, RegisterLocalTools: func(s *mcp.Server) error {
		s.AddTool(&mcp.Tool{Name: "local", InputSchema: countSchema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return textResult("local"), nil
		})
		return nil
	}}
	t.Run("pages", func(t *testing.T) {
		s := mcp.NewServer(&mcp.Implementation{Name: "paged", Version: "v1"}, &mcp.ServerOptions{PageSize: 2})
		for _, name := range []string{"a", "b", "c", "d", "e"} {
			s.AddTool(&mcp.Tool{Name: name, InputSchema: countSchema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return textResult(name), nil
			})
		}
		_, cs := newProxy(t, proxy.Upstream{URL: startHTTPUpstream(t, s).url()}, local, nil)
		if diff := cmp.Diff([]string{"a", "b", "c", "d", "e", "local"}, toolNames(t, cs)); diff != "" {
			t.Errorf("tools (-want +got):\n%s", diff)
		}
	})
	t.Run("empty nextCursor", func(t *testing.T) {
		script := `read -r line
printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":` + scriptInitResult + `}'
read -r line
read -r line
printf '%s\n' '{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"up","inputSchema":{"type":"object"}}],"nextCursor":""}}'
exec sleep 3600`
		_, cs := newProxy(t, proxy.Upstream{Cmd: exec.Command("sh", "-c", script)}, local, nil)
		if diff := cmp.Diff([]string{"up", "local"}, toolNames(t, cs)); diff != "" {
			t.Errorf("tools (-want +got):\n%s", diff)
		}
	})
}

// TestHTTPUpstreamTakesNoNotification: an HTTP upstream that never answers
// the POST of a client's notification does not stop the proxy reading its
// client: after ConnectTimeout the connection is broken, and the client's
// next request connects again and is answered.
func TestHTTPUpstreamTakesNoNotification(t *testing.T) {
	release := make(chan struct{})
	defer close(release) // before the upstream stops: it waits for its handlers
	hang := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			if bytes.Contains(body, []byte(`"notifications/roots/list_changed"`)) {
				select {
				case <-release:
				case <-r.Context().Done():
				}
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	u := &httpUpstream{tb: t, s: newUpstream(t.TempDir()), addr: "127.0.0.1:0", wrap: hang}
	u.start()
	t.Cleanup(u.stop)
	p, err := proxy.New(proxy.Upstream{URL: u.url()}, &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}, ConnectTimeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c := newRawClient(t, p)
	c.response(c.request("initialize", clientInit))
	c.send(&jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)})
	c.send(&jsonrpc.Request{Method: "notifications/roots/list_changed", Params: json.RawMessage(`{}`)})
	id := c.request("ping", `{}`)
	if resp, ok := nextWithin(t, c).(*jsonrpc.Response); !ok || resp.ID != id || resp.Error != nil {
		t.Fatalf("got %v; want the upstream's answer to the ping", resp)
	}
}

// TestUpstreamBatch: a batch of messages the upstream writes as one line (a
// JSON array, which protocol 2025-03-26 allows a peer to send) passes to the
// client message by message, as go-sdk's CommandTransport reads it.
func TestUpstreamBatch(t *testing.T) {
	script := `read -r line
printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-03-26","capabilities":{},"serverInfo":{"name":"script","version":"0"}}}'
read -r line
printf '%s\n' '[{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":1e400}} , {"jsonrpc":"2.0","id":"s-1","method":"x/ask","params":{}}]'
read -r line
printf '%s\n' '[{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"done"}}]'
exec sleep 3600`
	p, err := proxy.New(proxy.Upstream{Cmd: exec.Command("sh", "-c", script)}, &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c := newRawClient(t, p)
	c.response(c.request("initialize", `{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw-client","version":"0"}}`))
	c.send(&jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)})
	var got []string
	for range 2 {
		msg := nextWithin(t, c)
		req, ok := msg.(*jsonrpc.Request)
		if !ok {
			t.Fatalf("got %s; want the upstream's messages", summary(msg))
		}
		got = append(got, req.Method+" "+string(req.Params))
		if req.IsCall() {
			c.send(&jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{}`)})
		}
	}
	msg := nextWithin(t, c)
	if req, ok := msg.(*jsonrpc.Request); ok {
		got = append(got, req.Method+" "+string(req.Params))
	}
	want := []string{`notifications/message {"level":"info","data":1e400}`, `x/ask {}`, `notifications/message {"level":"info","data":"done"}`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
}

// TestDuplicateNames: where a client's message has a member twice, the
// proxy marks the one the upstream reads, the last (as encoding/json, go-sdk
// and JavaScript read duplicate names), and drops none of what it held.
func TestDuplicateNames(t *testing.T) {
	up := proxy.Upstream{Cmd: cmdWith(append(os.Environ(), rawUpstreamEnv+"=1"), os.Stderr, os.Args[0])}
	p, err := proxy.New(up, &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	c := newRawClient(t, p)
	c.response(c.request("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw-client","version":"0"},"capabilities":{"sampling":{}}}`))
	c.send(&jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)})
	c.next() // the upstream's notification
	var init struct {
		Capabilities struct {
			Sampling   any            `json:"sampling"`
			Extensions map[string]any `json:"extensions"`
		} `json:"capabilities"`
	}
	if err := json.Unmarshal(c.response(c.request("x/init-params", `{}`)).Result, &init); err != nil {
		t.Fatal(err)
	}
	if init.Capabilities.Sampling == nil || init.Capabilities.Extensions[proxyflag.Key] == nil {
		t.Errorf("the upstream read the capabilities %+v; want the client's last, sampling, with the proxy's mark", init.Capabilities)
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(c.response(c.request("tools/call", `{"name":"params","_meta":{"a":1},"arguments":{},"_meta":{"progressToken":7}}`)).Result, &res); err != nil {
		t.Fatal(err)
	}
	var params struct {
		Meta map[string]any `json:"_meta"`
	}
	if err := json.Unmarshal([]byte(text(&res)), &params); err != nil {
		t.Fatal(err)
	}
	if params.Meta["progressToken"] != float64(7) || params.Meta[proxyflag.Key] == nil {
		t.Errorf("the upstream read the _meta %v; want the client's last, its progressToken, with the proxy's mark", params.Meta)
	}
}

// TestUpstreamWithoutTools: an upstream without tools, which says none in
// its capabilities and answers tools/list with "method not found", as the
// TypeScript SDK's servers do: the proxy, which adds the tools capability
// for its local tools, lists them, where the client got the upstream's
// error for a list the proxy had told it to ask for.
func TestUpstreamWithoutTools(t *testing.T) {
	local := &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}, RegisterLocalTools: func(s *mcp.Server) error {
		s.AddTool(&mcp.Tool{Name: "local", InputSchema: countSchema}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return textResult("local"), nil
		})
		return nil
	}}
	script := `read -r line
printf '%s\n' '{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"prompts":{}},"serverInfo":{"name":"script","version":"0"}}}'
read -r line
read -r line
printf '%s\n' '{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}'
read -r line
printf '%s\n' '{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"Method not found"}}'
exec sleep 3600`
	_, cs := newProxy(t, proxy.Upstream{Cmd: exec.Command("sh", "-c", script)}, local, nil)
	if cs.InitializeResult().Capabilities.Tools == nil {
		t.Fatal("the proxy did not add the tools capability for its local tools")
	}
	if diff := cmp.Diff([]string{"local"}, toolNames(t, cs)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	// Another method the upstream lacks gets its error, as written.
	_, err := cs.ListResources(context.Background(), nil)
	if err == nil || !strings.Contains(err.Error(), "Method not found") {
		t.Errorf("resources/list: %v; want the upstream's error", err)
	}
}
