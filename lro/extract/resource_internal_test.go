package extract

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/offload"
	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro/store"
)

// TestReadResourceCopiesOnce reads a 16 MB result with resources/read: the
// handler allocates about the object's size, once (the text go-sdk sends),
// not a growing buffer and a copy of it.
func TestReadResourceCopiesOnce(t *testing.T) {
	st, err := store.NewFolder(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	w, err := st.Create(context.Background(), "recall")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	const records = 16 << 10
	if err := w.WriteHeader(jsonl.Header{Operation: "recall", Count: records}); err != nil {
		t.Fatal(err)
	}
	for range records {
		if err := w.WriteValue(strings.Repeat("y", 1000)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	c, err := newConfig(&Options{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	req := &mcp.ReadResourceRequest{Params: &mcp.ReadResourceParams{URI: offload.ResultURIPrefix + w.Name()}}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	res, err := c.readResource(context.Background(), req)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	size := len(res.Contents[0].Text)
	if size < records*1000 {
		t.Fatalf("%d bytes of text", size)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(size+size/4) {
		t.Errorf("allocated %d bytes (%.2fx) to read a %d-byte result", alloc, float64(alloc)/float64(size), size)
	}
}
