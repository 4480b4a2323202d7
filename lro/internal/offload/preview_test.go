package offload

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/rawjson"
	"github.com/zircote/lro-go/internal/testing/realshapes"
	"github.com/zircote/lro-go/lro/internal/describe"
)

// listing returns n records of a generic listing as a JSON array: an
// identifier, a title (long enough to be cut for the last), a status, a
// measure, a constant and a null field, a time and prose.
func listing(n int) string {
	recs := make([]map[string]any, n)
	for i := range recs {
		recs[i] = map[string]any{
			"id":          1000 + i,
			"title":       fmt.Sprintf("Fix the parser for case %d", i),
			"status":      []string{"open", "closed", "merged"}[i%3],
			"stars":       i * 37 % 1000,
			"kind":        "project",
			"parent":      nil,
			"created_at":  fmt.Sprintf("2026-%02d-%02dT10:00:00Z", 1+i%12, 1+i%28),
			"description": fmt.Sprintf("A longer description of project %d, which says what it does and why.", i),
		}
	}
	recs[n-1]["title"] = "A title of the last record, long enough to be cut in a preview"
	data, _ := json.Marshal(recs)
	return string(data)
}

// logLines returns n lines of a log, the last one long.
func logLines(n int) string {
	var b strings.Builder
	for i := range n - 1 {
		fmt.Fprintf(&b, "2026-12-01T10:%02d:%02d INFO request %d served\n", i/60%60, i%60, i)
	}
	b.WriteString("2026-12-01T11:00:00 ERROR " + strings.Repeat("x", 100) + "\n")
	return b.String()
}

// csvTable returns a CSV table of n rows.
func csvTable(n int) string {
	var b strings.Builder
	b.WriteString("id,name,status,total\n")
	for i := range n {
		fmt.Fprintf(&b, "%d,customer number %d,%s,%d\n", i+1, i+1, []string{"paid", "due"}[i%2], i*7%100)
	}
	return b.String()
}

// previewOfResult offloads a result of the text with c and returns its
// descriptor.
func previewOfResult(t *testing.T, c *Config, text string) testDescriptor {
	t.Helper()
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	if !c.Apply(context.Background(), func() Call { return Call{Tool: "list"} }, res, nil, nil).Offloaded {
		t.Fatal("not offloaded")
	}
	var d testDescriptor
	if err := json.Unmarshal(res.StructuredContent.(json.RawMessage), &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestPreview: the descriptor shows the first two records and the last,
// projected to the fields the listing recipe chooses (never the constant
// kind or the null parent), long strings cut with a mark, and says which
// of how many; lines and rows alike.
func TestPreview(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
		note       string
	}{
		{"listing", listing(3000), []string{
			`{"id":1000,"title":"Fix the parser for case 0","status":"open","stars":0}`,
			`{"id":1001,"title":"Fix the parser for case 1","status":"closed","stars":37}`,
			`{"id":3999,"title":"A title of the last record, long enough …","status":"merged","stars":963}`,
		}, "3 of 3000 records: the first 2 and the last, projected, cut at …; count and filter on the file"},
		{"lines", logLines(2000), []string{
			`{"line":1,"text":"2026-12-01T10:00:00 INFO request 0 served"}`,
			`{"line":2,"text":"2026-12-01T10:00:01 INFO request 1 served"}`,
			`{"line":2000,"text":"2026-12-01T11:00:00 ERROR ` + strings.Repeat("x", 74) + `…"}`,
		}, "3 of 2000 lines: the first 2 and the last, cut at …; count and filter on the file"},
		{"table", csvTable(1000), []string{
			`{"id":1,"name":"customer number 1","status":"paid","total":0}`,
			`{"id":2,"name":"customer number 2","status":"due","total":7}`,
			`{"id":1000,"name":"customer number 1000","status":"due","total":93}`,
		}, "3 of 1000 rows: the first 2 and the last; count and filter on the file"},
		{"few records, all shown", `[{"id":"a","body":"` + strings.Repeat("word ", 2000) + `"},{"id":"b","body":"x"}]`, []string{
			`{"id":"a"}`, `{"id":"b"}`,
		}, "2 of 2 records, projected; count and filter on the file"},
		{"scalars", `[` + strings.Repeat(`"`+strings.Repeat("z", 50)+`",`, 400) + `1e400]`, []string{
			`"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz…"`, `"zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz…"`, `"1e400"`,
		}, "3 of 401 records: the first 2 and the last, cut at …, numbers beyond float64 as strings; count and filter on the file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := previewOfResult(t, testConfigAt(t, 1600), tt.text)
			if d.Preview == nil {
				t.Fatal("no preview")
			}
			got := make([]string, len(d.Preview.Records))
			for i, r := range d.Preview.Records {
				got[i] = string(r)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.note, d.Preview.Note); diff != "" {
				t.Errorf("note (-want +got):\n%s", diff)
			}
		})
	}
}

