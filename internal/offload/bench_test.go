package offload

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/estimate"
	"github.com/zircote/lro-go/internal/jsonlfile"
	"github.com/zircote/lro-go/internal/redact"
)

// discard is a jsonlfile.Sink that keeps nothing: the file system's cost (the
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
	c := &Config{Threshold: DefaultThreshold, Prefix: "atlatl", SchemaVersion: "1.0", Tokenizer: estimate.Heuristic{}, Now: time.Now, Redactor: redactor}
	c.Create = func(op string, o *jsonlfile.Options) (*jsonlfile.Writer, error) {
		return jsonlfile.NewWriter(op, func(string) (jsonlfile.Sink, error) { return discard{}, nil }, o)
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
			c := &Config{Threshold: DefaultThreshold, Prefix: "atlatl", SchemaVersion: "1.0", Tokenizer: estimate.Heuristic{}, Now: time.Now}
			c.Create = func(op string, o *jsonlfile.Options) (*jsonlfile.Writer, error) {
				return jsonlfile.NewWriter(op, func(string) (jsonlfile.Sink, error) { return discard{}, nil }, o)
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
