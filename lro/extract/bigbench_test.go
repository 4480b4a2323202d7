package extract_test

import (
	"context"
	"fmt"
	"github.com/zircote/lro-go/lro"
	"os"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro/extract"
)

// BenchmarkStreamingMemory runs a streaming recipe (recipe 2, a namespace
// filter that selects a few records, whose plan skips the others without
// decoding them) and the same filter as a caller's query (which decodes
// every record) over files of 100 MB and 1 GB of full-detail records and
// reports the peak growth of the heap during the call: flat memory means
// the same peak for both sizes. It writes 1.1 GB of files, so it runs only
// with LRO_BIG=1.
func BenchmarkStreamingMemory(b *testing.B) {
	if os.Getenv("LRO_BIG") == "" {
		b.Skip("set LRO_BIG=1 to run (writes 1.1 GB)")
	}
	dir := b.TempDir()
	for _, size := range []int64{100 << 20, 1 << 30} {
		path, n := bigFile(b, dir, size)
		for _, call := range []struct {
			name string
			args map[string]any
		}{
			// One record in 100,000 is in this namespace.
			{"recipe", map[string]any{"file_path": path, "recipe": 2, "params": map[string]any{"namespace": "_rare"}}},
			{"query", map[string]any{"file_path": path, "query": `select(.namespace | strings | startswith("_rare"))`}},
		} {
			b.Run(fmt.Sprintf("%dMB/%s", size>>20, call.name), func(b *testing.B) {
				streamingPeak(b, dir, path, n, size, call.args)
			})
		}
	}
}

// streamingPeak runs one call of BenchmarkStreamingMemory.
func streamingPeak(b *testing.B, dir, path string, n int, size int64, args map[string]any) {
	cs := session(b, &extract.Options{LRO: &lro.Options{OutputDir: dir, ThresholdTokens: 1 << 30}, Timeout: 10 * time.Minute, MaxInputBytes: 2 << 30})
	var peak int64
	for b.Loop() {
		runtime.GC()
		base := heapObjects()
		var max atomic.Int64
		done := make(chan struct{})
		go func() {
			t := time.NewTicker(time.Millisecond)
			defer t.Stop()
			for {
				select {
				case <-done:
					return
				case <-t.C:
					if g := heapObjects() - base; g > max.Load() {
						max.Store(g)
					}
				}
			}
		}()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: extract.ToolExtract, Arguments: args})
		close(done)
		if err != nil || res.IsError {
			b.Fatalf("%v %v", err, res.Content)
		}
		if got := len(lines(res.Content[0].(*mcp.TextContent).Text)); got != n/100_000+1 {
			b.Fatalf("%d results, want %d", got, n/100_000+1)
		}
		peak = max.Load()
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(size)/(1<<20), "file-MB")
}

func heapObjects() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// bigFile writes an offloaded file of about size bytes of benchMemories
// records and returns its path and record count.
func bigFile(b *testing.B, dir string, size int64) (string, int) {
	b.Helper()
	recs := benchMemories(100_000)
	rare := recs[0].(map[string]any)
	rare["namespace"] = "_rare"
	per := int64(650) // bytes of one record line, about

	n := int(size / per)
	w, err := jsonl.Create("recall", &jsonl.Options{Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Abort()
	if err := w.WriteHeader(jsonl.Header{Operation: "recall", Count: n, SchemaVersion: "1.0", Detail: "full"}); err != nil {
		b.Fatal(err)
	}
	for i := range n {
		if err := w.WriteRecord(valueLine(recs[i%len(recs)])); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		b.Fatal(err)
	}
	return w.Path(), n
}
