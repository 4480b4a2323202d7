package lro_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"

	"github.com/zircote/lro-go/internal/disk"
	"github.com/zircote/lro-go/internal/outschema"
	"github.com/zircote/lro-go/internal/spec"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/descriptor"
	"github.com/zircote/lro-go/lro/event"
	"github.com/zircote/lro-go/lro/extract"
	"github.com/zircote/lro-go/lro/store"
	"github.com/zircote/lro-go/lro/store/blobstore"
)

// memStore returns a Store over a new memory bucket, and the bucket.
func memStore(t *testing.T, opts *store.Options) (*store.Store, *blob.Bucket) {
	t.Helper()
	b := memblob.OpenBucket(nil)
	t.Cleanup(func() { b.Close() })
	st, err := store.NewBucket(blobstore.New(b), opts)
	if err != nil {
		t.Fatal(err)
	}
	return st, b
}

// keys lists the keys of b.
func keys(t *testing.T, b *blob.Bucket) []string {
	t.Helper()
	var out []string
	it := b.List(nil)
	for {
		o, err := it.Next(context.Background())
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, o.Key)
	}
}

// stored is what an offloaded result kept in a store shows a client.
type stored struct {
	d    offloadResponse
	link *mcp.ResourceLink
}

// storedOf decodes the descriptor and the resource link of an offloaded
// result of a store, and checks what they say of the handle: a name of the
// store's prefix with a random part, the link's URI, name and type.
func storedOf(t *testing.T, res *mcp.CallToolResult, prefix string) stored {
	t.Helper()
	if res.IsError || len(res.Content) != 2 {
		t.Fatalf("offloaded result: error %v, %d content items, want 2 (the descriptor, then the resource link): %v", res.IsError, len(res.Content), res.Content)
	}
	var s stored
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content 0 is a %T, want the descriptor's text", res.Content[0])
	}
	if err := json.Unmarshal([]byte(tc.Text), &s.d); err != nil || !s.d.Offloaded {
		t.Fatalf("content 0 is not a descriptor (%v): %.300s", err, tc.Text)
	}
	if s.link, ok = res.Content[1].(*mcp.ResourceLink); !ok {
		t.Fatalf("content 1 is a %T, want a resource link", res.Content[1])
	}
	h := s.d.Handle
	op, id, ok := disk.ParseName(h, prefix)
	if !ok || h == disk.Name(prefix, op, id) || path.Base(h) != h {
		t.Fatalf("handle %q is not a name of prefix %q with a random part", h, prefix)
	}
	if s.link.URI != "lro://results/"+h || s.link.Name != path.Base(s.d.FilePath) || s.link.MIMEType != "application/jsonl" || s.link.Size == nil {
		t.Errorf("resource link = %+v, want lro://results/%s named by file_path's base name, application/jsonl, with a size", s.link, h)
	}
	sc := structuredBytes(t, res.StructuredContent)
	var scd offloadResponse
	if err := json.Unmarshal(sc, &scd); err != nil || scd.Handle != h {
		t.Errorf("structured content %.300s does not give the handle %s (%v)", sc, h, err)
	}
	return s
}

// validates checks that the structured content of res is valid under
// schema, the tool's advertised output schema.
func validates(t *testing.T, schema any, res *mcp.CallToolResult) {
	t.Helper()
	data, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(structuredBytes(t, res.StructuredContent), &v); err != nil {
		t.Fatal(err)
	}
	if err := resolved.Validate(v); err != nil {
		t.Errorf("structured content fails the output schema: %v", err)
	}
}

// download saves the object of handle to file, as a client that reads the
// result's resource does, and returns its size.
func download(t *testing.T, st *store.Store, handle, file string) int64 {
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
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return int64(len(data))
}

