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
	"gocloud.dev/blob/memblob"

	"github.com/zircote/lro-go/internal/testing/sidebyside"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/store"
	"github.com/zircote/lro-go/lro/store/blobstore"
)

// recordsHandler builds its result from records as a real handler does:
// marshal them into a JSON text result.
func recordsHandler(records []lro.BenchMemory) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		data, err := json.Marshal(records)
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(data)}}}, nil
	}
}

// BenchmarkInlineOverhead compares a wrapped handler whose result stays
// inline with the bare handler, with the default options. Target:
// wrapped/bare <= 1.03.
func BenchmarkInlineOverhead(b *testing.B) {
	records := lro.BenchMemories(8) // ~1,240 tokens: below the threshold
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
// a new file (see offloadVsWrite in bench_internal_test.go). The options
// are the defaults: redaction and the preview are on. Target:
// offload/marshal_write <= 1.6. The paper measured a 23.9 ms median for its
// file write.
func BenchmarkOffload500(b *testing.B) {
	records := lro.BenchMemories(500)
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

// BenchmarkOffload500Store compares offloading 500 full-detail records into
// a Store, a folder one and a memory bucket, with offloading them into
// OutputDir without a Store: the cost of the handle (its random part, the
// handle field, the resource link) and of the store's writer. Each arm
// deletes, untimed, the file it wrote before.
func BenchmarkOffload500Store(b *testing.B) {
	records := lro.BenchMemories(500)
	ctx := context.Background()
	arm := func(name string, opts *lro.Options, remove func(d offloadResponse)) sidebyside.Arm {
		wrapped := lro.Wrap(recordsHandler(records), opts)
		var last *mcp.CallToolResult
		return sidebyside.Arm{
			Name: name,
			Prep: func() {
				if last == nil {
					return
				}
				var d offloadResponse
				if err := json.Unmarshal([]byte(last.Content[0].(*mcp.TextContent).Text), &d); err != nil || !d.Offloaded {
					b.Fatalf("%s: not offloaded: %v", name, err)
				}
				remove(d)
			},
			Run: func() { last, _ = wrapped(ctx, lro.OffloadRequest) },
		}
	}
	plain := arm("no_store", &lro.Options{OutputDir: b.TempDir()}, func(d offloadResponse) { os.Remove(d.FilePath) })
	b.Run("folder", func(b *testing.B) {
		st, err := store.Open(context.Background(), b.TempDir(), nil)
		if err != nil {
			b.Fatal(err)
		}
		sidebyside.Run(b, arm("folder_store", &lro.Options{Store: st}, func(d offloadResponse) { os.Remove(d.FilePath) }), plain)
	})
	b.Run("bucket", func(b *testing.B) {
		bucket := memblob.OpenBucket(nil)
		defer bucket.Close()
		st, err := store.NewBucket(blobstore.New(bucket), nil)
		if err != nil {
			b.Fatal(err)
		}
		sidebyside.Run(b, arm("bucket_store", &lro.Options{Store: st}, func(d offloadResponse) { bucket.Delete(ctx, d.Handle) }), plain)
	})
}