// testConfigAt is testConfig with threshold, a TTL and the default preview.
func testConfigAt(t *testing.T, threshold int) *Config {
	c := testConfig(t)
	c.Threshold = threshold
	c.TTL = time.Hour
	return c
}

// TestPreviewZero: without a preview (Preview negative), the descriptor
// has the specification's fields, and expires_at, and nothing more.
func TestPreviewZero(t *testing.T) {
	c := testConfigAt(t, 1600)
	c.Preview = -1
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: listing(300)}}}
	if !c.Apply(context.Background(), func() Call { return Call{Tool: "list"} }, res, nil, nil).Offloaded {
		t.Fatal("not offloaded")
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal(res.StructuredContent.(json.RawMessage), &got); err != nil {
		t.Fatal(err)
	}
	want := []string{"expires_at", "file_path", "guidance", "jq_recipes", "line_schema", "offloaded", "summary"}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range got {
			if !yield(k) {
				return
			}
		}
	})
	if diff := cmp.Diff(want, keys); diff != "" {
		t.Errorf("descriptor fields (-want +got):\n%s", diff)
	}
}

// TestExpiresAt: the descriptor says when the file expires, once, in RFC
// 3339, no later than the expiry recorded with the file.
func TestExpiresAt(t *testing.T) {
	now := time.Date(2026, 12, 1, 10, 30, 15, 999_000_000, time.FixedZone("CET", 3600))
	c := testConfigAt(t, 1600)
	c.Now = func() time.Time { return now }
	c.TTL = 90 * time.Minute
	d := previewOfResult(t, c, listing(300))
	if d.ExpiresAt != "2026-12-01T11:00:15Z" {
		t.Errorf("expires_at = %q, want 2026-12-01T11:00:15Z", d.ExpiresAt)
	}
	data, _ := json.Marshal(d)
	if n := strings.Count(string(data), "2026-12-01T11:00:15"); n != 1 {
		t.Errorf("the expiry is said %d times", n)
	}
	c.TTL = 0
	if d := previewOfResult(t, c, listing(300)); d.ExpiresAt != "" {
		t.Errorf("without a TTL, expires_at = %q", d.ExpiresAt)
	}
}

// TestPreviewWithinThreshold: a descriptor with its preview never passes
// the threshold: at a low one it shows fewer records, then none; at a
// high one, every descriptor of records (the real shapes of the corpus and
// the shapes above) shows some.
func TestPreviewWithinThreshold(t *testing.T) {
	type shape struct {
		name string
		res  func() *mcp.CallToolResult
	}
	text := func(s string) func() *mcp.CallToolResult {
		return func() *mcp.CallToolResult {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
		}
	}
	shapes := []shape{
		{"listing", text(listing(3000))},
		{"lines", text(logLines(2000))},
		{"table", text(csvTable(1000))},
		{"wide records", text(`[` + strings.Repeat(`{"a":"`+strings.Repeat("y", 500)+`","b":[[1,[2]],{"c":{"d":1}}],"e":1e400},`, 30) + `{"a":"z"}]`)},
	}
	items, err := realshapes.Items()
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		shapes = append(shapes, shape{"realshapes/" + it.Name, func() *mcp.CallToolResult {
			var r mcp.CallToolResult
			data, _ := json.Marshal(it.Result)
			if err := json.Unmarshal(data, &r); err != nil {
				t.Fatal(err)
			}
			if sc, ok := it.Result.StructuredContent.(json.RawMessage); ok {
				r.StructuredContent = sc
			}
			return &r
		}})
	}
	for _, threshold := range []int{150, 400, 800, 1600, 4000} {
		shown := 0
		for _, s := range shapes {
			c := testConfigAt(t, threshold)
			c.Always = true
			res := s.res()
			if !c.Apply(context.Background(), func() Call { return Call{Tool: "t"} }, res, nil, nil).Offloaded {
				continue
			}
			sc := res.StructuredContent.(json.RawMessage)
			var d testDescriptor
			if err := json.Unmarshal(sc, &d); err != nil {
				t.Fatalf("%s: %v", s.name, err)
			}
			if d.Preview == nil {
				if threshold == 4000 && d.Summary.Count > 0 {
					t.Errorf("threshold %d, %s: no preview, %d tokens, %d records", threshold, s.name, c.Tokenizer.Tokens(sc), d.Summary.Count)
				}
				continue
			}
			shown++
			if tokens := c.Tokenizer.Tokens(sc); tokens > threshold {
				t.Errorf("threshold %d, %s: the descriptor with its preview of %d records is %d tokens", threshold, s.name, len(d.Preview.Records), tokens)
			}
		}
		if threshold == 150 && shown > 0 {
			t.Errorf("threshold 150: %d descriptors have a preview, below any descriptor's size", shown)
		}
	}
}