// TestStoreBucket offloads through Wrap, AddTool and Middleware into a
// memory bucket and checks everything a client is given: the handle in the
// descriptor and the structured content (valid under the advertised output
// schema), the resource link to lro://results/{handle}, a file_path in
// ClientDir under the handle's name without its random part (the
// specification's name), a guidance that calls the tools by handle and
// says the file is on the server, and an event. The bucket holds exactly
// one object, the whole result: saved to file_path, as a client that reads
// the resource does, it puts the result back together, and the jq recipes
// run on it.
func TestStoreBucket(t *testing.T) {
	full, _ := json.Marshal(listOut{Items: makeItems(300)})
	typedResult := &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(full)}},
		StructuredContent: json.RawMessage(full),
	}
	typed := func(ctx context.Context, req *mcp.CallToolRequest, in listIn) (*mcp.CallToolResult, listOut, error) {
		return nil, listOut{Items: makeItems(in.Count)}, nil
	}
	bare, _ := textHandler(200)(context.Background(), nil)
	listSchema, err := jsonschema.For[listOut](nil)
	if err != nil {
		t.Fatal(err)
	}
	widened, err := outschema.Widen(listSchema)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		register func(s *mcp.Server, opts *lro.Options)
		args     map[string]any
		want     *mcp.CallToolResult // what the tool returned
	}{
		{"Wrap", func(s *mcp.Server, opts *lro.Options) {
			s.AddTool(&mcp.Tool{Name: "items", InputSchema: rawInputSchema, OutputSchema: widened}, lro.Wrap(textHandler(200), opts))
		}, nil, bare},
		{"AddTool", func(s *mcp.Server, opts *lro.Options) {
			lro.AddTool(s, &mcp.Tool{Name: "items"}, typed, opts)
		}, map[string]any{"count": 300}, typedResult},
		{"Middleware", func(s *mcp.Server, opts *lro.Options) {
			mcp.AddTool(s, &mcp.Tool{Name: "items"}, typed)
			s.AddReceivingMiddleware(lro.Middleware(opts))
		}, map[string]any{"count": 300}, nil},
	}
	// What the middleware receives is the result as the SDK sends it
	// (its JSON text has the keys in another order): the result of the
	// same tool without offloading.
	plain := newServer()
	mcp.AddTool(plain, &mcp.Tool{Name: "items"}, typed)
	tests[2].want, err = connect(t, plain).CallTool(context.Background(), &mcp.CallToolParams{Name: "items", Arguments: map[string]any{"count": 300}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st, bucket := memStore(t, &store.Options{Prefix: "p", TTL: time.Hour})
			clientDir := t.TempDir()
			rec := &recorder{}
			s := newServer()
			tt.register(s, &lro.Options{Store: st, ClientDir: clientDir, Operation: "list", Observer: rec})
			cs := connect(t, s)
			var schema any
			for tool, err := range cs.Tools(context.Background(), nil) {
				if err != nil {
					t.Fatal(err)
				}
				schema = tool.OutputSchema
			}
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "items", Arguments: tt.args})
			if err != nil {
				t.Fatal(err)
			}
			got := storedOf(t, res, "p")
			h := got.d.Handle
			validates(t, schema, res)

			if want := filepath.Join(clientDir, specName(t, h, "p")); got.d.FilePath != want {
				t.Errorf("file_path = %q, want %q: where a client that downloads the object keeps it", got.d.FilePath, want)
			}
			g := got.d.Guidance
			for _, want := range []string{`lro_extract(handle="` + h + `", recipe=`, "and with the same handle:", "(handle, line, limit)", "lro://results/{handle}", "not this machine", "to " + got.d.FilePath + "."} {
				if !strings.Contains(g, want) {
					t.Errorf("guidance does not say %q:\n%s", want, g)
				}
			}
			if strings.Contains(g, "file_path=") {
				t.Errorf("guidance passes a file_path, which is not on this machine:\n%s", g)
			}
			if diff := cmp.Diff([]string{h}, keys(t, bucket)); diff != "" {
				t.Errorf("bucket keys (-want +got):\n%s", diff)
			}
			if size := download(t, st, h, got.d.FilePath); *got.link.Size != size {
				t.Errorf("resource link size %d, object size %d", *got.link.Size, size)
			}
			hdr, _, rebuilt := readOffloaded(t, got.d.FilePath)
			if hdr.Count != got.d.Summary.Count || hdr.Operation != "list" {
				t.Errorf("header count %d operation %q, descriptor count %d", hdr.Count, hdr.Operation, got.d.Summary.Count)
			}
			checkRebuilt(t, resultJSON(t, tt.want), rebuilt)
			if _, err := exec.LookPath("jq"); err == nil {
				for i, r := range got.d.JqRecipes {
					if out, err := exec.Command("sh", "-c", r.Command).CombinedOutput(); err != nil || len(strings.TrimSpace(string(out))) == 0 {
						t.Errorf("recipe %d %q on the downloaded object: %v\n%s", i+1, r.Command, err, out)
					}
				}
			}
			var offloaded []event.Offloaded
			for _, e := range rec.all() {
				if o, ok := e.(event.Offloaded); ok {
					offloaded = append(offloaded, o)
				}
			}
			if len(offloaded) != 1 || offloaded[0].Path != h || offloaded[0].Bytes != *got.link.Size {
				t.Errorf("Offloaded events = %+v, want one with the handle %s as its path and %d bytes", offloaded, h, *got.link.Size)
			}
		})
	}
}

