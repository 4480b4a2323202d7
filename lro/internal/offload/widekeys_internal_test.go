package offload

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// wideRecords returns a JSON array of n records of width properties each.
func wideRecords(n, width int) string {
	var b strings.Builder
	b.WriteByte('[')
	for r := range n {
		if r > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('{')
		for k := range width {
			if k > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `"key_%d":%d`, k, r*width+k)
		}
		b.WriteByte('}')
	}
	return b.String() + "]"
}

// TestWideRecordsWithinThreshold: records of very many properties get a
// descriptor within the threshold, its line schema trimmed to the
// properties that fit, the recipes kept.
func TestWideRecordsWithinThreshold(t *testing.T) {
	for _, tt := range []struct{ records, width, threshold int }{
		{2, 1000, 1600},
		{2, 20000, 1600},
		{50, 300, 1600},
		{2, 5000, 800},
	} {
		c := testConfig(t)
		c.Threshold = tt.threshold
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: wideRecords(tt.records, tt.width)}}}
		if !c.Apply(context.Background(), func() Call { return Call{Tool: "t"} }, res, nil, nil).Changed() {
			t.Fatal("not offloaded")
		}
		sc := res.StructuredContent.(json.RawMessage)
		var d testDescriptor
		if err := json.Unmarshal(sc, &d); err != nil {
			t.Fatal(err)
		}
		tokens := c.Tokenizer.Tokens(sc)
		if tokens > tt.threshold || len(d.JqRecipes) != 10 {
			t.Errorf("%d records of %d properties: descriptor of %d tokens with %d recipes; want at most the threshold %d, with 10",
				tt.records, tt.width, tokens, len(d.JqRecipes), tt.threshold)
		}
		schema, _ := d.LineSchema["$comment"].(string)
		if !strings.Contains(schema, "properties are named") {
			t.Errorf("the line schema's comment %q does not say it names some properties", schema)
		}
		// Beyond the properties the inferred schema names, the count is a
		// bound.
		if more := tt.width > 4096; more != strings.Contains(schema, "of the record's more than 4096 properties") {
			t.Errorf("%d properties: the line schema's comment %q", tt.width, schema)
		}
	}
}

// BenchmarkWideRecords offloads 2 records of 250,000 properties, beside
// BenchmarkNarrowRecords, the same bytes as 25,000 records of 20: the ratio
// is what the width costs (the line schema's inference and trimming).
func BenchmarkWideRecords(b *testing.B) { benchmarkRecords(b, 2, 250_000) }

// BenchmarkNarrowRecords: see BenchmarkWideRecords.
func BenchmarkNarrowRecords(b *testing.B) { benchmarkRecords(b, 25_000, 20) }

func benchmarkRecords(b *testing.B, n, width int) {
	text := wideRecords(n, width)
	c := &Config{Threshold: 1600, Dir: b.TempDir(), Prefix: "atlatl", SchemaVersion: "1.0"}
	c = New(*c)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
		if !c.Apply(context.Background(), func() Call { return Call{Tool: "t"} }, res, nil, nil).Changed() {
			b.Fatal("not offloaded")
		}
	}
}

// TestBarePointerLastResort: a result whose descriptor cannot be made to
// fit even with its schema trimmed (a member name of 200 KB beside the
// records) is still offloaded, with the bare pointer.
func TestBarePointerLastResort(t *testing.T) {
	var items []string
	for i := range 50 {
		items = append(items, fmt.Sprintf(`{"id":%d}`, i))
	}
	text := `{"items":[` + strings.Join(items, ",") + `],"` + strings.Repeat("k", 200_000) + `":1}`
	c := testConfig(t)
	c.Threshold = 100
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	out := c.Apply(context.Background(), func() Call { return Call{Tool: "t"} }, res, nil, nil)
	if !out.Changed() || out.Fallback {
		t.Fatalf("outcome %+v, want an offload", out)
	}
	var d testDescriptor
	if err := json.Unmarshal(res.StructuredContent.(json.RawMessage), &d); err != nil {
		t.Fatal(err)
	}
	if !d.Offloaded || d.FilePath == "" || d.JqRecipes != nil {
		t.Errorf("descriptor %+v, want the bare pointer", d)
	}
}

// TestRankNames: the order a trimming keeps the record's properties in.
func TestRankNames(t *testing.T) {
	for _, tt := range []struct {
		reason   string
		props    []string
		required []string
		order    []string
		want     []string
	}{
		{"the first record's order", []string{"a", "b", "c"}, nil, []string{"c", "a", "b"}, []string{"c", "a", "b"}},
		{"required ones first, each group in order", []string{"a", "b", "c", "d"}, []string{"d", "b"}, []string{"a", "b", "c", "d"}, []string{"b", "d", "a", "c"}},
		{"names order lacks after, by name", []string{"z", "y", "x", "w"}, nil, []string{"y"}, []string{"y", "w", "x", "z"}},
		{"required names order lacks before the others", []string{"z", "y", "x", "w"}, []string{"z"}, []string{"y"}, []string{"z", "y", "w", "x"}},
		{"a name twice counts where it comes first", []string{"a", "b"}, nil, []string{"b", "a", "b"}, []string{"b", "a"}},
		{"names of order that are no property are left out", []string{"a"}, nil, []string{"q", "a"}, []string{"a"}},
		{"no order: by name", []string{"b", "a"}, []string{"b"}, nil, []string{"b", "a"}},
	} {
		props := map[string]any{}
		for _, p := range tt.props {
			props[p] = map[string]any{}
		}
		schema := map[string]any{"properties": props}
		if tt.required != nil {
			schema["required"] = tt.required
		}
		if diff := cmp.Diff(tt.want, rankNames(schema, tt.order)); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tt.reason, diff)
		}
	}
}

// TestMemberNamesStops: the first record's names are read only as far as
// the last the schema names, so that a record of very many properties
// beyond the schema's bound costs that far: allocations with 4 times the
// names beyond are less than 1.5 times as many.
func TestMemberNamesStops(t *testing.T) {
	props := map[string]any{}
	for k := range 100 {
		props[fmt.Sprintf("key_%d", k)] = map[string]any{}
	}
	allocs := func(width int) float64 {
		rec := []byte(wideRecords(1, width))
		rec = rec[1 : len(rec)-1] // the record, not the array
		return testing.AllocsPerRun(1, func() {
			if names := memberNames(rec, props); len(names) != 100 {
				t.Fatalf("%d names, want the 100 the schema names", len(names))
			}
		})
	}
	if n, n4 := allocs(10_000), allocs(40_000); n4 > 1.5*n {
		t.Errorf("a record of 10,000 properties: %.0f allocations; of 40,000: %.0f, want less than 1.5 times as many", n, n4)
	}
}
