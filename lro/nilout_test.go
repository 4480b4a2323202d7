package lro_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro"
)

// TestAddToolNoOutput: a typed tool without an output (Out any, a nil out,
// go-sdk's usual way to a tool that returns only content) gets, below the
// threshold, the result mcp.AddTool sends: its content, without structured
// content. lro.AddTool sent the JSON of nil too, a text item "null". Above
// the threshold, the content is offloaded.
func TestAddToolNoOutput(t *testing.T) {
	s := newServer()
	h := func(ctx context.Context, req *mcp.CallToolRequest, in listIn) (*mcp.CallToolResult, any, error) {
		data, err := json.Marshal(makeItems(in.Count))
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(data)}}}, nil, nil
	}
	mcp.AddTool(s, &mcp.Tool{Name: "plain"}, h)
	addTool(s, &mcp.Tool{Name: "offloading"}, h, &lro.Options{OutputDir: t.TempDir()})
	cs := connect(t, s)
	call := func(name string, n int) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"count": n}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	wire := func(res *mcp.CallToolResult) string {
		res.Meta = nil
		data, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	if diff := cmp.Diff(wire(call("plain", 2)), wire(call("offloading", 2))); diff != "" {
		t.Errorf("below the threshold (-mcp.AddTool +lro.AddTool):\n%s", diff)
	}
	off := call("offloading", 300)
	d := descriptorOf(t, off)
	if d.FilePath == "" || off.StructuredContent == nil || strings.Contains(off.Content[0].(*mcp.TextContent).Text, `"text":"null"`) {
		t.Errorf("above the threshold: %+v", off)
	}
}

// TestAddToolNilPointerOutput: a typed tool whose output is a nil pointer
// sends the zero value of what it points to (as go-sdk does for a schema it
// infers), whether offloading is on or off for the call (Disabled, or a
// client that is an LRO proxy): off, it sent null, which the SDK sent as a
// text item "null" without structured content, though the tool has an
// output schema.
func TestAddToolNilPointerOutput(t *testing.T) {
	s := newServer()
	h := func(ctx context.Context, req *mcp.CallToolRequest, in listIn) (*mcp.CallToolResult, *listOut, error) {
		return nil, nil, nil
	}
	addTool(s, &mcp.Tool{Name: "on"}, h, &lro.Options{OutputDir: t.TempDir()})
	addTool(s, &mcp.Tool{Name: "off"}, h, &lro.Options{OutputDir: t.TempDir(), Disabled: true})
	cs := connect(t, s)
	var got []string
	for _, name := range []string{"on", "off"} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"count": 1}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		res.Meta = nil
		data, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(data))
	}
	if got[0] != got[1] {
		t.Errorf("offloading on:\n %s\noff:\n %s", got[0], got[1])
	}
}