// TestStoreBucketProfiles checks that every profile carries the handle,
// and the resource link follows, the bare pointer included; and that
// without ClientDir the file_path is in /tmp.
func TestStoreBucketProfiles(t *testing.T) {
	for name, p := range map[string]descriptor.Profile{"full": descriptor.ProfileFull, "no_recipes": descriptor.ProfileNoRecipes, "no_schema": descriptor.ProfileNoSchema, "bare_pointer": descriptor.ProfileBarePointer} {
		t.Run(name, func(t *testing.T) {
			st, _ := memStore(t, nil)
			res, err := lro.Wrap(textHandler(200), &lro.Options{Store: st, Profile: p})(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "items"}})
			if err != nil {
				t.Fatal(err)
			}
			got := storedOf(t, res, spec.DefaultPrefix)
			if want := "/tmp/" + specName(t, got.d.Handle, spec.DefaultPrefix); got.d.FilePath != want {
				t.Errorf("file_path = %q, want %q", got.d.FilePath, want)
			}
			var fields map[string]any
			_ = json.Unmarshal(structuredBytes(t, res.StructuredContent), &fields)
			if p == descriptor.ProfileBarePointer {
				if diff := cmp.Diff([]string{"file_path", "handle", "offloaded"}, slices.Sorted(maps.Keys(fields))); diff != "" {
					t.Errorf("bare pointer fields (-want +got):\n%s", diff)
				}
				return
			}
			if !strings.Contains(got.d.Guidance, `handle="`+got.d.Handle+`"`) {
				t.Errorf("guidance does not call the tools by handle:\n%s", got.d.Guidance)
			}
		})
	}
}

// specName returns the specification's file name of handle, a name of
// prefix with a random part: the name without it.
func specName(t *testing.T, handle, prefix string) string {
	t.Helper()
	op, id, ok := disk.ParseName(handle, prefix)
	if !ok {
		t.Fatalf("handle %q is not a name of prefix %q", handle, prefix)
	}
	return disk.Name(prefix, op, id)
}

