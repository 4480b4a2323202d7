package extract_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/zircote/lro-go/internal/disk"
	"github.com/zircote/lro-go/internal/spec"
	"github.com/zircote/lro-go/lro"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"gocloud.dev/blob/memblob"

	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro/extract"
	"github.com/zircote/lro-go/lro/store"
	"github.com/zircote/lro-go/lro/store/blobstore"
)

// storeT0 is when the tests that let handles expire write their files: in
// a synctest bubble, whose clock they move there first.
var storeT0 = time.Date(2026, 11, 21, 13, 0, 0, 0, time.UTC)

// bucket is a bucket in memory that counts the GETs and can cut them:
// after cut bytes, a GET fails (cutErr), stalls until its context ends
// (stall), or ends early.
type bucket struct {
	store.Bucket
	mu      sync.Mutex
	lengths []int64 // the length of each GET
	cut     int64   // 0: no cut
	cutErr  error
	stall   bool
}

func newBucket(t testing.TB) *bucket {
	mem := memblob.OpenBucket(nil)
	t.Cleanup(func() { mem.Close() })
	return &bucket{Bucket: blobstore.New(mem)}
}

func (b *bucket) NewRangeReader(ctx context.Context, key string, offset, length int64) (io.ReadCloser, int64, error) {
	r, size, err := b.Bucket.NewRangeReader(ctx, key, offset, length)
	b.mu.Lock()
	defer b.mu.Unlock()
	b.lengths = append(b.lengths, length)
	if err != nil || b.cut == 0 {
		return r, size, err
	}
	return &cutReader{ReadCloser: r, left: b.cut, err: b.cutErr, stall: b.stall, ctx: ctx}, size, nil
}

// gets returns the lengths of the GETs since the last call.
func (b *bucket) gets() []int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	l := b.lengths
	b.lengths = nil
	return l
}

