package realshapes

import (
	"encoding/csv"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestItems(t *testing.T) {
	items, err := Items()
	if err != nil {
		t.Fatal(err)
	}
	if len(items) < 20 {
		t.Errorf("%d items, want the whole corpus", len(items))
	}
	seen := map[string]bool{}
	for _, it := range items {
		if seen[it.Name] {
			t.Errorf("%s: listed twice", it.Name)
		}
		seen[it.Name] = true
		if it.Source == "" || it.Version == "" || it.Command == "" {
			t.Errorf("%s: no source, version or command: %+v", it.Name, it)
		}
		if it.Result == nil || len(it.Result.Content) == 0 {
			t.Errorf("%s: no content", it.Name)
		}
	}
}

// TestLarge checks that every item grows above the size asked for and
// keeps its shape.
func TestLarge(t *testing.T) {
	items, err := Items()
	if err != nil {
		t.Fatal(err)
	}
	const minTokens = 8000
	for _, it := range items {
		t.Run(it.Name, func(t *testing.T) {
			res, recs, err := it.Large(minTokens)
			if err != nil {
				t.Fatal(err)
			}
			if recs%max(it.Records, 1) != 0 || it.Records > 0 && recs < 2*it.Records {
				t.Errorf("%d records from %d recorded", recs, it.Records)
			}
			if n := tokens(res); n < minTokens || n > 8*minTokens {
				t.Errorf("~%d tokens, want %d to %d", n, minTokens, 8*minTokens)
			}
			if len(res.Content) < len(it.Result.Content) {
				t.Errorf("%d content items, fewer than the %d recorded", len(res.Content), len(it.Result.Content))
			}
			for i, c := range res.Content {
				tc, ok := c.(*mcp.TextContent)
				if !ok {
					continue
				}
				orig, _ := it.Result.Content[min(i, len(it.Result.Content)-1)].(*mcp.TextContent)
				checkShape(t, it, tc.Text, orig)
			}
			if sc, ok := res.StructuredContent.(json.RawMessage); ok && !json.Valid(sc) {
				t.Errorf("structured content is not JSON: %.200s", sc)
			}
			checkCopy(t, it.Result, res)
		})
	}
}

// checkCopy checks that structured content holding the text of a text
// item (as server-filesystem sends it) holds the grown text, and that
// structured content that is the same JSON as a text (server-memory's) is
// still the same JSON once both grew.
func checkCopy(t *testing.T, orig, grown *mcp.CallToolResult) {
	t.Helper()
	sc, ok := orig.StructuredContent.(json.RawMessage)
	if !ok {
		return
	}
	if tc, ok := orig.Content[0].(*mcp.TextContent); ok && sameJSON(sc, []byte(tc.Text)) {
		if !sameJSON(grown.StructuredContent.(json.RawMessage), []byte(grown.Content[0].(*mcp.TextContent).Text)) {
			t.Errorf("the structured content repeated the text's JSON, and no longer does once grown")
		}
	}
	var m map[string]any
	if json.Unmarshal(sc, &m) != nil || len(orig.Content) == 0 {
		return
	}
	tc, ok := orig.Content[0].(*mcp.TextContent)
	if !ok || m["content"] != tc.Text {
		return
	}
	var g map[string]any
	if err := json.Unmarshal(grown.StructuredContent.(json.RawMessage), &g); err != nil {
		t.Fatal(err)
	}
	if want := grown.Content[0].(*mcp.TextContent).Text; g["content"] != want {
		t.Errorf("structured content's copy of the text did not grow with it")
	}
}

// checkShape checks that a grown text has the shape of the recorded one.
func checkShape(t *testing.T, it Item, text string, orig *mcp.TextContent) {
	t.Helper()
	switch {
	case it.Grow.By == "json":
		if !json.Valid([]byte(text)) {
			t.Errorf("the grown text is not JSON: %.200s", text)
		}
	case it.Name == "sqlite3/csv" || it.Name == "python/csv":
		r := csv.NewReader(strings.NewReader(text))
		rows, err := r.ReadAll()
		if err != nil {
			t.Fatalf("the grown text is not CSV: %v", err)
		}
		if len(rows) < 3 {
			t.Errorf("%d rows", len(rows))
		}
	case it.Name == "sqlite3/markdown":
		for i, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			if !strings.HasPrefix(l, "|") || !strings.HasSuffix(l, "|") {
				t.Errorf("line %d is not a table row: %q", i+1, l)
				break
			}
		}
	case it.Grow.Prefix == "[":
		if !strings.HasPrefix(text, "[{") || !strings.HasSuffix(text, "}]") {
			t.Errorf("the grown text is not a Python list of dicts: %.200s", text)
		}
	}
	if orig != nil && it.Grow.By != "items" && !strings.HasPrefix(text, firstLine(orig.Text)[:min(100, len(firstLine(orig.Text)))]) {
		t.Errorf("the grown text does not start as the recorded one: %.200q", text)
	}
}

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return cmp.Equal(x, y)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func TestGrowJSON(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"a top-level array keeps its separator", `[1, 2, 3]`, `[1, 2, 3, 1, 2, 3]`},
		{"indented elements keep their indentation", "[\n  {\"a\": 1},\n  {\"a\": 2}\n]", "[\n  {\"a\": 1},\n  {\"a\": 2},\n  {\"a\": 1},\n  {\"a\": 2}\n]"},
		{"one element borrows the space before it", "{\"items\": [\n  {\"a\": 1}\n], \"total\": 1}", "{\"items\": [\n  {\"a\": 1},\n  {\"a\": 1}\n], \"total\": 1}"},
		{"the largest array grows, not the first", `{"a":[1],"b":[{"x":[10,20,30]}]}`, `{"a":[1],"b":[{"x":[10,20,30]},{"x":[10,20,30]}]}`},
		{"the array with the most bytes outside white space grows", "{\"a\":[\n        1,\n        2\n    ],\"b\":[\"xyz\"]}", "{\"a\":[\n        1,\n        2\n    ],\"b\":[\"xyz\",\"xyz\"]}"},
		{"brackets and escapes in strings are text", `["a]\"[", "b,c"]`, `["a]\"[", "b,c", "a]\"[", "b,c"]`},
		{"numbers stay as written", `[1e400, 12345678901234567890, -0.0]`, `[1e400, 12345678901234567890, -0.0, 1e400, 12345678901234567890, -0.0]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := growJSON([]byte(tt.doc), 2)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	for _, doc := range []string{`{}`, `[]`, `"x"`, `not json`} {
		if _, err := growJSON([]byte(doc), 2); err == nil {
			t.Errorf("growJSON(%q): no error, want one (nothing to grow)", doc)
		}
	}
}