// TestStoreFolder offloads into a folder Store: file_path is the file's
// real path, whose name is the handle; the resource link follows; the
// guidance is the shell template, or with ExtractTools the native one by
// file_path, as without a store.
func TestStoreFolder(t *testing.T) {
	for _, extract := range []bool{false, true} {
		dir := t.TempDir()
		st, err := store.Open(context.Background(), dir, &store.Options{Prefix: "f"})
		if err != nil {
			t.Fatal(err)
		}
		// OutputDir may name the Store's folder.
		opts := &lro.Options{Store: st, OutputDir: dir, ExtractTools: extract}
		res, err := lro.Wrap(textHandler(200), opts)(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "items"}})
		if err != nil {
			t.Fatal(err)
		}
		got := storedOf(t, res, "f")
		if want := filepath.Join(dir, got.d.Handle); got.d.FilePath != want {
			t.Errorf("file_path = %q, want %q", got.d.FilePath, want)
		}
		want := "File: " + got.d.FilePath
		if extract {
			want = `file_path="` + got.d.FilePath + `"`
		}
		if g := got.d.Guidance; !strings.Contains(g, want) || strings.Contains(g, "handle=") || strings.Contains(g, "not this machine") {
			t.Errorf("ExtractTools %v: guidance does not say %q, or calls by handle:\n%s", extract, want, g)
		}
		fi, err := os.Stat(got.d.FilePath)
		if err != nil || fi.Size() != *got.link.Size {
			t.Errorf("file: %v, size %v, want %d", err, fi, *got.link.Size)
		}
		_, _, rebuilt := readOffloaded(t, got.d.FilePath)
		bare, _ := textHandler(200)(context.Background(), nil)
		checkRebuilt(t, resultJSON(t, bare), rebuilt)
	}
}

// TestNoStoreNoHandle checks that without a Store nothing changes: names
// without a random part, no handle, no resource link.
func TestNoStoreNoHandle(t *testing.T) {
	res, err := lro.Wrap(textHandler(200), &lro.Options{OutputDir: t.TempDir()})(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "items"}})
	if err != nil {
		t.Fatal(err)
	}
	d := descriptorOf(t, res) // one content item
	op, id, ok := disk.ParseName(filepath.Base(d.FilePath), spec.DefaultPrefix)
	if !ok || filepath.Base(d.FilePath) != disk.Name(spec.DefaultPrefix, op, id) || d.Handle != "" {
		t.Errorf("file %s, handle %q: want a name without a random part and no handle", d.FilePath, d.Handle)
	}
	if strings.Contains(string(structuredBytes(t, res.StructuredContent)), `"handle"`) {
		t.Error("the structured content has a handle")
	}
}

// TestStoreWriteFailure fails the write into a bucket, by a full disk and
// by a canceled call: the call falls back to a truncated result, nothing is
// reported offloaded, and no object is left in the bucket.
func TestStoreWriteFailure(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := []struct {
		name string
		ctx  context.Context
		wrap func(io.Writer) io.Writer
	}{
		{"full disk", context.Background(), func(io.Writer) io.Writer { return failingWriter{} }},
		{"call canceled", canceled, nil},
		{"writer panics", context.Background(), func(io.Writer) io.Writer { return panicWriter{} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bucket := memblob.OpenBucket(nil)
			t.Cleanup(func() { bucket.Close() })
			st, err := store.NewBucket(&wrapBucket{blobstore.New(bucket), tt.wrap}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() }) // stops the removal of the failed upload
			rec := &recorder{}
			res, err := lro.Wrap(textHandler(200), &lro.Options{Store: st, Observer: rec})(tt.ctx, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "items"}})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Content) == 0 || !strings.HasPrefix(res.Content[0].(*mcp.TextContent).Text, "Warning: ") {
				t.Fatalf("result = %v, want the fallback's warning", res.Content)
			}
			// The object may still be completed by the bucket: the warning
			// gives nobody its handle.
			handle := regexp.MustCompile(`atlatl-items-[0-9A-Z]{26}-[0-9a-f]{32}\.jsonl`)
			if h := handle.FindString(res.Content[0].(*mcp.TextContent).Text); h != "" {
				t.Errorf("the warning names the handle %s", h)
			}
			for _, c := range res.Content {
				if _, ok := c.(*mcp.ResourceLink); ok {
					t.Error("a fallback links to a resource")
				}
			}
			if k := keys(t, bucket); len(k) != 0 {
				t.Errorf("the bucket holds %v after a failed write", k)
			}
			evs := rec.all()
			if len(evs) != 1 || !is[event.WriteFailed](evs[0]) {
				t.Errorf("events = %+v, want one WriteFailed", evs)
			}
		})
	}
}

