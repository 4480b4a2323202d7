package offload

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/redact"
	"github.com/zircote/lro-go/internal/spec"
	"github.com/zircote/lro-go/internal/tabular"
	"github.com/zircote/lro-go/jsonl"
)

// discard is a destination of jsonl.NewWriter that keeps nothing: the file system's cost (the
// same for any way of writing the bytes) is left out of BenchmarkApply.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) Commit() error               { return nil }
func (discard) Abort() error                { return nil }

// BenchmarkApply times the offload core's own work on a text result of 500
// full-detail memory records (lro's BenchmarkOffload500 without the
// handler's marshal and the file system): the estimate, the one read of the
// records, the writing of the lines and the descriptor.
func BenchmarkApply(b *testing.B) {
	// lro's benchMemory: a full-detail memory record of about 155 tokens.
	type memory struct {
		ID         string         `json:"id"`
		MemoryType string         `json:"memory_type"`
		Title      string         `json:"title"`
		Content    string         `json:"content"`
		Namespace  string         `json:"namespace"`
		Tags       []string       `json:"tags"`
		Status     string         `json:"status"`
		Created    string         `json:"created"`
		Modified   string         `json:"modified"`
		Summary    string         `json:"summary"`
		Provenance map[string]any `json:"provenance"`
	}
	ns := []string{"_semantic/decisions", "_semantic/architecture", "_episodic/sessions", "_procedural/runbooks"}
	recs := make([]memory, 500)
	for i := range recs {
		recs[i] = memory{
			ID:         fmt.Sprintf("0b7c%04x-1f2e-4d3c-8b9a-%012x", i%65536, i),
			MemoryType: []string{"semantic", "episodic", "procedural"}[i%3],
			Title:      fmt.Sprintf("Decision %d: cache invalidation strategy for the read path", i),
			Content:    "We decided to invalidate cache entries on write rather than on a timer, because stale reads were observed in the session logs after deploys; the change keeps p99 latency flat and removes a class of consistency bugs.",
			Namespace:  ns[i%len(ns)],
			Tags:       []string{"cache", "architecture", fmt.Sprintf("team-%d", i%5)},
			Status:     "active",
			Created:    "2026-10-01T12:00:00Z",
			Modified:   "2026-11-01T08:30:00Z",
			Summary:    "Invalidate on write; p99 stays flat.",
			Provenance: map[string]any{"confidence": 0.5 + float64(i%50)/100, "trust_level": "verified", "source_type": "agent", "agent": "claude"},
		}
	}
	compact, err := json.Marshal(recs)
	if err != nil {
		b.Fatal(err)
	}
	indented, err := json.MarshalIndent(recs, "", "  ")
	if err != nil {
		b.Fatal(err)
	}
	// With lro's defaults: redaction and the preview on.
	redactor, err := redact.New(nil)
	if err != nil {
		b.Fatal(err)
	}
	c := &Config{Threshold: spec.DefaultThreshold, Prefix: "atlatl", SchemaVersion: "1.0", Tokenizer: Heuristic{}, Now: time.Now, Redactor: redactor}
	c.Create = func(op string) (*jsonl.Writer, error) {
		return jsonl.NewWriter(discard{}, "", op), nil
	}
	describe := func() Call { return Call{Tool: "recall"} }
	// The text as json.Marshal prints it, and as JSON.stringify(x, null, 2)
	// and json.MarshalIndent do, whose layout is read and checked.
	for _, tc := range []struct {
		name string
		data []byte
	}{{"compact", compact}, {"indent=2", indented}} {
		b.Run(tc.name, func(b *testing.B) {
			text := string(tc.data)
			b.SetBytes(int64(len(tc.data)))
			b.ReportAllocs()
			for b.Loop() {
				res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
				c.Apply(context.Background(), describe, res, nil, nil)
				if sc, ok := res.StructuredContent.(json.RawMessage); !ok || !bytes.HasPrefix(sc, []byte(`{"offloaded":true`)) {
					b.Fatalf("not offloaded: %.200s", sc)
				}
			}
		})
	}
}

// BenchmarkManyTextItems offloads a result of n one-character text items,
// at 10k, 100k and 1M items: the time and memory per item stay the same.
func BenchmarkManyTextItems(b *testing.B) {
	for _, n := range []int{10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			items := make([]mcp.Content, n)
			for i := range items {
				items[i] = &mcp.TextContent{Text: "x"}
			}
			c := &Config{Threshold: spec.DefaultThreshold, Prefix: "atlatl", SchemaVersion: "1.0", Tokenizer: Heuristic{}, Now: time.Now}
			c.Create = func(op string) (*jsonl.Writer, error) {
				return jsonl.NewWriter(discard{}, "", op), nil
			}
			describe := func() Call { return Call{Tool: "t"} }
			b.ReportAllocs()
			for b.Loop() {
				res := &mcp.CallToolResult{Content: items}
				if !c.Apply(context.Background(), describe, res, nil, nil).Changed() {
					b.Fatal("not offloaded")
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/item")
		})
	}
}

