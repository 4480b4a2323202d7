package lro_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/sidebyside"
	"github.com/zircote/lro-go/lro"
)

// benchMemory is a full-detail memory record of about 155 tokens (~620
// characters), the paper's average.
type benchMemory struct {
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

func benchMemories(n int) []benchMemory {
	ns := []string{"_semantic/decisions", "_semantic/architecture", "_episodic/sessions", "_procedural/runbooks"}
	out := make([]benchMemory, n)
	for i := range out {
		out[i] = benchMemory{
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
	return out
}

// recordsHandler builds its result from records as a real handler does:
// marshal them into a JSON text result.
func recordsHandler(records []benchMemory) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		data, err := json.Marshal(records)
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(data)}}}, nil
	}
}

// BenchmarkInlineOverhead compares a wrapped handler whose result stays
// inline with the bare handler. Target: wrapped/bare <= 1.05.
func BenchmarkInlineOverhead(b *testing.B) {
	records := benchMemories(8) // ~1,240 tokens: below the threshold
	bare := recordsHandler(records)
	wrapped := lro.Wrap(bare, &lro.Options{OutputDir: b.TempDir()})
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "recall_memories", Arguments: json.RawMessage(`{"query":"cache"}`)}}
	ctx := context.Background()
	if res, _ := wrapped(ctx, req); len(res.Content) != 1 || len(res.Content[0].(*mcp.TextContent).Text) < 1000 {
		b.Fatal("wrapped result is not the inline records")
	}
	sidebyside.Run(b, sidebyside.Arm{Name: "wrapped", Run: func() { _, _ = wrapped(ctx, req) }}, sidebyside.Arm{Name: "bare", Run: func() { _, _ = bare(ctx, req) }})
}

// BenchmarkOffload500 compares offloading 500 full-detail records (the
// wrapped handler: its own marshal, then the file and the descriptor) with
// plain json.Marshal and os.WriteFile of the same records, each arm writing
// a new file (see offloadVsWrite in steps_bench_test.go). Target:
// offload/marshal_write <= 1.5. The paper measured a 23.9 ms median for its
// file write.
func BenchmarkOffload500(b *testing.B) {
	records := benchMemories(500)
	dir := b.TempDir()
	wrapped := lro.Wrap(recordsHandler(records), &lro.Options{OutputDir: dir})
	ctx := context.Background()
	lro.OffloadVsWrite(b, dir, records, "offload", func() (*mcp.CallToolResult, error) {
		return wrapped(ctx, lro.OffloadRequest)
	})
}

// BenchmarkOffloadMemoryFlat offloads a result of 1,000,000 small records
// and reports the heap the offload itself allocates beyond the result it is
// given, per record: streaming keeps it near zero, where buffering the file
// would cost at least the file's size (~50 bytes a record).
func BenchmarkOffloadMemoryFlat(b *testing.B) {
	for _, n := range []int{10_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			type small struct {
				ID int    `json:"id"`
				K  string `json:"k"`
			}
			recs := make([]small, n)
			for i := range recs {
				recs[i] = small{ID: i, K: fmt.Sprintf("key-%d", i%1000)}
			}
			data, _ := json.Marshal(recs)
			result := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(data)}}}
			dir := b.TempDir()
			h := lro.Wrap(func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: result.Content}, nil
			}, &lro.Options{OutputDir: dir})
			req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "big"}}
			var before, after runtime.MemStats
			var perRecord float64
			for b.Loop() {
				runtime.GC()
				runtime.ReadMemStats(&before)
				res, err := h(context.Background(), req)
				runtime.ReadMemStats(&after)
				if err != nil || !json.Valid([]byte(res.Content[0].(*mcp.TextContent).Text)) {
					b.Fatal("offload failed")
				}
				perRecord = float64(after.TotalAlloc-before.TotalAlloc) / float64(n)
				entries, _ := os.ReadDir(dir)
				for _, e := range entries {
					os.Remove(filepath.Join(dir, e.Name()))
				}
			}
			b.ReportMetric(perRecord, "alloc-B/record")
			b.ReportMetric(float64(len(data))/float64(n), "input-B/record")
		})
	}
}