// wrapBucket is a bucket whose writers go through wrap, if not nil: a disk
// or a network that fails under the Store.
type wrapBucket struct {
	store.Bucket
	wrap func(io.Writer) io.Writer
}

func (b *wrapBucket) NewWriter(ctx context.Context, key, contentType string, expires time.Time) (io.WriteCloser, error) {
	w, err := b.Bucket.NewWriter(ctx, key, contentType, expires)
	if err != nil || b.wrap == nil {
		return w, err
	}
	return struct {
		io.Writer
		io.Closer
	}{b.wrap(w), w}, nil
}

// valueBucket is a bucket passed by value whose value is not comparable,
// as many a user's bucket type is: it holds a func (or a map, a slice).
type valueBucket struct {
	store.Bucket
	onWrite func() //lint:ignore U1000 its type makes the value not comparable
}

// TestStoreOfAValueBucket offloads into a Store over a bucket whose value is
// not comparable, with the automatic janitor on, through lro and the
// extraction tools: nothing panics (the janitors of the process are kept by
// bucket), and the file is written and read.
func TestStoreOfAValueBucket(t *testing.T) {
	mem := memblob.OpenBucket(nil)
	t.Cleanup(func() { mem.Close() })
	st, err := store.NewBucket(valueBucket{Bucket: blobstore.New(mem)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	opts := &lro.Options{Store: st}
	s := newServer()
	s.AddTool(&mcp.Tool{Name: "items", InputSchema: rawInputSchema}, lro.Wrap(textHandler(200), opts))
	if err := extract.AddTools(s, &extract.Options{LRO: opts}); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "items", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	handle := storedOf(t, res, spec.DefaultPrefix).d.Handle
	if diff := cmp.Diff([]string{handle}, keys(t, mem)); diff != "" {
		t.Errorf("bucket keys (-want +got):\n%s", diff)
	}
	read, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "lro_read", Arguments: map[string]any{"handle": handle}})
	if err != nil || read.IsError {
		t.Fatalf("lro_read of %s: %v %v", handle, err, read.Content)
	}
}

// panicWriter panics on every write.
type panicWriter struct{}

func (panicWriter) Write([]byte) (int, error) { panic("boom") }

