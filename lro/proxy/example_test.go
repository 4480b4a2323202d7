package proxy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/proxy"
)

// ExampleNew puts a proxy in front of a server that knows nothing of LRO:
// its large result reaches the client as a descriptor of a local file.
func ExampleNew() {
	ctx := context.Background()

	// The upstream: a plain MCP server over streamable HTTP, whose tool
	// returns 500 log lines.
	upstream := mcp.NewServer(&mcp.Implementation{Name: "logs", Version: "v1"}, nil)
	upstream.AddTool(&mcp.Tool{Name: "tail_logs", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var b strings.Builder
			for i := range 500 {
				fmt.Fprintf(&b, "2025-01-01T00:00:%02dZ INFO request %d served in %d ms\n", i%60, i, i%97)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}, nil
		})
	srv := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return upstream }, nil))
	defer srv.Close()

	dir, err := os.MkdirTemp("", "lro-proxy-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// The proxy, in front of it.
	p, err := proxy.New(proxy.Upstream{URL: srv.URL}, &proxy.Options{LRO: &lro.Options{OutputDir: dir}})
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()

	// A client of the proxy (over stdio, in the program lro-proxy).
	st, ct := mcp.NewInMemoryTransports()
	go p.Run(ctx, st)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "tail_logs"})
	if err != nil {
		log.Fatal(err)
	}
	var d struct { // the fields read below; a client declares those it reads
		Offloaded bool `json:"offloaded"`
		Summary   struct {
			Count int `json:"count"`
		} `json:"summary"`
		FilePath  string            `json:"file_path"`
		JqRecipes []json.RawMessage `json:"jq_recipes"`
	}
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &d); err != nil {
		log.Fatal(err)
	}
	fmt.Println("offloaded:", d.Offloaded)
	fmt.Println("records:", d.Summary.Count)
	fmt.Println("file here:", strings.HasPrefix(d.FilePath, dir))
	fmt.Println("recipes:", len(d.JqRecipes))
	// Output:
	// offloaded: true
	// records: 500
	// file here: true
	// recipes: 10
}
