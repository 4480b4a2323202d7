package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/examples/memory/memory"
	"github.com/zircote/lro-go/internal/proxyflag"
)

func TestHTTPList(t *testing.T) {
	srv := httptest.NewServer(newHTTPHandler(newServer(bigStore, testOpts(t)), bigStore, slog.New(slog.DiscardHandler), false))
	defer srv.Close()
	tests := []struct {
		name       string
		query      string
		status     int
		opts       memory.ListOptions
		detail     memory.Detail
		wantErrArg string
	}{
		{"defaults: 50 light, no offloading", "", 200, memory.ListOptions{Limit: 50}, memory.Light, ""},
		{"a page in a namespace at full detail", "?limit=7&offset=3&namespace=_episodic&detail=full", 200,
			memory.ListOptions{Namespace: "_episodic", Offset: 3, Limit: 7}, memory.Full, ""},
		{"the last page has no next_offset", "?limit=10000&detail=medium", 200, memory.ListOptions{Limit: 10000}, memory.Medium, ""},
		{"offset past the end", "?offset=900", 200, memory.ListOptions{Offset: 900, Limit: 50}, memory.Light, ""},
		{"bad limit", "?limit=ten", 400, memory.ListOptions{}, "", "limit"},
		{"limit too large", "?limit=10001", 400, memory.ListOptions{}, "", "limit"},
		{"negative offset", "?offset=-2", 400, memory.ListOptions{}, "", "offset"},
		{"unknown detail", "?detail=everything", 400, memory.ListOptions{}, "", "detail"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp, err := http.Get(srv.URL + "/v1/memories" + tt.query)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tt.status, body)
			}
			if tt.wantErrArg != "" {
				var e struct{ Error string }
				if err := json.Unmarshal(body, &e); err != nil || !strings.Contains(e.Error, tt.wantErrArg) {
					t.Errorf("error body %s does not name %q", body, tt.wantErrArg)
				}
				return
			}
			page, total := bigStore.List(tt.opts)
			want := listPage{Items: memory.ProjectAll(page, tt.detail), Count: len(page), Total: total, Detail: tt.detail}
			if next := tt.opts.Offset + len(page); next < total {
				want.NextOffset = &next
			}
			var got any
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(generic(t, want), got); diff != "" {
				t.Errorf("body mismatch (-want +got):\n%s", diff)
			}
		})
	}

	resp, err := http.Post(srv.URL+"/v1/memories", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Errorf("POST status %d, want 405", resp.StatusCode)
	}
}

// The MCP server is reachable over streamable HTTP at /mcp, with offloading.
func TestHTTPMCP(t *testing.T) {
	opts := testOpts(t)
	srv := httptest.NewServer(newHTTPHandler(newServer(bigStore, opts), bigStore, slog.New(slog.DiscardHandler), false))
	defer srv.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http", Version: "v0"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if res := call(t, cs, "recall_memories", map[string]any{"query": "redis", "limit": 2}); isOffloaded(t, res) {
		t.Errorf("small recall offloaded")
	}
	if res := call(t, cs, "list_memories", nil); !isOffloaded(t, res) {
		t.Errorf("whole listing not offloaded")
	}
}

// A client that identifies itself as a local LRO proxy (proxyflag.Key) gets
// full results inline over HTTP, so that the proxy writes the files on the
// client's machine; other clients still get descriptors.
func TestHTTPProxyClientInline(t *testing.T) {
	opts := testOpts(t)
	srv := httptest.NewServer(newHTTPHandler(newServer(bigStore, opts), bigStore, slog.New(slog.DiscardHandler), false))
	defer srv.Close()
	caps := &mcp.ClientCapabilities{}
	caps.AddExtension(proxyflag.Key, proxyflag.Settings())
	proxy, err := mcp.NewClient(&mcp.Implementation{Name: "lro-proxy", Version: "v0"}, &mcp.ClientOptions{Capabilities: caps}).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	args := map[string]any{"query": "semantic", "limit": 300}
	res := call(t, proxy, "recall_memories", args)
	if isOffloaded(t, res) {
		t.Fatal("recall_memories offloaded for an LRO proxy")
	}
	var out hitsOutput
	remarshal(t, res.StructuredContent, &out)
	if out.Count < 100 || len(out.Memories) != out.Count {
		t.Errorf("%d memories inline (count %d), want the full result set", len(out.Memories), out.Count)
	}
	if entries, _ := os.ReadDir(opts.OutputDir); len(entries) != 0 {
		t.Errorf("%d files written for an LRO proxy", len(entries))
	}
	plain, err := mcp.NewClient(&mcp.Implementation{Name: "plain", Version: "v0"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if !isOffloaded(t, call(t, plain, "recall_memories", args)) {
		t.Error("recall_memories not offloaded for a plain client")
	}
}