// TestStoreOptions checks the fields that a Store decides: when set, they
// must agree with it, and the errors name them.
func TestStoreOptions(t *testing.T) {
	dir := t.TempDir()
	folder, err := store.Open(context.Background(), dir, &store.Options{Prefix: "f", TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	bucket, _ := memStore(t, &store.Options{Prefix: "b", TTL: 2 * time.Hour})
	wrap := func(w io.Writer) io.Writer { return w }
	tests := []struct {
		name  string
		opts  lro.Options
		field string // "" for valid options
	}{
		{"store's prefix and TTL", lro.Options{Store: bucket, Prefix: "b", TTL: 2 * time.Hour}, ""},
		{"zero prefix and TTL", lro.Options{Store: bucket}, ""},
		{"the store's folder", lro.Options{Store: folder, OutputDir: dir + "/."}, ""},
		{"another prefix", lro.Options{Store: bucket, Prefix: "atlatl"}, "Options.Prefix"},
		{"another TTL", lro.Options{Store: folder, TTL: 2 * time.Hour}, "Options.TTL"},
		{"another folder", lro.Options{Store: folder, OutputDir: t.TempDir()}, "Options.OutputDir"},
		{"a folder with a bucket", lro.Options{Store: bucket, OutputDir: dir}, "Options.OutputDir"},
		{"a writer wrapper", lro.Options{Store: bucket}, "writer wrapper"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var hk lro.Hooks
			if tt.name == "a writer wrapper" {
				hk.WrapWriter = wrap
			}
			err := lro.ValidateWith(&tt.opts, hk)
			switch {
			case tt.field == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tt.field != "" && (!errors.Is(err, lro.ErrInvalidOption) || !strings.Contains(err.Error(), tt.field) || !strings.Contains(err.Error(), "Options.Store")):
				t.Errorf("Validate() = %v, want ErrInvalidOption naming %s and Options.Store", err, tt.field)
			}
		})
	}
}

// TestJanitorOfBucket offloads two results into a bucket at different
// times, then sweeps with the janitor of the same options: the sweep
// deletes the object whose recorded expiry (and the bucket's clock margin) has passed,
// with an event, and keeps the other.
func TestJanitorOfBucket(t *testing.T) {
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	rec := &recorder{}
	var old string // the handle that expires
	// The store, lro and the janitor run on time.Now: the bubble's clock,
	// moved to t0 and on.
	synctest.Test(t, func(t *testing.T) {
		time.Sleep(t0.Sub(time.Now()))
		st, bucket := memStore(t, &store.Options{Prefix: "p", TTL: 10 * time.Minute})
		opts := &lro.Options{Store: st, Observer: rec, CleanupInterval: -1} // no automatic janitor
		offload := func() string {
			res, err := lro.Wrap(textHandler(200), opts)(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "items"}})
			if err != nil {
				t.Fatal(err)
			}
			return storedOf(t, res, "p").d.Handle
		}
		old = offload()
		time.Sleep(5 * time.Minute)
		fresh := offload()
		// old's recorded expiry (its write's deadline + TTL) and the margin
		// have just passed; fresh's have not.
		time.Sleep(t0.Add(30*time.Second /* store.Options.WriteTimeout */ + 10*time.Minute + disk.SkewMargin).Sub(time.Now()))
		j, err := lro.JanitorOf(opts)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := j.Sweep(context.Background(), time.Now()); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{fresh}, keys(t, bucket)); diff != "" {
			t.Errorf("bucket keys after the sweep (-want +got):\n%s", diff)
		}
	})
	var expired []event.FileExpired
	for _, e := range rec.all() {
		if fe, ok := e.(event.FileExpired); ok {
			expired = append(expired, fe)
		}
	}
	want := []event.FileExpired{{Path: old, CreatedAt: t0}}
	if diff := cmp.Diff(want, expired); diff != "" {
		t.Errorf("FileExpired events (-want +got):\n%s", diff)
	}
}

// TestLoadOptionsStorage reads the storage from the file and the
// environment, which opens the store with the prefix and TTL in effect; an
// explicit Store wins and is not replaced.
func TestLoadOptionsStorage(t *testing.T) {
	folder := filepath.Join(t.TempDir(), "results")
	file := writeTOML(t, "[prompt.offload]\nstorage = \"mem://\"\nttl_seconds = 120\n")
	t.Run("bucket from the file", func(t *testing.T) {
		opts, err := lro.LoadOptionsFrom(nil, &lro.Sources{File: file, LookupEnv: env(nil)})
		if err != nil {
			t.Fatal(err)
		}
		defer opts.Store.Close()
		if st := opts.Store; st == nil || st.Dir() != "" || st.Bucket() == nil || st.TTL() != 2*time.Minute || st.Prefix() != spec.DefaultPrefix {
			t.Fatalf("Store = %+v, want a bucket with the file's TTL and the default prefix", st)
		}
		res, err := lro.Wrap(textHandler(200), opts)(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "items"}})
		if err != nil {
			t.Fatal(err)
		}
		storedOf(t, res, spec.DefaultPrefix)
	})
	t.Run("folder from the environment over the file", func(t *testing.T) {
		vars := map[string]string{"ATLATL_PROMPT__OFFLOAD__STORAGE": folder}
		opts, err := lro.LoadOptionsFrom(nil, &lro.Sources{File: file, LookupEnv: env(vars), Environ: environ(vars)})
		if err != nil {
			t.Fatal(err)
		}
		defer opts.Store.Close()
		if st := opts.Store; st == nil || st.Dir() != folder || st.TTL() != 2*time.Minute {
			t.Fatalf("Store = %+v, want the folder %s with the file's TTL", st, folder)
		}
	})
	t.Run("an explicit Store wins", func(t *testing.T) {
		explicit, _ := memStore(t, &store.Options{TTL: 30 * time.Minute})
		bad := writeTOML(t, "[prompt.offload]\nstorage = \"nosuch://bucket\"\n")
		opts, err := lro.LoadOptionsFrom(&lro.Options{Store: explicit}, &lro.Sources{File: bad, LookupEnv: env(nil)})
		if err != nil {
			t.Fatalf("LoadOptions = %v, want the storage setting not opened", err)
		}
		if opts.Store != explicit || opts.TTL != 30*time.Minute {
			t.Errorf("Store %p, TTL %v; want the explicit Store %p and its TTL", opts.Store, opts.TTL, explicit)
		}
	})
}

