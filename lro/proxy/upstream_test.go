package proxy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/proxyflag"
	"github.com/zircote/lro-go/internal/testing/gobuild"
	"github.com/zircote/lro-go/lro"
)

// This file holds the upstream server the tests put the proxy in front of,
// served over streamable HTTP in process, or over stdio by this test binary
// run again as a child process.

// stdioUpstreamEnv, when set, makes the test binary serve the upstream over
// stdio instead of running tests; its value is the upstream's output folder.
const stdioUpstreamEnv = "LRO_PROXY_TEST_STDIO_UPSTREAM"

func TestMain(m *testing.M) {
	if dir := os.Getenv(peakProxyEnv); dir != "" {
		peakProxy(dir)
		os.Exit(0)
	}
	if os.Getenv(rawUpstreamEnv) != "" {
		rawUpstream()
		os.Exit(0)
	}
	if dir := os.Getenv(stdioUpstreamEnv); dir != "" {
		if marker := os.Getenv(hangOnRestartEnv); marker != "" {
			hangOnRestart(marker)
		}
		// A line that is no JSON-RPC message, as a library printing to
		// stdout writes: the proxy skips it.
		fmt.Println("upstream starting (this line is no JSON-RPC message)")
		if err := newUpstream(dir).Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, "upstream:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	// The tests start this race-built binary again, as an upstream or a
	// proxy, and end it.
	gobuild.NoRaceExitPause()
	os.Exit(m.Run())
}

// hangOnRestartEnv, when set with stdioUpstreamEnv, names a marker file:
// the upstream serves when it is missing, and makes it; when it is there,
// the upstream writes its process id to the marker plus ".pid", ignores
// SIGTERM and answers nothing, for ever.
const hangOnRestartEnv = "LRO_PROXY_TEST_HANG_ON_RESTART"

func hangOnRestart(marker string) {
	if _, err := os.Stat(marker); err != nil {
		_ = os.WriteFile(marker, nil, 0o600)
		return
	}
	signal.Ignore(syscall.SIGTERM)
	_ = os.WriteFile(marker+".tmp", []byte(strconv.Itoa(os.Getpid())), 0o600)
	_ = os.Rename(marker+".tmp", marker+".pid")
	for {
		time.Sleep(time.Hour)
	}
}

type item struct {
	ID       string  `json:"id" jsonschema:"the item's identifier"`
	Name     string  `json:"name" jsonschema:"display name"`
	Category string  `json:"category" jsonschema:"one of a few categories"`
	Price    float64 `json:"price" jsonschema:"price in euros"`
}

type countIn struct {
	Count int `json:"count" jsonschema:"how many records"`
}

type itemsOut struct {
	Items []item `json:"items" jsonschema:"the items"`
}

func makeItems(n int) []item {
	cats := []string{"books", "games", "tools"}
	items := make([]item, n)
	for i := range items {
		items[i] = item{
			ID:       fmt.Sprintf("it-%04d", i),
			Name:     fmt.Sprintf("Item number %d with a reasonably descriptive name", i),
			Category: cats[i%len(cats)],
			Price:    float64(i%50) + 0.5,
		}
	}
	return items
}

// exactRows is the structured content of the tool "exact": key order that
// is not sorted, an integer beyond float64's precision, numbers written in
// ways a decoder rewrites.
func exactRows(n int) string {
	var b strings.Builder
	b.WriteString(`{"rows": [`)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `{"zeta": "row %d of a table with a long enough description to count", "id": %d, "alpha": 1.50, "exp": 1e3}`, i, 12345678901234567890+uint64(i))
	}
	b.WriteString(`], "note": "exact"}`)
	return b.String()
}

func textLines(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "line %d: some log output that goes on for a while, as logs do\n", i)
	}
	return b.String()
}

func countArg(req *mcp.CallToolRequest) int {
	var in countIn
	_ = json.Unmarshal(req.Params.Arguments, &in)
	return in.Count
}

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

var countSchema = &jsonschema.Schema{
	Type:       "object",
	Properties: map[string]*jsonschema.Schema{"count": {Type: "integer", Description: "how many records"}},
}

// blocked receives, from the tool "block" of an upstream in this process,
// "started" when a call starts and "canceled" when it sees its cancellation.
var blocked = make(chan string, 10)

