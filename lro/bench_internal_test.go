package lro

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/testing/sidebyside"
)

// benchMemory is a full-detail memory record of about 155 tokens (~620
// characters), the paper's average: the record of the offload benchmarks,
// here and in package lro_test (as BenchMemory).
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

// benchMemories returns n records.
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

// BenchmarkOffload500Typed is BenchmarkOffload500 for a typed tool, the
// handler AddTool registers (as the example memory server uses): the
// handler returns the 500 records as Go values, and the decorator marshals
// them once, walks them, writes the file and builds the descriptor. The
// baseline and the default options are BenchmarkOffload500's. Target:
// offload_typed/marshal_write <= 1.6.
func BenchmarkOffload500Typed(b *testing.B) {
	records := benchMemories(500)
	dir := b.TempDir()
	c := mustConfig(&Options{OutputDir: dir})
	c.RecordType = reflect.TypeFor[benchMemory]() // as AddTool finds it
	h := wrapTyped(func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, []benchMemory, error) {
		return nil, records, nil
	}, c)
	ctx := context.Background()
	offloadVsWrite(b, dir, records, "offload_typed", func() (*mcp.CallToolResult, error) {
		res, _, err := h(ctx, offloadRequest, struct{}{})
		return res, err
	})
}

// offloadRequest is the call of the offload benchmarks.
var offloadRequest = &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "recall_memories", Arguments: json.RawMessage(`{"query":"cache","detail":"full"}`)}}

// offloadVsWrite runs an offload benchmark: the arm name, which calls
// offload, against json.Marshal and os.WriteFile of records, side by side.
// Both arms write a new file into dir each time, as an offload does, and the
// files stay until the end (the janitor removes offloaded files later, not
// during a call): a removal just before a timed call would leave the file
// system work that slows the next file's creation, in either arm. Each
// offload's descriptor is checked, untimed.
func offloadVsWrite(b *testing.B, dir string, records any, name string, offload func() (*mcp.CallToolResult, error)) {
	var last *mcp.CallToolResult
	check := func() {
		if last == nil {
			return
		}
		var d struct {
			FilePath string `json:"file_path"`
		}
		if len(last.Content) != 1 || json.Unmarshal([]byte(last.Content[0].(*mcp.TextContent).Text), &d) != nil || d.FilePath == "" {
			b.Fatal("the result was not offloaded")
		}
		if _, err := os.Stat(d.FilePath); err != nil {
			b.Fatal(err)
		}
	}
	n := 0
	offloadArm := sidebyside.Arm{
		Name: name,
		Prep: check,
		Run: func() {
			var err error
			if last, err = offload(); err != nil {
				b.Fatal(err)
			}
		},
	}
	marshalWrite := sidebyside.Arm{
		Name: "marshal_write",
		Run: func() {
			data, err := json.Marshal(records)
			if err != nil {
				b.Fatal(err)
			}
			n++
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("plain-%d.json", n)), data, 0o600); err != nil {
				b.Fatal(err)
			}
		},
	}
	sidebyside.Run(b, offloadArm, marshalWrite)
	check()
}
