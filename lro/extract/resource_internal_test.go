package extract

import (
	"bytes"
	"context"
	"encoding/json"
	"github.com/zircote/lro-go/lro"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro/internal/describe"
	"github.com/zircote/lro-go/lro/store"
)

// TestReadResourceCopiesOnce reads a 16 MB result with resources/read: the
// handler allocates about the object's size, once (the text go-sdk sends),
// not a growing buffer and a copy of it.
func TestReadResourceCopiesOnce(t *testing.T) {
	st, err := store.Open(context.Background(), t.TempDir(), nil)
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
		if err := w.WriteRecord(valueLine(strings.Repeat("y", 1000))); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	c, err := newConfig(&Options{LRO: &lro.Options{Store: st}})
	if err != nil {
		t.Fatal(err)
	}
	req := resourceRequest(filepath.Base(w.Path()))
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

func resourceRequest(handle string) *mcp.ReadResourceRequest {
	return &mcp.ReadResourceRequest{Params: &mcp.ReadResourceParams{URI: describe.ResultURIPrefix + handle}}
}

// storeResult writes a result of n records of size bytes to st and returns
// its handle.
func storeResult(t *testing.T, st *store.Store, n, size int) string {
	t.Helper()
	w, err := st.Create(context.Background(), "recall")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := w.WriteHeader(jsonl.Header{Operation: "recall", Count: n}); err != nil {
		t.Fatal(err)
	}
	for range n {
		if err := w.WriteRecord(valueLine(strings.Repeat("<", size))); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	return filepath.Base(w.Path())
}

// TestReadResourceHoldsItsSlot: a read of lro://results/{handle} keeps its
// Workers slot until the request's context ends, which go-sdk does once
// it has written the answer; a request cancelled before its answer gets an
// error and its slot back; a read returns at most a 32nd of MaxMemoryBytes.
func TestReadResourceHoldsItsSlot(t *testing.T) {
	st, err := store.Open(context.Background(), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := newConfig(&Options{LRO: &lro.Options{Store: st}, Workers: 2, Timeout: time.Second, MaxMemoryBytes: 32 << 20})
	if err != nil {
		t.Fatal(err)
	}
	small := storeResult(t, st, 10, 100)
	// read reads handle; written is what go-sdk does once it has written
	// the answer.
	read := func(handle string) (written context.CancelFunc, err error) {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		_, err = c.readResource(ctx, resourceRequest(handle))
		return cancel, err
	}
	var written []context.CancelFunc
	for range 2 {
		w, err := read(small)
		if err != nil {
			t.Fatal(err)
		}
		written = append(written, w)
	}
	// Both answers wait to be written: a third read waits for a slot, and
	// runs out of time.
	if _, err := read(small); err == nil || !strings.Contains(err.Error(), "waiting for one of the 2 workers") {
		t.Fatalf("a third read while two answers wait to be written: %v", err)
	}
	written[0]()
	w, err := read(small)
	if err != nil {
		t.Fatalf("a read once an answer is written: %v", err)
	}
	written[0] = w
	// A read cancelled before its answer gets an error, and its slot back.
	written[1]()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.readResource(cancelled, resourceRequest(small)); err == nil {
		t.Error("a read cancelled before its answer: no error")
	}
	w, err = read(small)
	if err != nil {
		t.Fatalf("a read after a cancelled one: %v", err)
	}
	w()
	written[0]()
	ctx := context.Background()
	// A 32nd of 32 MiB, less 64 KiB, is the most one read returns, as
	// go-sdk encodes it.
	large := storeResult(t, st, 2, 1<<19)
	if _, err := c.readResource(ctx, resourceRequest(large)); err == nil || !strings.Contains(err.Error(), "more than the 983040 bytes one read may return") {
		t.Errorf("a read of more than a 32nd of MaxMemoryBytes: %v", err)
	}
	escaped := storeResult(t, st, 1, 400_000)
	if _, err := c.readResource(ctx, resourceRequest(escaped)); err == nil || !strings.Contains(err.Error(), "as go-sdk encodes it") {
		t.Errorf("a read of 400 KB of <, 2.4 MB encoded: %v", err)
	}
}

// TestReadResourceBlob: an object that is not UTF-8 is returned whole as a
// blob (go-sdk would turn its text into U+FFFD), within the same bound as
// go-sdk encodes it, in base64.
func TestReadResourceBlob(t *testing.T) {
	st, err := store.Open(context.Background(), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	c, err := newConfig(&Options{LRO: &lro.Options{Store: st}, MaxMemoryBytes: 32 << 20})
	if err != nil {
		t.Fatal(err)
	}
	put := func(value []byte) (string, []byte) {
		w, err := st.Create(context.Background(), "recall")
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		if err := w.WriteHeader(jsonl.Header{Operation: "recall", Count: 1}); err != nil {
			t.Fatal(err)
		}
		if err := w.WriteValid(value); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		rd, _, err := st.NewRangeReader(context.Background(), filepath.Base(w.Path()), 0, -1)
		if err != nil {
			t.Fatal(err)
		}
		defer rd.Close()
		data, err := io.ReadAll(rd)
		if err != nil {
			t.Fatal(err)
		}
		return filepath.Base(w.Path()), data
	}
	handle, data := put([]byte("\"caf\xe9\""))
	res, err := c.readResource(context.Background(), resourceRequest(handle))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Contents[0]; got.Text != "" || !bytes.Equal(got.Blob, data) {
		t.Errorf("text %q, blob %q; want the object %q as a blob", got.Text, got.Blob, data)
	}
	// 900,000 bytes fit in the 983,040 of a 32nd of 32 MiB, less 64 KiB,
	// but not in base64.
	large, _ := put([]byte("\"" + strings.Repeat("\xe9", 900_000) + "\""))
	if _, err := c.readResource(context.Background(), resourceRequest(large)); err == nil || !strings.Contains(err.Error(), "in base64") {
		t.Errorf("a read of 900 KB that is not UTF-8: %v", err)
	}
}

// valueLine returns the JSON of v as one record line, as json.Marshal
// writes it but without escaping <, > and &.
func valueLine(v any) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}