// newUpstream returns the upstream server. Its typed tool "items" offloads
// with package lro into dir, unless the caller is an LRO proxy.
func newUpstream(dir string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "test-upstream", Version: "v1"}, &mcp.ServerOptions{
		Instructions:       "upstream instructions",
		CompletionHandler:  complete,
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil },
	})
	addFeatures(s)
	s.AddReceivingMiddleware(lro.GuardNullArguments)
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, Title: "annotated"}
	lro.AddTool(s, &mcp.Tool{Name: "items", Title: "Items", Description: "Lists items.", Annotations: readOnly},
		func(ctx context.Context, req *mcp.CallToolRequest, in countIn) (*mcp.CallToolResult, itemsOut, error) {
			return nil, itemsOut{Items: makeItems(in.Count)}, nil
		}, &lro.Options{OutputDir: dir})
	s.AddTool(&mcp.Tool{Name: "text", Description: "Items as JSON text.", InputSchema: countSchema, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			data, err := json.Marshal(makeItems(countArg(req)))
			return textResult(string(data)), err
		})
	s.AddTool(&mcp.Tool{Name: "lines", Description: "Plain text lines.", InputSchema: countSchema},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return textResult(textLines(countArg(req))), nil
		})
	s.AddTool(&mcp.Tool{Name: "huge", Description: "Rows holding a number float64 cannot hold.", InputSchema: countSchema},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			rows := make([]string, countArg(req))
			for i := range rows {
				rows[i] = fmt.Sprintf(`{"n":%d,"big":1e400,"note":"a row with a number beyond float64"}`, i)
			}
			doc := `{"rows":[` + strings.Join(rows, ",") + `]}`
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "rows"}}, StructuredContent: json.RawMessage(doc)}, nil
		})
	s.AddTool(&mcp.Tool{Name: "exact", Description: "Rows a decoder would rewrite.", InputSchema: countSchema,
		OutputSchema: map[string]any{"type": "object", "required": []any{"rows"}}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			// The text is the same JSON as a decoder sees it: keys sorted,
			// numbers rewritten. Only the structured content is exact.
			doc := exactRows(countArg(req))
			var v any
			if err := json.Unmarshal([]byte(doc), &v); err != nil {
				return nil, err
			}
			mirror, err := json.Marshal(v)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(mirror)}}, StructuredContent: json.RawMessage(doc)}, err
		})
	s.AddTool(&mcp.Tool{Name: "recordless", Description: "A file's text, as the filesystem server returns it.", InputSchema: countSchema,
		OutputSchema: map[string]any{"type": "object", "properties": map[string]any{"content": map[string]any{"type": "string"}}, "required": []any{"content"}}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			text := textLines(countArg(req))
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: map[string]any{"content": text}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "page", Description: "One page of items, with a total and a cursor.", InputSchema: countSchema,
		OutputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			items, err := json.Marshal(makeItems(countArg(req)))
			doc := `{"total": 1000, "items": ` + string(items) + `, "next_cursor": "c-2"}`
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: doc}}, StructuredContent: json.RawMessage(doc)}, err
		})
	s.AddTool(&mcp.Tool{Name: "fail", Description: "Always a tool error.", InputSchema: countSchema},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res := textResult("boom: " + strings.Repeat("x", 10000))
			res.IsError = true
			return res, nil
		})
	s.AddTool(&mcp.Tool{Name: "protocol_error", Description: "Always a protocol error.", InputSchema: countSchema},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "count is out of range"}
		})
	s.AddTool(&mcp.Tool{Name: "meta", Description: "Echoes the request's _meta and whether the caller is an LRO proxy.", InputSchema: countSchema},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			data, err := json.Marshal(map[string]any{"meta": req.Params.Meta, "proxy": proxyflag.InRequest(req)})
			return textResult(string(data)), err
		})
	s.AddTool(&mcp.Tool{Name: "progress", Description: "Reports progress three times.", InputSchema: countSchema},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			token := req.Params.GetProgressToken()
			for i := range 3 {
				if token != nil {
					_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i + 1), Total: 3, Message: "step " + strconv.Itoa(i+1)})
				}
			}
			return textResult("done"), nil
		})
	s.AddTool(&mcp.Tool{Name: "pid", Description: "The upstream's process id.", InputSchema: countSchema},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return textResult(strconv.Itoa(os.Getpid())), nil
		})
	s.AddTool(&mcp.Tool{Name: "grow", Description: "Adds the tool grown and removes the tool lines.", InputSchema: countSchema},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			s.AddTool(&mcp.Tool{Name: "grown", Description: "Added by grow.", InputSchema: countSchema},
				func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return textResult("hello from a new tool"), nil
				})
			s.RemoveTools("lines")
			return textResult("grown"), nil
		})
	s.AddTool(&mcp.Tool{Name: "block", Description: "Waits for its cancellation.", InputSchema: countSchema},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			blocked <- "started"
			select {
			case <-ctx.Done():
				blocked <- "canceled"
				return nil, ctx.Err()
			case <-time.After(time.Minute):
				return textResult("not canceled"), nil
			}
		})
	s.AddTool(&mcp.Tool{Name: "exit", Description: "Ends the upstream's process.", InputSchema: countSchema},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			os.Exit(3)
			return nil, nil
		})
	return s
}

// httpUpstream serves s over streamable HTTP on a loopback address until
// stopped; start serves it again on the same address.
type httpUpstream struct {
	tb   testing.TB
	s    *mcp.Server
	addr string
	srv  *http.Server
	// wrap, if not nil, wraps the server's handler.
	wrap func(http.Handler) http.Handler
}

func startHTTPUpstream(t *testing.T, s *mcp.Server) *httpUpstream {
	t.Helper()
	u := &httpUpstream{tb: t, s: s, addr: "127.0.0.1:0"}
	u.start()
	t.Cleanup(u.stop)
	return u
}

func (u *httpUpstream) url() string { return "http://" + u.addr + "/mcp" }

func (u *httpUpstream) start() {
	u.tb.Helper()
	var ln net.Listener
	var err error
	for range 50 { // the address may take a moment to be free again
		if ln, err = net.Listen("tcp", u.addr); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		u.tb.Fatal(err)
	}
	u.addr = ln.Addr().String()
	mux := http.NewServeMux()
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return u.s }, nil)
	if u.wrap != nil {
		h = u.wrap(h)
	}
	mux.Handle("/mcp", h)
	u.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go u.srv.Serve(ln)
}

// stop closes the listener and every connection, as a crashed server would.
func (u *httpUpstream) stop() {
	if u.srv != nil {
		u.srv.Close()
		u.srv = nil
	}
}
