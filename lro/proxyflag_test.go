package lro_test

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/proxyflag"
	"github.com/zircote/lro-go/lro"
)

// TestProxyClientGetsInline calls tools whose results are above the threshold,
// wrapped each way, from clients that do and do not identify as a proxy, over
// both handshakes the SDK speaks.
func TestProxyClientGetsInline(t *testing.T) {
	newProxyServer := func(opts *lro.Options) *mcp.Server {
		s := newServer()
		s.AddTool(&mcp.Tool{Name: "wrapped", InputSchema: rawInputSchema}, lro.Wrap(textHandler(200), opts))
		lro.AddTool(s, &mcp.Tool{Name: "typed"}, func(ctx context.Context, req *mcp.CallToolRequest, in listIn) (*mcp.CallToolResult, listOut, error) {
			return nil, listOut{Items: makeItems(in.Count)}, nil
		}, opts)
		s.AddTool(&mcp.Tool{Name: "middleware", InputSchema: rawInputSchema}, textHandler(200))
		s.AddReceivingMiddleware(lro.Middleware(opts, "middleware"))
		return s
	}
	capsProxy := &mcp.ClientCapabilities{}
	capsProxy.AddExtension(proxyflag.Key, proxyflag.Settings())
	metaProxy := mcp.Meta{proxyflag.Key: proxyflag.Settings()}

	tests := []struct {
		name       string
		caps       *mcp.ClientCapabilities
		meta       mcp.Meta
		version    string // protocol version asked for; "" for the latest
		wantInline bool
	}{
		{"plain client", nil, nil, "", false},
		{"capability, 2026-07-28", capsProxy, nil, "", true},
		{"capability, 2025-11-25 handshake", capsProxy, nil, "2025-11-25", true},
		{"request meta only", nil, metaProxy, "", true},
		{"request meta, 2025-11-25 handshake", nil, metaProxy, "2025-11-25", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			s := newProxyServer(&lro.Options{OutputDir: dir})
			ctx := context.Background()
			st, ct := mcp.NewInMemoryTransports()
			ss, err := s.Connect(ctx, st, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer ss.Close()
			c := mcp.NewClient(&mcp.Implementation{Name: "proxy-test", Version: "v0"}, &mcp.ClientOptions{Capabilities: tt.caps})
			cs, err := c.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: tt.version})
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			for _, tool := range []string{"wrapped", "typed", "middleware"} {
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"count": 200}, Meta: tt.meta})
				if err != nil {
					t.Fatalf("%s: %v", tool, err)
				}
				var sc struct {
					Offloaded bool   `json:"offloaded"`
					Items     []item `json:"items"`
				}
				text := res.Content[0].(*mcp.TextContent).Text
				if err := json.Unmarshal([]byte(text), &sc); err != nil {
					// The raw tools return a JSON array inline.
					var items []item
					if err := json.Unmarshal([]byte(text), &items); err != nil {
						t.Fatalf("%s: result is neither a descriptor nor the items: %.200s", tool, text)
					}
					sc.Items = items
				}
				if got := !sc.Offloaded; got != tt.wantInline {
					t.Errorf("%s: inline = %v, want %v", tool, got, tt.wantInline)
				}
				if tt.wantInline && len(sc.Items) != 200 {
					t.Errorf("%s: %d items inline, want all 200", tool, len(sc.Items))
				}
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if want := map[bool]int{true: 0, false: 3}[tt.wantInline]; len(entries) != want {
				t.Errorf("%d files written, want %d", len(entries), want)
			}
		})
	}
}
