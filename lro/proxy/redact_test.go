package proxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/testing/redacttest"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/proxy"
)

// TestRedaction offloads, through the proxy, results of an upstream that
// carry a fake credential of every kind, as JSON text, as structured
// content and as lines: neither the file nor the response holds a secret.
func TestRedaction(t *testing.T) {
	fakes := redacttest.Fakes()
	records := func() []map[string]any {
		var recs []map[string]any
		for i := range 300 {
			recs = append(recs, map[string]any{"id": i, "value": fmt.Sprintf("plain value %d", i)})
		}
		for i, f := range fakes {
			recs[i*5]["value"] = f.Text
		}
		return recs
	}
	up := mcp.NewServer(&mcp.Implementation{Name: "secrets", Version: "v1"}, nil)
	up.AddTool(&mcp.Tool{Name: "json", InputSchema: anyObject}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		data, _ := json.Marshal(records())
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(data)}}}, nil
	})
	up.AddTool(&mcp.Tool{Name: "structured", InputSchema: anyObject}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		data, _ := json.Marshal(map[string]any{"items": records()})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}, StructuredContent: json.RawMessage(data)}, nil
	})
	up.AddTool(&mcp.Tool{Name: "lines", InputSchema: anyObject}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var b strings.Builder
		for _, r := range records() {
			fmt.Fprintf(&b, "%v %v\n", r["id"], r["value"])
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}, nil
	})
	for _, tool := range []string{"json", "structured", "lines"} {
		t.Run(tool, func(t *testing.T) {
			dir := t.TempDir()
			_, cs := newProxy(t, proxy.Upstream{URL: startHTTPUpstream(t, up).url()}, &proxy.Options{LRO: &lro.Options{OutputDir: dir}}, nil)
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"query": fakes[0].Text}})
			if err != nil {
				t.Fatal(err)
			}
			var resp bytes.Buffer
			for _, c := range res.Content {
				if tc, ok := c.(*mcp.TextContent); ok {
					resp.WriteString(tc.Text)
				}
			}
			sc, _ := json.Marshal(res.StructuredContent)
			resp.Write(sc)
			entries, err := os.ReadDir(dir)
			if err != nil || len(entries) != 1 {
				t.Fatalf("%d files (%v), want 1", len(entries), err)
			}
			file, err := os.ReadFile(filepath.Join(dir, entries[0].Name()))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range fakes {
				for l := range strings.SplitSeq(f.Secret, "\n") {
					if len(l) < 12 {
						continue
					}
					if bytes.Contains(file, []byte(l)) {
						t.Errorf("%s: the file holds %q", f.Kind, l)
					}
					if bytes.Contains(resp.Bytes(), []byte(l)) {
						t.Errorf("%s: the response holds %q", f.Kind, l)
					}
				}
			}
			if !bytes.Contains(file, []byte(`"redacted":{`)) {
				t.Error("the header counts nothing redacted")
			}
		})
	}
}

// anyObject is the input schema of the tools of TestRedaction.
var anyObject = map[string]any{"type": "object"}