// TestLoadOptionsStorageErrors checks that a storage that cannot be opened
// is refused, naming the key or variable, and that no error shows the
// password of a URL, even under a mistyped name.
func TestLoadOptionsStorageErrors(t *testing.T) {
	aFile := filepath.Join(t.TempDir(), "regular-file")
	if err := os.WriteFile(aFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	const secret = "s3cr3t"
	tests := []struct {
		name string
		file string
		vars map[string]string
		want []string // substrings of the error
	}{
		{"unknown scheme", "[prompt.offload]\nstorage = \"nosuch://bucket\"", nil,
			[]string{"prompt.offload.storage", "nosuch://bucket", "no driver"}},
		{"driver not linked, password", "", map[string]string{"ATLATL_PROMPT__OFFLOAD__STORAGE": "s3://AKIA:" + secret + "@bucket?region=us-east-1"},
			[]string{"ATLATL_PROMPT__OFFLOAD__STORAGE", "gocloud.dev/blob/s3blob"}},
		{"not a string", "[prompt.offload]\nstorage = 5", nil, []string{"prompt.offload.storage", "not a string"}},
		{"a folder that is a file", "[prompt.offload]\nstorage = \"" + aFile + "\"", nil, []string{"prompt.offload.storage", aFile, "not a folder"}},
		{"an output_dir beside a bucket", "[prompt.offload]\nstorage = \"mem://\"\noutput_dir = \"" + t.TempDir() + "\"", nil,
			[]string{"prompt.offload.storage", "Options.OutputDir", "bucket"}},
		{"mistyped variable, password", "", map[string]string{"ATLATL_PROMPT__OFFLOAD__STORGE": "s3://AKIA:" + secret + "@bucket"},
			[]string{"ATLATL_PROMPT__OFFLOAD__STORGE", "unknown variable"}},
		{"mistyped key, password", "[prompt.offload]\nstorag = \"s3://AKIA:" + secret + "@bucket\"", nil,
			[]string{"prompt.offload.storag", "unknown key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := &lro.Sources{LookupEnv: env(tt.vars), Environ: environ(tt.vars)}
			if tt.file != "" {
				src.File = writeTOML(t, tt.file)
			}
			got, err := lro.LoadOptionsFrom(nil, src)
			if err == nil {
				got.Store.Close()
				t.Fatalf("LoadOptions = %+v, want an error", got)
			}
			if !errors.Is(err, lro.ErrInvalidOption) {
				t.Errorf("error %q does not wrap ErrInvalidOption", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %s", err, w)
				}
			}
			if strings.Contains(err.Error(), secret) {
				t.Errorf("error %q shows the URL's password", err)
			}
		})
	}
}
