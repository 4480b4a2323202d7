package proxy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/proxyflag"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/proxy"
)

// TestOffloader: the offloading of a result the proxy read does to it what
// lro.Wrap does to a handler's (the same descriptor but for the file's
// name), reports whether it changed the result, and follows the options of
// the tool named in the request and the proxy's mark.
func TestOffloader(t *testing.T) {
	ctx := context.Background()
	opts := &lro.Options{OutputDir: t.TempDir(), Tools: map[string]lro.Options{"off": {Disabled: true}}}
	off := proxy.Offloader(opts)
	call := func(name string, meta mcp.Meta) *mcp.CallToolRequest {
		return &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: name, Meta: meta}}
	}
	result := func() *mcp.CallToolResult {
		items := make([]map[string]any, 200)
		for i := range items {
			items[i] = map[string]any{"id": i, "name": fmt.Sprintf("item-%d", i), "namespace": "ns/" + fmt.Sprint(i%3)}
		}
		data, err := json.Marshal(items)
		if err != nil {
			t.Fatal(err)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(data)}}}
	}
	type descriptor struct {
		Offloaded  bool            `json:"offloaded"`
		Summary    json.RawMessage `json:"summary"`
		LineSchema json.RawMessage `json:"line_schema"`
		JqRecipes  []any           `json:"jq_recipes"`
	}
	descriptorOf := func(res *mcp.CallToolResult) descriptor {
		t.Helper()
		var d descriptor
		if len(res.Content) != 1 {
			t.Fatalf("offloaded result has %d content items, want 1", len(res.Content))
		}
		if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &d); err != nil || !d.Offloaded {
			t.Fatalf("content is not a descriptor: %v", err)
		}
		return d
	}

	res := result()
	if !off(ctx, call("catalog", nil), res) {
		t.Fatal("a result above the threshold was not offloaded")
	}
	if _, ok := res.StructuredContent.(json.RawMessage); !ok {
		t.Errorf("structured content is a %T, want the descriptor's json.RawMessage", res.StructuredContent)
	}
	got := descriptorOf(res)
	wrapped, err := lro.Wrap(func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return result(), nil
	}, opts)(ctx, call("catalog", nil))
	if err != nil {
		t.Fatal(err)
	}
	want := descriptorOf(wrapped)
	if diff := cmp.Diff(string(want.Summary), string(got.Summary)); diff != "" {
		t.Errorf("summary, Wrap (-want) and the proxy's (+got):\n%s", diff)
	}
	if len(got.JqRecipes) != len(want.JqRecipes) || got.LineSchema == nil {
		t.Errorf("the proxy's descriptor has %d recipes and schema %s; Wrap's %d", len(got.JqRecipes), got.LineSchema, len(want.JqRecipes))
	}

	for _, tc := range []struct {
		reason string
		req    *mcp.CallToolRequest
		res    *mcp.CallToolResult
	}{
		{"offloading disabled for the tool", call("off", nil), result()},
		{"a proxy's call", call("catalog", mcp.Meta{proxyflag.Key: map[string]any{"proxy": true}}), result()},
		{"no result", call("catalog", nil), nil},
	} {
		before := tc.res
		var content []mcp.Content
		if before != nil {
			content = before.Content
		}
		if off(ctx, tc.req, tc.res) {
			t.Errorf("%s: offloaded", tc.reason)
		}
		if tc.res != nil && len(tc.res.Content) > 0 && tc.res.Content[0] != content[0] {
			t.Errorf("%s: the result was changed", tc.reason)
		}
	}
}
