package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro/internal/offload"
)

// TestOutcomeDiff checks the comparison of the matrix on its own: the
// changes the proxy may make pass, any other does not.
func TestOutcomeDiff(t *testing.T) {
	schema := `{"type":"object","properties":{"n":{"type":"number"}}}`
	widened, err := json.Marshal(mustWiden(t, schema))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, feature, direct, through string
		same                           bool
		why                            string
	}{
		{"equal", "ping", `{}`, `{}`, true, "the same outcome"},
		{"member added", "resources/list", `{"resources":[]}`, `{"resources":[],"ttlMs":0}`, false, "a field of the proxy's own"},
		{"text changed", "tools/call", `{"content":[{"type":"text","text":"a"}]}`, `{"content":[{"type":"text","text":"b"}]}`, false, "a changed result"},
		{"widened schema", "tools/list", `[{"name":"t","outputSchema":` + schema + `}]`, `[{"name":"t","outputSchema":` + string(widened) + `}]`, true, "the proxy widens output schemas"},
		{"schema as is", "tools/list", `[{"name":"t","outputSchema":` + schema + `}]`, `[{"name":"t","outputSchema":` + schema + `}]`, false, "an unwidened schema cannot take a descriptor"},
		{"extraction tools", "tools/list", `[{"name":"t"}]`, `[{"name":"lro_extract"},{"name":"lro_read"},{"name":"lro_search"},{"name":"t"}]`, true, "the proxy may add its extraction tools"},
		{"extraction tools elsewhere", "tools/call", `[{"name":"t"}]`, `[{"name":"lro_extract"},{"name":"t"}]`, false, "only tools/list may hold them"},
		{"tool missing", "tools/list", `[{"name":"t"},{"name":"u"}]`, `[{"name":"t"}]`, false, "a tool the client cannot see"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			diff, first := outcomeDiff(tt.feature, json.RawMessage(tt.direct), json.RawMessage(tt.through))
			if got := diff == ""; got != tt.same {
				t.Errorf("same = %v, want %v (%s); diff:\n%s", got, tt.same, tt.why, diff)
			}
			if (first == "") != tt.same {
				t.Errorf("first difference %q, want one only when they differ", first)
			}
		})
	}
}

func mustWiden(t *testing.T, schema string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(schema), &v); err != nil {
		t.Fatal(err)
	}
	tool := map[string]any{"outputSchema": v}
	if err := widenSchemas([]any{tool}); err != nil {
		t.Fatal(err)
	}
	return tool["outputSchema"]
}

// TestFirstDifference checks the one-line descriptions of the matrix's
// cells.
func TestFirstDifference(t *testing.T) {
	tests := []struct {
		a, b, want string
	}{
		{`{"x":1}`, `{"x":1}`, ""},
		{`{"x":1}`, `{"x":2}`, ".x: DIRECT 1, THROUGH 2"},
		{`{"x":1}`, `{"x":1,"y":true}`, ".y only THROUGH: true"},
		{`{"x":1,"y":true}`, `{"x":1}`, ".y only DIRECT: true"},
		{`[1,2]`, `[1]`, ": 2 items DIRECT, 1 THROUGH"},
		{`{"c":[{"t":"a"}]}`, `{"c":[{"t":"b"}]}`, `.c[0].t: DIRECT "a", THROUGH "b"`},
		{`{"x":1}`, `[1]`, `: DIRECT {"x":1}, THROUGH [1]`},
	}
	for _, tt := range tests {
		var a, b any
		if err := json.Unmarshal([]byte(tt.a), &a); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(tt.b), &b); err != nil {
			t.Fatal(err)
		}
		if got := firstDifference("", a, b); got != tt.want {
			t.Errorf("firstDifference(%s, %s) = %q, want %q", tt.a, tt.b, got, tt.want)
		}
	}
}

// TestOffloadDiff checks the offloaded row on its own: a result offloaded by
// the core passes against the result it came from, and fails against any
// other, or when it was not offloaded.
func TestOffloadDiff(t *testing.T) {
	var graph strings.Builder
	graph.WriteString(`{"entities":[`)
	for i := range 30 {
		if i > 0 {
			graph.WriteByte(',')
		}
		fmt.Fprintf(&graph, `{"name":"e%d","entityType":"person","observations":["o%d"]}`, i, i)
	}
	graph.WriteString(`],"relations":[`)
	for i := range 30 {
		if i > 0 {
			graph.WriteByte(',')
		}
		fmt.Fprintf(&graph, `{"from":"e%d","to":"e%d","relationType":"knows"}`, i, (i+1)%30)
	}
	graph.WriteString(`]}`)
	var indented bytes.Buffer
	if err := json.Indent(&indented, []byte(graph.String()), "", "  "); err != nil {
		t.Fatal(err)
	}
	result := func() *mcp.CallToolResult {
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: indented.String()}},
			StructuredContent: json.RawMessage(graph.String()),
		}
	}
	direct, err := json.Marshal(result())
	if err != nil {
		t.Fatal(err)
	}
	res := result()
	c := &offload.Config{Threshold: 100, Dir: t.TempDir(), Prefix: "interop", SchemaVersion: "1.0", Tokenizer: offload.Heuristic{}, Now: time.Now}
	if !c.Apply(context.Background(), func() offload.Call { return offload.Call{Tool: "read_graph"} }, res, []byte(graph.String()), nil).Changed() {
		t.Fatal("the core did not offload the graph")
	}
	through, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	other := bytes.Replace(direct, []byte(`\"knows\"`), []byte(`\"knew\"`), 1)
	if bytes.Equal(other, direct) {
		t.Fatal("the changed DIRECT result is the same")
	}
	tests := []struct {
		name            string
		direct, through []byte
		ok              bool
	}{
		{"rebuilds", direct, through, true},
		{"another result", other, through, false},
		{"not offloaded", direct, direct, false},
		{"offloaded both ways", through, through, false},
	}
	for _, tt := range tests {
		got := offloadDiff(feature{Outcome: tt.direct}, feature{Outcome: tt.through})
		if (got == "") != tt.ok {
			t.Errorf("%s: offloadDiff = %q, want ok %v", tt.name, got, tt.ok)
		}
	}
}
