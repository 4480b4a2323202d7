package lro_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/proxyflag"
	"github.com/zircote/lro-go/lro"
)

// TestOffloader: the offloading of Wrap without a handler, which the proxy
// calls, does to a result what Wrap does (the same descriptor but for the
// file's name), reports whether it changed the result, and follows the
// options of the tool named in the request and the proxy's mark.
func TestOffloader(t *testing.T) {
	ctx := context.Background()
	opts := &lro.Options{OutputDir: t.TempDir(), Tools: map[string]lro.ToolOptions{"off": {Disabled: true}}}
	off := lro.Offloader(opts)
	call := func(name string, meta mcp.Meta) *mcp.CallToolRequest {
		return &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: name, Meta: meta}}
	}
	result := func() *mcp.CallToolResult {
		res, err := textHandler(200)(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	res := result()
	if !off(ctx, call("catalog", nil), res) {
		t.Fatal("a result above the threshold was not offloaded")
	}
	if _, ok := res.StructuredContent.(json.RawMessage); !ok {
		t.Errorf("structured content is a %T, want the descriptor's json.RawMessage", res.StructuredContent)
	}
	got := descriptorOf(t, res)
	wrapped, err := lro.Wrap(textHandler(200), opts)(ctx, call("catalog", nil))
	if err != nil {
		t.Fatal(err)
	}
	want := descriptorOf(t, wrapped)
	if diff := cmp.Diff(want.Summary, got.Summary); diff != "" {
		t.Errorf("summary, Wrap (-want) and Offloader (+got):\n%s", diff)
	}
	if len(got.JqRecipes) != len(want.JqRecipes) || got.LineSchema == nil {
		t.Errorf("Offloader's descriptor has %d recipes and schema %v; Wrap's %d", len(got.JqRecipes), got.LineSchema, len(want.JqRecipes))
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