func (b *bucket) keys(t testing.TB) []string {
	t.Helper()
	var keys []string
	if err := b.List(context.Background(), "", func(key string) error {
		keys = append(keys, key)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return keys
}

type cutReader struct {
	io.ReadCloser
	left  int64
	err   error
	stall bool
	ctx   context.Context
}

func (r *cutReader) Read(p []byte) (int, error) {
	if r.left <= 0 {
		if r.stall {
			<-r.ctx.Done()
			return 0, r.ctx.Err()
		}
		if r.err != nil {
			return 0, r.err
		}
		return 0, io.EOF
	}
	n, err := r.ReadCloser.Read(p[:min(int64(len(p)), r.left)])
	r.left -= int64(n)
	return n, err
}

// newStore returns a Store over b, whose handles live an hour.
func newStore(t testing.TB, b store.Bucket) *store.Store {
	t.Helper()
	st, err := store.NewBucket(b, &store.Options{TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// put writes records to st as the offloader does, with the header of
// offload, and returns the handle.
func put(t testing.TB, st *store.Store, detail string, records []any) string {
	t.Helper()
	w, err := st.Create(context.Background(), "recall")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := w.WriteHeader(jsonl.Header{Operation: "recall", Count: len(records), SchemaVersion: "1.0", EstimatedTokens: 99999, Detail: detail}); err != nil {
		t.Fatal(err)
	}
	for _, r := range records {
		if err := w.WriteRecord(valueLine(r)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	return filepath.Base(w.Path())
}

// object returns the bytes of the file of handle.
func object(t testing.TB, st *store.Store, handle string) []byte {
	t.Helper()
	r, _, err := st.NewRangeReader(context.Background(), handle, 0, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// storeRecords are the records of the store tests: memories, and one
// record far longer than lro_read's buffer.
func storeRecords() []any {
	return append(memories(40, "full"), map[string]any{"id": "long", "namespace": "_semantic", "text": strings.Repeat("abcdéfgh日 ", 30_000) + "needle"})
}

// TestStoreCallsMatchFolder makes the same calls of the three tools on a
// result kept in a bucket, by handle, and on the same records in a folder,
// by file_path, and wants the same answers: the bucket is read like a file
// (recipes, queries, where and count, line and character ranges of a
// 300 KB line, searches with and without snippets).
func TestStoreCallsMatchFolder(t *testing.T) {
	records := storeRecords()
	dir := t.TempDir()
	path := offload(t, dir, "full", records)
	b := newBucket(t)
	st := newStore(t, b)
	handle := put(t, st, "full", records)
	folder := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir, ThresholdTokens: 1 << 30}})
	bucket := session(t, &extract.Options{LRO: &lro.Options{Store: st, ThresholdTokens: 1 << 30}})

	calls := []struct {
		tool string
		args map[string]any
	}{
		{extract.ToolExtract, map[string]any{"query": `select(.memory_type == "episodic") | {id, title}`}},
		{extract.ToolExtract, map[string]any{"query": `group_by(.namespace) | map({n: .[0].namespace, c: length})`, "slurp": true}},
		{extract.ToolExtract, map[string]any{"query": `.id`, "raw": true}},
		{extract.ToolExtract, map[string]any{"where": map[string]any{"namespace": map[string]any{"prefix": "_semantic"}}, "count": true}},
		{extract.ToolExtract, map[string]any{"where": map[string]any{"tags": "cache"}, "fields": []string{"id", "title"}}},
		{extract.ToolExtract, map[string]any{"query": `.text | length`}},
		{extract.ToolRead, map[string]any{"line": 3, "limit": 4}},
		{extract.ToolRead, map[string]any{"line": 2, "limit": 2, "char_offset": 10, "max_chars": 20}},
		{extract.ToolRead, map[string]any{"line": 42, "char_offset": 150_000, "max_chars": 1000}},
		{extract.ToolRead, map[string]any{"line": 40}},
		{extract.ToolSearch, map[string]any{"pattern": "rollback", "max_results": 3}},
		{extract.ToolSearch, map[string]any{"pattern": "rollback", "start_line": 20}},
		{extract.ToolSearch, map[string]any{"pattern": "needle"}},
		{extract.ToolSearch, map[string]any{"pattern": "no such text"}},
	}
	for n := 1; n <= 10; n++ {
		calls = append(calls, struct {
			tool string
			args map[string]any
		}{extract.ToolExtract, map[string]any{"recipe": n}})
	}
	for _, c := range calls {
		t.Run(fmt.Sprintf("%s %v", c.tool, c.args), func(t *testing.T) {
			byPath, byHandle := map[string]any{"file_path": path}, map[string]any{"handle": handle}
			for k, v := range c.args {
				byPath[k], byHandle[k] = v, v
			}
			want, wantErr := call(t, folder, c.tool, byPath)
			got, gotErr := call(t, bucket, c.tool, byHandle)
			if wantErr || gotErr {
				t.Fatalf("errors: folder %v %q, bucket %v %q", wantErr, want, gotErr, got)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-folder +bucket):\n%s", diff)
			}
		})
	}

	// Line 1 is the object's own header line.
	texts, isErr := call(t, bucket, extract.ToolRead, map[string]any{"handle": handle, "limit": 1})
	head, _, _ := strings.Cut(string(object(t, st, handle)), "\n")
	if isErr || !strings.HasPrefix(texts[0], "1: "+head+"\n") {
		t.Errorf("line 1: %v %q, want the header %q", isErr, texts, head)
	}

	// A file_path whose base name is the handle: where a client saved the
	// object, or where the descriptor says it would be.
	want, _ := call(t, bucket, extract.ToolExtract, map[string]any{"handle": handle, "recipe": 4})
	for _, p := range []string{"/tmp/" + handle, `C:\Users\me\lro\` + handle, handle} {
		got, isErr := call(t, bucket, extract.ToolExtract, map[string]any{"file_path": p, "recipe": 4})
		if isErr || !slices.Equal(got, want) {
			t.Errorf("file_path %q: %v %q, want %q", p, isErr, got, want)
		}
	}
}

// TestStoreOneGet wants each call to read an object with one GET, of at
// most MaxInputBytes + 1 bytes, whether the server reads it (lro_read) or
// hands it to a worker after reading its header (lro_extract,
// lro_search).
func TestStoreOneGet(t *testing.T) {
	b := newBucket(t)
	st := newStore(t, b)
	handle := put(t, st, "full", memories(30, "full"))
	const limit = 1 << 20
	cs := session(t, &extract.Options{LRO: &lro.Options{Store: st}, MaxInputBytes: limit})
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{extract.ToolExtract, map[string]any{"handle": handle, "recipe": 1}},
		{extract.ToolRead, map[string]any{"handle": handle, "line": 10}},
		{extract.ToolSearch, map[string]any{"handle": handle, "pattern": "cache"}},
	} {
		b.gets()
		if texts, isErr := call(t, cs, c.tool, c.args); isErr {
			t.Fatalf("%s: %q", c.tool, texts)
		}
		if got := b.gets(); !slices.Equal(got, []int64{limit + 1}) {
			t.Errorf("%s: GETs of %v bytes, want one of %d", c.tool, got, limit+1)
		}
	}
}

// TestStoreHandleErrors calls each tool with handles that are malformed,
// unknown or expired, and with both or neither of handle and file_path,
// and wants a tool error that says which.
func TestStoreHandleErrors(t *testing.T) {
	b := newBucket(t)
	st := newStore(t, b)
	handle := put(t, st, "light", memories(3, "light"))
	op, id, _ := disk.ParseName(handle, st.Prefix())
	cs := session(t, &extract.Options{LRO: &lro.Options{Store: st}})
	// A handle of the right form that names no object: another random part.
	missing := strings.TrimSuffix(handle, ".jsonl")
	missing = missing[:len(missing)-32] + strings.Repeat("0", 32) + ".jsonl"
	tests := []struct {
		name string
		args map[string]any
		want []string
	}{
		{"malformed", map[string]any{"handle": "not-a-handle"}, []string{"unknown handle", "not a handle of this server"}},
		{"a path as a handle", map[string]any{"handle": "../../etc/passwd"}, []string{"unknown handle", "not a handle of this server"}},
		{"a file_path that is no handle", map[string]any{"file_path": "/etc/passwd"}, []string{`file_path "/etc/passwd"`, "unknown handle", "not a handle of this server"}},
		{"a name without its random part", map[string]any{"handle": disk.Name(st.Prefix(), op, id)}, []string{"unknown handle", "not a handle of this server"}},
		{"the file_path of a descriptor", map[string]any{"file_path": "/tmp/" + disk.Name(st.Prefix(), op, id)}, []string{"unknown handle", "give the descriptor's handle"}},
		{"unknown", map[string]any{"handle": missing}, []string{"unknown handle", "no such result"}},
		{"empty", map[string]any{"handle": ""}, []string{"handle is empty"}},
		{"not a string", map[string]any{"handle": 7}, []string{"handle must be a string"}},
		{"both", map[string]any{"handle": handle, "file_path": "/tmp/" + handle}, []string{"either handle or file_path, not both"}},
		{"neither", map[string]any{}, []string{"give handle", "or file_path"}},
	}
	args := map[string]map[string]any{
		extract.ToolExtract: {"recipe": 1},
		extract.ToolRead:    {},
		extract.ToolSearch:  {"pattern": "x"},
	}
	check := func(t *testing.T, tool string, a map[string]any, want []string) {
		t.Helper()
		for k, v := range args[tool] {
			a[k] = v
		}
		texts, isErr := call(t, cs, tool, a)
		text := strings.Join(texts, "\n")
		for _, w := range want {
			if !isErr || !strings.Contains(text, w) {
				t.Errorf("%s(%v): %v %q, want a tool error containing %q", tool, a, isErr, text, w)
			}
		}
	}
	for _, tt := range tests {
		for tool := range args {
			t.Run(tt.name+"/"+tool, func(t *testing.T) {
				a := map[string]any{}
				for k, v := range tt.args {
					a[k] = v
				}
				check(t, tool, a, tt.want)
			})
		}
	}

	// The handle works until its TTL passes, then says it expired, though
	// the object is still there: a store, a handle and a session of their
	// own, on the clock of a bubble moved to storeT0.
	synctest.Test(t, func(t *testing.T) {
		time.Sleep(storeT0.Sub(time.Now()))
		st := newStore(t, newBucket(t))
		handle := put(t, st, "light", memories(3, "light"))
		cs = session(t, &extract.Options{LRO: &lro.Options{Store: st}}) // the session that check calls from here
		if texts, isErr := call(t, cs, extract.ToolRead, map[string]any{"handle": handle}); isErr {
			t.Fatalf("before expiry: %q", texts)
		}
		time.Sleep(storeT0.Add(time.Hour + 30*time.Second).Sub(time.Now())) // a bucket's expiry counts from the write's deadline (store.Options.WriteTimeout)
		for tool := range args {
			check(t, tool, map[string]any{"handle": handle}, []string{"expired handle", "expired at 2026-11-21T14:00:30Z"})
			check(t, tool, map[string]any{"file_path": "/tmp/" + handle}, []string{"expired handle"})
		}
	})
}

// TestStoreFolder reads a folder Store: by handle, by the file_path of the
// descriptor, not past the handle's TTL, and not the files of the folder
// that are no handles of the Store.
func TestStoreFolder(t *testing.T) {
	// The store and lro run on time.Now: the bubble's clock, moved to
	// storeT0 and on.
	synctest.Test(t, func(t *testing.T) {
		time.Sleep(storeT0.Sub(time.Now()))
		dir := t.TempDir()
		st, err := store.Open(context.Background(), dir, &store.Options{TTL: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		handle := put(t, st, "light", memories(5, "light"))
		plain := offload(t, dir, "light", memories(5, "light")) // no random part
		cs := session(t, &extract.Options{LRO: &lro.Options{Store: st, OutputDir: dir}})
		want := `"id":"01J00000000000000000000004"`
		for _, args := range []map[string]any{
			{"handle": handle, "recipe": 4},
			{"file_path": filepath.Join(dir, handle), "recipe": 4},
			{"file_path": handle, "recipe": 4},
		} {
			texts, isErr := call(t, cs, extract.ToolExtract, args)
			if isErr || !strings.Contains(texts[0], want) {
				t.Errorf("%v: %v %q", args, isErr, texts)
			}
		}
		for _, tt := range []struct {
			args map[string]any
			want string
		}{
			{map[string]any{"file_path": plain, "recipe": 4}, "not a handle of this server"},
			{map[string]any{"handle": "sub/" + handle, "recipe": 4}, "is not a handle"},
			{map[string]any{"file_path": "/etc/" + handle, "recipe": 4}, "outside the output folder"},
		} {
			texts, isErr := call(t, cs, extract.ToolExtract, tt.args)
			if !isErr || !strings.Contains(texts[0], tt.want) {
				t.Errorf("%v: %v %q, want an error containing %q", tt.args, isErr, texts, tt.want)
			}
		}
		time.Sleep(storeT0.Add(2 * time.Hour).Sub(time.Now()))
		texts, isErr := call(t, cs, extract.ToolSearch, map[string]any{"handle": handle, "pattern": "x"})
		if !isErr || !strings.Contains(texts[0], "expired handle") {
			t.Errorf("expired: %v %q", isErr, texts)
		}
	})
}

// TestHandleWithoutStore: without a Store, a handle is the bare name of a
// file in Dir.
func TestHandleWithoutStore(t *testing.T) {
	dir := t.TempDir()
	path := offload(t, dir, "light", memories(5, "light"))
	cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir}})
	texts, isErr := call(t, cs, extract.ToolRead, map[string]any{"handle": filepath.Base(path), "line": 2, "limit": 1})
	if isErr || !strings.HasPrefix(texts[0], "2: {") {
		t.Errorf("handle: %v %q", isErr, texts)
	}
	texts, isErr = call(t, cs, extract.ToolRead, map[string]any{"handle": path})
	if !isErr || !strings.Contains(texts[0], "is not a handle") {
		t.Errorf("a path as a handle: %v %q", isErr, texts)
	}
}

// TestStoreOptions wants Dir and Prefix, when given with a Store, to be
// the Store's.
func TestStoreOptions(t *testing.T) {
	dir := t.TempDir()
	folder, err := store.Open(context.Background(), dir, &store.Options{Prefix: "srv"})
	if err != nil {
		t.Fatal(err)
	}
	bucket, err := store.NewBucket(newBucket(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		opts extract.Options
		want string // "" for valid
	}{
		{"a folder Store alone", extract.Options{LRO: &lro.Options{Store: folder}}, ""},
		{"its folder and prefix", extract.Options{LRO: &lro.Options{Store: folder, OutputDir: dir, Prefix: "srv"}}, ""},
		{"its folder, relative", extract.Options{LRO: &lro.Options{Store: folder, OutputDir: filepath.Join(dir, "x", "..")}}, ""},
		{"another folder", extract.Options{LRO: &lro.Options{Store: folder, OutputDir: t.TempDir()}}, "Options.LRO.OutputDir"},
		{"another prefix", extract.Options{LRO: &lro.Options{Store: folder, Prefix: "atlatl"}}, "Options.LRO.Prefix"},
		{"a bucket Store alone", extract.Options{LRO: &lro.Options{Store: bucket}}, ""},
		{"a folder with a bucket", extract.Options{LRO: &lro.Options{Store: bucket, OutputDir: dir}}, "Options.LRO.OutputDir"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.opts.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("Validate() = %v", err)
			case tt.want != "" && (!errors.Is(err, lro.ErrInvalidOption) || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Validate() = %v, want ErrInvalidOption naming %s", err, tt.want)
			}
		})
	}
}

// TestStoreCutGet cuts the GET of an object after a line, with an error
// or with an early end, and wants every tool to fail saying so rather than
// answer from part of the result as if it were whole.
func TestStoreCutGet(t *testing.T) {
	for _, cutErr := range []error{errors.New("connection reset by peer"), nil} {
		b := newBucket(t)
		st := newStore(t, b)
		records := memories(400, "full")
		handle := put(t, st, "full", records)
		data := object(t, st, handle)
		cs := session(t, &extract.Options{LRO: &lro.Options{Store: st, ThresholdTokens: 1 << 30}})
		// At the end of a line: a cut object would pass for one of fewer
		// records.
		b.cut, b.cutErr = int64(bytes.IndexByte(data[len(data)/2:], '\n')+len(data)/2+1), cutErr
		want := "ended after"
		if cutErr != nil {
			want = "connection reset by peer"
		}
		goroutines := runtime.NumGoroutine()
		for _, c := range []struct {
			tool string
			args map[string]any
		}{
			{extract.ToolExtract, map[string]any{"query": `.id`}},
			{extract.ToolExtract, map[string]any{"query": `length`, "slurp": true}},
			{extract.ToolRead, map[string]any{"line": 400}},
			{extract.ToolSearch, map[string]any{"pattern": "Decision 399:"}},
		} {
			c.args["handle"] = handle
			texts, isErr := call(t, cs, c.tool, c.args)
			text := strings.Join(texts, "\n")
			if !isErr || !strings.Contains(text, want) || !strings.Contains(text, "reading "+handle+": the store") {
				t.Errorf("%s(%v), GET cut with %v: %v %q, want a tool error containing %q", c.tool, c.args, cutErr, isErr, truncated(text), want)
			}
		}
		waitGoroutines(t, goroutines)
	}
}

// TestStoreStalledGet stalls the GET of an object after a line, as a slow
// store would, and wants each tool stopped at its time limit, saying so,
// with no goroutine left behind. The stall does not end: the error names
// the limit that ended the call; the wall clock only bounds how long the
// test waits (wallBound), and BenchmarkTimeLimit measures how long past its
// limit a call ends.
func TestStoreStalledGet(t *testing.T) {
	b := newBucket(t)
	st := newStore(t, b)
	handle := put(t, st, "full", memories(400, "full"))
	data := object(t, st, handle)
	const timeout = time.Second
	cs := session(t, &extract.Options{LRO: &lro.Options{Store: st}, Timeout: timeout})
	b.cut, b.stall = int64(bytes.IndexByte(data[len(data)/2:], '\n')+len(data)/2+1), true
	goroutines := runtime.NumGoroutine()
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{extract.ToolExtract, map[string]any{"query": `length`, "slurp": true}},
		{extract.ToolRead, map[string]any{"line": 400}},
		{extract.ToolSearch, map[string]any{"pattern": "Decision 399:"}},
	} {
		c.args["handle"] = handle
		start := time.Now()
		texts, isErr := call(t, cs, c.tool, c.args)
		if d := time.Since(start); d > wallBound(timeout) {
			t.Errorf("%s: the call took %v, more than ten times its time limit plus one second", c.tool, d)
		}
		if text := strings.Join(texts, "\n"); !isErr || !strings.Contains(text, "time limit") {
			t.Errorf("%s(%v): %v %q, want a tool error naming the time limit", c.tool, c.args, isErr, truncated(text))
		}
	}
	waitGoroutines(t, goroutines)
}

// waitGoroutines waits for the goroutines to come back to n (a call's
// goroutines end with it; the SDK's may take a moment, longer on a loaded
// machine; one left behind never does).
func waitGoroutines(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for runtime.NumGoroutine() > n+2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if got := runtime.NumGoroutine(); got > n+2 {
		t.Errorf("%d goroutines after the calls, %d before", got, n)
	}
}

// TestStoreLimits runs hostile queries and reads on an object of a bucket
// and wants them stopped at the same limits as on a file: time (the error
// names it; see TestStoreStalledGet), memory, MaxInputBytes, and a worker
// that stops reading before the object's end, with no goroutine left
// behind and the next call answered normally.
func TestStoreLimits(t *testing.T) {
	b := newBucket(t)
	st := newStore(t, b)
	small := put(t, st, "light", memories(1, "light"))
	big := put(t, st, "full", memories(5000, "full")) // about 2.5 MB
	// timed: its limit also bounds the next call, a worker's start and a
	// small recipe, which missed 1 s under -race on a loaded machine.
	timed := session(t, &extract.Options{LRO: &lro.Options{Store: st}, Timeout: 5 * time.Second, MaxMemoryBytes: 64 << 20})
	untimed := session(t, &extract.Options{LRO: &lro.Options{Store: st}, Timeout: 10 * time.Minute, MaxMemoryBytes: 16 << 20})
	// Not the time limit: MaxInputBytes must stop them, however slowly a
	// loaded machine gets there (a search missed the default 10 s).
	input := session(t, &extract.Options{LRO: &lro.Options{Store: st}, MaxInputBytes: 1 << 20, Timeout: 10 * time.Minute})
	goroutines := runtime.NumGoroutine()
	for _, tt := range []struct {
		name string
		cs   *mcp.ClientSession
		tool string
		args map[string]any
		want string
	}{
		{"a loop in constant memory", timed, extract.ToolExtract, map[string]any{"handle": small, "query": `def f: f; f`}, "time limit"},
		{"a 2 GB string in one step", untimed, extract.ToolExtract, map[string]any{"handle": small, "query": `"xx" * 1e9`}, "MaxMemoryBytes"},
		{"recursion that builds a value", untimed, extract.ToolExtract, map[string]any{"handle": small, "query": `def f: [f]; f`}, "MaxMemoryBytes"},
		{"a slurp past MaxInputBytes", input, extract.ToolExtract, map[string]any{"handle": big, "query": `length`, "slurp": true}, "MaxInputBytes"},
		{"a search past MaxInputBytes", input, extract.ToolSearch, map[string]any{"handle": big, "pattern": "no such text"}, "MaxInputBytes"},
		{"a read past MaxInputBytes", input, extract.ToolRead, map[string]any{"handle": big, "line": 4000}, "MaxInputBytes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			texts, isErr := call(t, tt.cs, tt.tool, tt.args)
			if text := strings.Join(texts, "\n"); !isErr || !strings.Contains(text, tt.want) {
				t.Errorf("%v %q, want a tool error containing %q", isErr, truncated(text), tt.want)
			}
			if tt.cs == timed {
				if d := time.Since(start); d > wallBound(5*time.Second) {
					t.Errorf("the call took %v, more than ten times its time limit plus one second", d)
				}
			}
			texts, isErr = call(t, tt.cs, extract.ToolExtract, map[string]any{"handle": small, "recipe": 4})
			if isErr || !strings.Contains(texts[0], `"id":"01J00000000000000000000000"`) {
				t.Errorf("the next call: %v %q", isErr, texts)
			}
		})
	}
	// A worker that has its answer before the end of the object: the
	// first match of a search, and the first record of a query.
	texts, isErr := call(t, timed, extract.ToolSearch, map[string]any{"handle": big, "pattern": "Decision", "max_results": 1})
	if isErr || !strings.Contains(texts[0], `{"file_line":2,`) {
		t.Errorf("first match: %v %q", isErr, texts)
	}
	texts, isErr = call(t, timed, extract.ToolExtract, map[string]any{"handle": big, "query": `.id, halt`})
	if isErr || texts[0] != `"01J00000000000000000000000"` {
		t.Errorf("first record: %v %q", isErr, texts)
	}
	waitGoroutines(t, goroutines)
}

// TestStoreOffloadedInTurn wants an lro_extract answer above the threshold
// written to the bucket it read from, whole, and queryable by the handle
// of its descriptor.
func TestStoreOffloadedInTurn(t *testing.T) {
	b := newBucket(t)
	st := newStore(t, b)
	handle := put(t, st, "full", memories(60, "full"))
	inline := session(t, &extract.Options{LRO: &lro.Options{Store: st, ThresholdTokens: 1 << 30}})
	small := session(t, &extract.Options{LRO: &lro.Options{Store: st, ThresholdTokens: 300}})
	args := map[string]any{"handle": handle, "query": `{id, title, namespace}`}
	want, isErr := call(t, inline, extract.ToolExtract, args)
	if isErr {
		t.Fatal(want)
	}
	res, err := small.CallTool(context.Background(), &mcp.CallToolParams{Name: extract.ToolExtract, Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("%v %v", err, res)
	}
	var d struct {
		Offloaded bool   `json:"offloaded"`
		Handle    string `json:"handle"`
		FilePath  string `json:"file_path"`
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(raw, &d); err != nil || !d.Offloaded {
		t.Fatalf("not offloaded: %v %s", err, raw)
	}
	if d.Handle == "" {
		os.Remove(d.FilePath) // written in the default folder instead
		t.Fatalf("the answer was offloaded to a folder, not to the Store: descriptor %s", raw)
	}
	keys := b.keys(t)
	if !slices.Contains(keys, d.Handle) || len(keys) != 2 {
		t.Fatalf("descriptor handle %q, bucket holds %q", d.Handle, keys)
	}
	// The new object holds the answer's lines, whole.
	got, isErr := call(t, inline, extract.ToolExtract, map[string]any{"handle": d.Handle, "query": `.`})
	if isErr || got[0] != want[0] {
		t.Errorf("the offloaded answer, read back: %v\n%.300q\nwant\n%.300q", isErr, got, want)
	}
}

// TestResultResource reads stored results with resources/read.
func TestResultResource(t *testing.T) {
	// The store runs on time.Now: the bubble's clock, moved to storeT0 and
	// on.
	synctest.Test(t, func(t *testing.T) {
		time.Sleep(storeT0.Sub(time.Now()))
		b := newBucket(t)
		st := newStore(t, b)
		handle := put(t, st, "full", storeRecords())
		data := object(t, st, handle)
		cs := session(t, &extract.Options{LRO: &lro.Options{Store: st}})
		ctx := context.Background()

		var templates []string
		for tmpl, err := range cs.ResourceTemplates(ctx, nil) {
			if err != nil {
				t.Fatal(err)
			}
			templates = append(templates, tmpl.URITemplate+" "+tmpl.MIMEType)
		}
		if !slices.Equal(templates, []string{"lro://results/{handle} application/jsonl"}) {
			t.Errorf("templates %q", templates)
		}

		uri := "lro://results/" + handle
		res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Contents) != 1 || res.Contents[0].Text != string(data) || res.Contents[0].URI != uri || res.Contents[0].MIMEType != "application/jsonl" {
			t.Errorf("contents %+.200v, want the %d bytes of the object", res.Contents, len(data))
		}

		// Larger than MaxOutputBytes, less the 64 KiB left for the message
		// around the text: refused, pointing to the tools.
		limited := session(t, &extract.Options{LRO: &lro.Options{Store: st}, MaxOutputBytes: len(data) - 1 + 64<<10})
		_, err = limited.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%d bytes, more than the %d bytes", len(data), len(data)-1)) || !strings.Contains(err.Error(), "lro_read") {
			t.Errorf("too large: %v", err)
		}

		notFound := func(uri, want string) {
			t.Helper()
			_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
			var je *jsonrpc.Error
			if !errors.As(err, &je) || je.Code != mcp.CodeResourceNotFound || !strings.Contains(je.Message, want) {
				t.Errorf("%s: %v, want resource not found, %q", uri, err, want)
			}
		}
		notFound("lro://results/nope", "unknown handle")
		notFound("lro://results/"+disk.Name(st.Prefix(), "recall", ulidFor(t, 1)), "not a handle of this server")
		time.Sleep(storeT0.Add(time.Hour + 30*time.Second).Sub(time.Now())) // a bucket's expiry counts from the write's deadline (store.Options.WriteTimeout)
		notFound(uri, "expired handle")
	})
}

// TestResultResourceRefusesAHardLink reads, with resources/read, a handle
// of a folder Store whose file is a hard link to a file outside the
// folder: refused as no stored result, nothing of the file shown.
func TestResultResourceRefusesAHardLink(t *testing.T) {
	const secret = "not-for-the-model"
	dir, outside := t.TempDir(), t.TempDir()
	st, err := store.Open(context.Background(), dir, &store.Options{TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	handle := put(t, st, "full", memories(3, "full"))
	forged := strings.Replace(handle, handle[len(handle)-38:len(handle)-6], strings.Repeat("b", 32), 1)
	if err := os.WriteFile(filepath.Join(outside, forged), []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(outside, forged), filepath.Join(dir, forged)); err != nil {
		t.Fatal(err)
	}
	cs := session(t, &extract.Options{LRO: &lro.Options{Store: st}})
	ctx := context.Background()
	if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "lro://results/" + handle}); err != nil {
		t.Fatalf("the stored result: %v", err)
	}
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "lro://results/" + forged})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != mcp.CodeResourceNotFound || !strings.Contains(je.Message, "hard link") || strings.Contains(fmt.Sprint(err), secret) {
		t.Errorf("a hard link: %v, want resource not found naming the hard link", err)
	}
}

// TestStoreToolsSayRetention checks that with a Store the tools'
// descriptions say how long a result is kept (the protocol's guidance on
// handles), and with a bucket that lro_extract names results by handle
// (the others answer a file_path with an error that says so); without a
// Store they say neither.
func TestStoreToolsSayRetention(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts *extract.Options
		want []string
	}{
		{"bucket", &extract.Options{LRO: &lro.Options{Store: newStore(t, newBucket(t))}}, []string{"Results expire after 1h (an error says so)."}},
		{"no store", &extract.Options{LRO: &lro.Options{OutputDir: t.TempDir()}}, nil},
		{"folder store", &extract.Options{LRO: &lro.Options{Store: func() *store.Store {
			st, err := store.Open(context.Background(), t.TempDir(), &store.Options{TTL: 90 * time.Minute})
			if err != nil {
				t.Fatal(err)
			}
			return st
		}()}}, []string{"Results expire after 1h30m (an error says so)."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cs := session(t, tc.opts)
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, tool := range res.Tools {
				for _, w := range tc.want {
					if !strings.Contains(tool.Description, w) {
						t.Errorf("%s: description lacks %q", tool.Name, w)
					}
				}
				if tc.want == nil && strings.Contains(tool.Description, "expire") {
					t.Errorf("%s: a retention without a store", tool.Name)
				}
				if byHandle := tool.Name == extract.ToolExtract && tc.name == "bucket"; byHandle != strings.Contains(tool.Description, "Use handle: not on your disk.") {
					t.Errorf("%s: description %q, want the note on handles: %v", tool.Name, tool.Description, byHandle)
				}
			}
		})
	}
}

// TestStoreHeaderLineEndings hands a worker objects whose header line ends
// with "\r\n", or with "\r" and no more, and wants the worker to read them
// as the server did: the same records, and MaxInputBytes counted exactly
// (an object of exactly the limit is read, one byte more is not).
func TestStoreHeaderLineEndings(t *testing.T) {
	b := newBucket(t)
	st := newStore(t, b)
	for _, tt := range []struct {
		name    string
		records []any
		rewrite func(data []byte) []byte
		want    []string
	}{
		{"CRLF", memories(3, "full"), func(data []byte) []byte { return bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n")) },
			[]string{"01J00000000000000000000000\n01J00000000000000000000001\n01J00000000000000000000002"}},
		{"CR at the end of a header-only object", nil, func(data []byte) []byte { return append(bytes.TrimSuffix(data, []byte("\n")), '\r') },
			[]string{"No results: the filter produced no output on 0 records."}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			handle := put(t, st, "full", tt.records)
			data := tt.rewrite(object(t, st, handle))
			w, err := b.NewWriter(context.Background(), handle, spec.ContentType, storeT0.Add(time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := w.Write(data); err != nil {
				t.Fatal(err)
			}
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			exact := session(t, &extract.Options{LRO: &lro.Options{Store: st}, MaxInputBytes: int64(len(data))})
			texts, isErr := call(t, exact, extract.ToolExtract, map[string]any{"handle": handle, "query": ".id", "raw": true})
			if diff := cmp.Diff(tt.want, texts); isErr || diff != "" {
				t.Errorf("MaxInputBytes of the object's size: error %v (-want +got):\n%s", isErr, diff)
			}
			short := session(t, &extract.Options{LRO: &lro.Options{Store: st}, MaxInputBytes: int64(len(data)) - 1})
			texts, isErr = call(t, short, extract.ToolExtract, map[string]any{"handle": handle, "query": ".id", "raw": true})
			if text := strings.Join(texts, "\n"); !isErr || !strings.Contains(text, "MaxInputBytes") {
				t.Errorf("MaxInputBytes one byte short: %v %q, want a tool error naming MaxInputBytes", isErr, text)
			}
		})
	}
}
