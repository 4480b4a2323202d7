package lro_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro"
)

// TestAddToolSchemaWithID: a tool whose output schema has an $id, against
// which its references resolve, registers with AddTool as with mcp.AddTool
// (go-sdk resolves the widened schema at registration: it panicked), and
// its results, inline and offloaded, pass go-sdk's validation.
func TestAddToolSchemaWithID(t *testing.T) {
	var schema jsonschema.Schema
	if err := json.Unmarshal([]byte(`{"$id":"https://example.com/list","type":"object","$defs":{"item":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}},"properties":{"items":{"type":"array","items":{"$ref":"#/$defs/item"}},"next_offset":{"type":"integer"}},"required":["items"]}`), &schema); err != nil {
		t.Fatal(err)
	}
	s := newServer()
	lro.AddTool(s, &mcp.Tool{Name: "list_items", OutputSchema: &schema},
		func(ctx context.Context, req *mcp.CallToolRequest, in listIn) (*mcp.CallToolResult, listOut, error) {
			return nil, listOut{Items: makeItems(in.Count)}, nil
		}, &lro.Options{OutputDir: t.TempDir()})
	cs := connect(t, s)
	for _, n := range []int{2, 300} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_items", Arguments: map[string]any{"count": n}})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError {
			t.Fatalf("%d items: tool error: %v", n, res.Content)
		}
		if n == 300 {
			descriptorOf(t, res)
		}
	}
}
