package lro_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/testing/redacttest"
	"github.com/zircote/lro-go/lro"
)

// TestRedactionTextMeta offloads a result whose text item carries a
// credential in its _meta, which the header's "result" keeps: the file holds
// no secret, as for the _meta of any other item.
func TestRedactionTextMeta(t *testing.T) {
	recs := make([]map[string]any, 300)
	for i := range recs {
		recs[i] = map[string]any{"id": i, "body": fmt.Sprintf("record number %d of the set", i)}
	}
	data, _ := json.Marshal(recs)
	for _, f := range redacttest.Fakes() {
		t.Run(f.Kind, func(t *testing.T) {
			dir := t.TempDir()
			h := lro.Wrap(func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{
					&mcp.TextContent{Text: string(data), Meta: mcp.Meta{"request": map[string]any{"url": "https://api.example.com/v1", "auth": f.Text, "n": json.Number("12345678901234567890")}}},
				}}, nil
			}, &lro.Options{OutputDir: dir})
			res, err := h(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "t"}})
			if err != nil {
				t.Fatal(err)
			}
			file := onlyFile(t, dir)
			if p := leaked(f, file); p != "" {
				t.Errorf("the file holds %q", p)
			}
			if p := leaked(f, responseBytes(t, res)); p != "" {
				t.Errorf("the response holds %q", p)
			}
			if n := headerOf(t, file).Redacted[f.Kind]; n != 1 {
				t.Errorf("header counts %d of %s, want 1", n, f.Kind)
			}
		})
	}
}