// shapeRows returns n rows of a query result as cells (nil for a null): an
// id, a name, a city, an amount, a flag and a null, about 60 bytes a row.
func shapeRows(n int) (names []string, rows [][]*string) {
	names = []string{"id", "customer", "city", "total", "paid", "note"}
	s := func(v string) *string { return &v }
	for i := range n {
		rows = append(rows, []*string{
			s(fmt.Sprint(i)), s(fmt.Sprintf("Customer number %d", i%97)), s("Lyon"),
			s(fmt.Sprintf("%d.44", i%500)), s(fmt.Sprint(i % 2)), nil,
		})
	}
	return names, rows
}

// shapeText prints rows as one shape: JSON (an array of objects, compact
// or indented), JSON lines, a Python literal, CSV, TSV, or a Markdown table
// padded as tabulate pads one.
func shapeText(shape string, names []string, rows [][]*string) string {
	var b strings.Builder
	jsonCell := func(c *string, quoted bool) string {
		switch {
		case c == nil:
			return "null"
		case quoted:
			return strconv.Quote(*c)
		}
		return *c
	}
	isText := func(j int) bool { return j == 1 || j == 2 }
	switch shape {
	case "json", "json-indent", "json-lines":
		sep, open, colon, end := ",", "{", ":", "}"
		if shape == "json-indent" {
			sep, open, colon, end = ",\n    ", "{\n    ", ": ", "\n  }"
		}
		if shape != "json-lines" {
			b.WriteByte('[')
		}
		for i, r := range rows {
			switch {
			case shape == "json-lines":
			case i > 0 && shape == "json-indent":
				b.WriteString(",\n  ")
			case i > 0:
				b.WriteByte(',')
			case shape == "json-indent":
				b.WriteString("\n  ")
			}
			b.WriteString(open)
			for j, c := range r {
				if j > 0 {
					b.WriteString(sep)
				}
				b.WriteString(strconv.Quote(names[j]) + colon + jsonCell(c, isText(j)))
			}
			b.WriteString(end)
			if shape == "json-lines" {
				b.WriteByte('\n')
			}
		}
		switch shape {
		case "json-indent":
			b.WriteString("\n]")
		case "json":
			b.WriteByte(']')
		}
	case "python":
		b.WriteByte('[')
		for i, r := range rows {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('{')
			for j, c := range r {
				if j > 0 {
					b.WriteString(", ")
				}
				v := "None"
				if c != nil {
					v = *c
					if isText(j) {
						v = "'" + v + "'"
					}
				}
				b.WriteString("'" + names[j] + "': " + v)
			}
			b.WriteByte('}')
		}
		b.WriteString("]\n")
	case "csv", "tsv":
		sep := map[string]string{"csv": ",", "tsv": "\t"}[shape]
		b.WriteString(strings.Join(names, sep) + "\n")
		for _, r := range rows {
			for j, c := range r {
				if j > 0 {
					b.WriteString(sep)
				}
				if c != nil {
					b.WriteString(*c)
				}
			}
			b.WriteByte('\n')
		}
	case "markdown":
		widths := make([]int, len(names))
		for j, n := range names {
			widths[j] = len(n)
			for _, r := range rows {
				if r[j] != nil {
					widths[j] = max(widths[j], len(*r[j]))
				}
			}
		}
		line := func(cells []string) {
			b.WriteByte('|')
			for j, c := range cells {
				b.WriteString(" " + c + strings.Repeat(" ", widths[j]-len(c)) + " |")
			}
			b.WriteByte('\n')
		}
		line(names)
		b.WriteByte('|')
		for _, w := range widths {
			b.WriteString(strings.Repeat("-", w+2) + "|")
		}
		b.WriteByte('\n')
		cells := make([]string, len(names))
		for _, r := range rows {
			for j, c := range r {
				cells[j] = ""
				if c != nil {
					cells[j] = *c
				}
			}
			line(cells)
		}
	}
	return b.String()
}