// TestPreviewShrinks: when the budget is short, the preview shows fewer
// records before it shows none.
func TestPreviewShrinks(t *testing.T) {
	c := testConfigAt(t, 100000)
	c.Always = true
	full := previewOfResult(t, c, listing(300))
	data, _ := json.Marshal(full)
	withTwo := len(data) - len(full.Preview.Records[1]) - 1
	c = testConfigAt(t, c.Tokenizer.Tokens(data[:withTwo]))
	c.Always = true
	d := previewOfResult(t, c, listing(300))
	if d.Preview == nil || len(d.Preview.Records) != 2 {
		t.Fatalf("preview within %d tokens: %+v", c.Threshold, d.Preview)
	}
	if !strings.HasPrefix(d.Preview.Note, "2 of 300 records: the first 1 and the last,") {
		t.Errorf("note %q", d.Preview.Note)
	}
}

// TestNumbersBeyondFloat64AreText: a number that a float64 cannot hold,
// which go-sdk's client refuses in a whole result, is shown as its text in
// the preview and beside the records; the file keeps it as it is.
func TestNumbersBeyondFloat64AreText(t *testing.T) {
	items := make([]string, 300)
	for i := range items {
		items[i] = fmt.Sprintf(`{"id":%d,"name":"item %d","size":%d,"status":"%s"}`, i, i, i%7, []string{"a", "b"}[i%2])
	}
	items[0] = `{"id":0,"name":"item 0","size":1e400,"status":"a"}`
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: `{"total":1e400,"items":[` + strings.Join(items, ",") + `]}`}}}
	c := testConfigAt(t, 1600)
	if !c.Apply(context.Background(), func() Call { return Call{Tool: "t"} }, res, nil, nil).Offloaded {
		t.Fatal("not offloaded")
	}
	sc := res.StructuredContent.(json.RawMessage)
	var v any
	if err := json.Unmarshal(sc, &v); err != nil {
		t.Fatalf("the descriptor does not decode into Go values: %v\n%s", err, sc)
	}
	var d testDescriptor
	_ = json.Unmarshal(sc, &d)
	if d.Beside == nil || string(d.Beside.Values) != `{".content[0].text.total":"1e400"}` {
		t.Errorf("beside = %+v", d.Beside)
	}
	if d.Preview == nil || !strings.Contains(string(d.Preview.Records[0]), `"size":"1e400"`) || !strings.Contains(d.Preview.Note, "numbers beyond float64 as strings") {
		t.Errorf("preview = %+v", d.Preview)
	}
	if _, lines, _ := readBack(t, res); !strings.Contains(string(lines[0]), `"size":1e400`) {
		t.Errorf("the file's first record is %s", lines[0])
	}
}

// TestBesideLeavesOutCopies: a structured content that only repeats the
// text item ({"content": text}, as server-filesystem's read_text_file
// returns) is not named beside the records; one that holds more is.
func TestBesideLeavesOutCopies(t *testing.T) {
	text := listing(300)
	for _, tt := range []struct {
		name, sc string
		beside   bool
	}{
		{"a copy of the text", `{"content":` + string(rawjson.AppendQuote(nil, text)) + `}`, false},
		{"a copy and a total", `{"content":` + string(rawjson.AppendQuote(nil, text)) + `,"total":300}`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: json.RawMessage(tt.sc)}
			if !testConfigAt(t, 1600).Apply(context.Background(), func() Call { return Call{Tool: "t"} }, res, nil, nil).Offloaded {
				t.Fatal("not offloaded")
			}
			var d testDescriptor
			_ = json.Unmarshal(res.StructuredContent.(json.RawMessage), &d)
			if (d.Beside != nil) != tt.beside {
				t.Errorf("beside = %+v, want one: %v", d.Beside, tt.beside)
			}
			if _, _, rebuilt := readBack(t, res); !strings.Contains(string(rebuilt), `"structuredContent":`+tt.sc) {
				t.Errorf("the structured content does not come back: %.200s", rebuilt)
			}
		})
	}
}

// testDescriptor decodes a descriptor in the engine's tests, every field
// (TestPreviewShrinks encodes it again).
type testDescriptor struct {
	Offloaded bool `json:"offloaded"`
	Summary   *struct {
		Count           int         `json:"count"`
		EstimatedTokens int         `json:"estimated_tokens"`
		Operation       string      `json:"operation"`
		TopNamespaces   []string    `json:"top_namespaces"`
		ScoreRange      *[2]float64 `json:"score_range"`
		Detail          string      `json:"detail"`
	} `json:"summary,omitempty"`
	FilePath   string              `json:"file_path"`
	Handle     string              `json:"handle,omitempty"`
	ExpiresAt  string              `json:"expires_at,omitempty"`
	LineSchema map[string]any      `json:"line_schema,omitempty"`
	JqRecipes  []describe.JqRecipe `json:"jq_recipes,omitempty"`
	Guidance   string              `json:"guidance,omitempty"`
	Beside     *describe.Beside    `json:"beside,omitempty"`
	Preview    *describe.Preview   `json:"preview,omitempty"`
}