// wideRows returns rows of width columns named c0, c1, ..., their cells
// numbers: a table or records of very many keys.
func wideRows(n, width int) (names []string, rows [][]*string) {
	for k := range width {
		names = append(names, "c"+strconv.Itoa(k))
	}
	for i := range n {
		r := make([]*string, width)
		for k := range r {
			v := strconv.Itoa(i*width + k)
			r[k] = &v
		}
		rows = append(rows, r)
	}
	return names, rows
}

// BenchmarkShapes offloads about 12 MB of the same rows printed in each
// shape a result's text is read in, through Apply (the offload core that
// lro.Wrap calls) with the file system left out: JSON (an array of
// objects), JSON indented, JSON lines (read as lines), a Python literal,
// CSV, TSV, a Markdown table, many text items of one JSON object each;
// then tables and records of very many columns (schema inference and
// trimming). Each shape's figures divided by json's are what
// reading that shape costs beside JSON of the same size. peak-heap-MB is
// the most the heap grew over one offload, sampled every millisecond after
// a collection.
func BenchmarkShapes(b *testing.B) {
	const size = 12 << 20
	names, rows := shapeRows(1)
	perRow := func(shape string) int {
		return len(shapeText(shape, names, append(rows, rows...))) - len(shapeText(shape, names, rows))
	}
	shapes := []string{"json", "json-indent", "json-lines", "python", "csv", "tsv", "markdown", "text-items"}
	// Wide tables and records: 3 rows (2 for JSON of 1,000,000 keys) of
	// 100,000 or 1,000,000 columns. A CSV of 1,000,000 columns, above
	// tabular.MaxBytes, stays lines.
	wide := map[string]struct{ rows, width int }{
		"csv-wide": {3, 100_000}, "tsv-wide": {3, 100_000}, "markdown-wide": {3, 100_000}, "json-wide": {3, 100_000},
		"csv-1m-cols": {3, 1_000_000}, "json-1m-keys": {2, 1_000_000},
	}
	for _, shape := range append(shapes, "csv-wide", "tsv-wide", "markdown-wide", "json-wide", "csv-1m-cols", "json-1m-keys") {
		b.Run(shape, func(b *testing.B) {
			var res func() *mcp.CallToolResult
			var text string
			switch shape {
			case "csv-wide", "tsv-wide", "markdown-wide", "json-wide", "csv-1m-cols", "json-1m-keys":
				names, rows := wideRows(wide[shape].rows, wide[shape].width)
				format, _, _ := strings.Cut(shape, "-")
				text = shapeText(format, names, rows)
			case "text-items":
				names, rows := shapeRows(size / perRow("json-lines"))
				lines := strings.Split(strings.TrimSuffix(shapeText("json-lines", names, rows), "\n"), "\n")
				items := make([]mcp.Content, len(lines))
				for i, l := range lines {
					items[i] = &mcp.TextContent{Text: l}
				}
				b.SetBytes(int64(len(lines) * perRow("json-lines")))
				res = func() *mcp.CallToolResult { return &mcp.CallToolResult{Content: items} }
			default:
				names, rows := shapeRows(size / perRow(shape))
				text = shapeText(shape, names, rows)
			}
			// Each table is read as one: what is measured is its reading.
			format, _, _ := strings.Cut(shape, "-")
			if tab, ok := tabular.Read(text); ok != (format != "json" && shape != "csv-1m-cols" && res == nil) || ok && tab.Format != format {
				b.Fatalf("%s: read as a table %v, of format %q", shape, ok, tab.Format)
			}
			if res == nil {
				b.SetBytes(int64(len(text)))
				res = func() *mcp.CallToolResult {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
				}
			}
			c := New(Config{Prefix: "atlatl", SchemaVersion: "1.0"})
			c.Create = func(op string) (*jsonl.Writer, error) {
				return jsonl.NewWriter(discard{}, "", op), nil
			}
			describe := func() Call { return Call{Tool: "query"} }
			b.ReportAllocs()
			var peak uint64
			for b.Loop() {
				r := res()
				grew := peakHeap(func() {
					if !c.Apply(context.Background(), describe, r, nil, nil).Offloaded {
						b.Fatal("not offloaded")
					}
				})
				peak = max(peak, grew)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
		})
	}
}

// peakHeap returns the most the heap's objects grew over fn, sampled every
// millisecond after a collection.
func peakHeap(fn func()) uint64 {
	runtime.GC()
	base := heapObjects()
	done := make(chan struct{})
	var top atomic.Uint64
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			top.Store(max(top.Load(), heapObjects()))
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	fn()
	top.Store(max(top.Load(), heapObjects()))
	close(done)
	<-stopped
	return top.Load() - min(base, top.Load())
}

// heapObjects reads the bytes of the heap's objects, live or not yet swept.
func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}
