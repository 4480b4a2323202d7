package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zircote/lro-go/cleanup"
	"github.com/zircote/lro-go/internal/bucketurl"
	"github.com/zircote/lro-go/internal/disk"
	"github.com/zircote/lro-go/internal/spec"
	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro/store"
	_ "github.com/zircote/lro-go/lro/store/blobstore" // the opener of bucket URLs
)

// t0 is the time of the tests' clocks.
var t0 = time.Date(2026, 11, 21, 13, 0, 0, 0, time.UTC)

// clock is a settable time source, safe for concurrent use.
type clock struct{ ns atomic.Int64 }

func newClock(t time.Time) *clock { c := &clock{}; c.set(t); return c }

func (c *clock) now() time.Time  { return time.Unix(0, c.ns.Load()).UTC() }
func (c *clock) set(t time.Time) { c.ns.Store(t.UnixNano()) }

// record returns the i-th test record, of about size bytes.
func record(i, size int) []byte {
	return fmt.Appendf(nil, `{"id":%d,"text":%q}`, i, strings.Repeat("x", max(size-30, 0)))
}

// write stores n records of about size bytes each and returns the handle
// and the bytes of the file.
func write(t *testing.T, s *store.Store, n, size int) (string, []byte) {
	t.Helper()
	w, err := s.Create(context.Background(), "recall")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := w.WriteHeader(jsonl.Header{Count: n, SchemaVersion: "1.0"}); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := w.WriteRecord(record(i, size)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	return filepath.Base(w.Path()), readAll(t, s, filepath.Base(w.Path()))
}

// readAll reads the whole file of handle.
func readAll(t *testing.T, s *store.Store, handle string) []byte {
	t.Helper()
	r, err := s.NewReader(context.Background(), handle)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(data)) != r.Size() {
		t.Errorf("read %d bytes, Size() = %d", len(data), r.Size())
	}
	return data
}

// TestRoundTrip writes a file to each store and reads it back whole and in
// ranges.
func TestRoundTrip(t *testing.T) {
	for _, be := range backends() {
		t.Run(be.name, func(t *testing.T) {
			s := be.open(t, nil)
			w, err := s.Create(context.Background(), "Search Memories")
			if err != nil {
				t.Fatal(err)
			}
			defer w.Abort()
			if err := w.WriteHeader(jsonl.Header{Count: 3}); err != nil {
				t.Fatal(err)
			}
			for i := range 3 {
				if err := w.WriteRecord(record(i, 100)); err != nil {
					t.Fatal(err)
				}
			}
			if err := w.Commit(); err != nil {
				t.Fatal(err)
			}
			handle := filepath.Base(w.Path())
			if op, _, ok := disk.ParseName(handle, ""); !ok || op != "search_memories" || len(handle) != len("atlatl-search_memories-")+26+1+32+len(".jsonl") {
				t.Errorf("handle %q: want atlatl-search_memories-{ULID}-{32 hex}.jsonl", handle)
			}
			if want := filepath.Join(s.Dir(), handle); w.Path() != want { // a bucket's: the object's name
				t.Errorf("Path() = %q in a store of folder %q", w.Path(), s.Dir())
			}
			data := readAll(t, s, handle)
			if int64(len(data)) != w.Size() {
				t.Errorf("stored %d bytes, the Writer wrote %d", len(data), w.Size())
			}
			h, err := jsonl.ReadHeader(bytes.NewReader(data))
			if err != nil || h.Count != 3 || h.Operation != "Search Memories" {
				t.Errorf("header %+v, %v", h, err)
			}
			for _, rg := range []struct{ off, n int64 }{{0, 10}, {17, 40}, {int64(len(data)) - 5, 5}, {int64(len(data)) - 5, 100}, {30, -1}} {
				r, size, err := s.NewRangeReader(context.Background(), handle, rg.off, rg.n)
				if err != nil {
					t.Errorf("range %v: %v", rg, err)
					continue
				}
				got, err := io.ReadAll(r)
				r.Close()
				end := int64(len(data))
				if rg.n >= 0 {
					end = min(end, rg.off+rg.n)
				}
				if err != nil || !bytes.Equal(got, data[rg.off:end]) || size != int64(len(data)) {
					t.Errorf("range %v: read %q (Size %d), %v; want %q", rg, got, size, err, data[rg.off:end])
				}
			}
			if _, _, err := s.NewRangeReader(context.Background(), handle, -1, 1); err == nil {
				t.Error("a negative offset was accepted")
			}
			if got := keys(t, s); len(got) != 1 || got[0] != handle {
				t.Errorf("the store holds %q; want only %q", got, handle)
			}
		})
	}
}

// TestAtomic checks that no reader sees a file before its Commit, however
// much of it was written, while a reader polling all along sees either no
// file or the whole file. The file is larger than the S3 driver's 16 MiB
// multipart threshold, so that S3 stores it as a multipart upload.
func TestAtomic(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 17 MiB per store")
	}
	const n, size = 17 * 16, 4 << 10 // 17 MiB
	for _, be := range backends() {
		t.Run(be.name, func(t *testing.T) {
			s := be.open(t, nil)
			w, err := s.Create(context.Background(), "recall")
			if err != nil {
				t.Fatal(err)
			}
			defer w.Abort()
			handle := filepath.Base(w.Path())
			var want []byte // the file, once committed
			var committed atomic.Bool
			stop := make(chan struct{})
			var polls, seen atomic.Int64
			var wg sync.WaitGroup
			wg.Go(func() {
				for {
					select {
					case <-stop:
						return
					default:
					}
					polls.Add(1)
					r, err := s.NewReader(context.Background(), handle)
					if errors.Is(err, store.ErrUnknownHandle) {
						continue
					}
					if err != nil {
						t.Errorf("poll: %v", err)
						return
					}
					data, err := io.ReadAll(r)
					r.Close()
					if !committed.Load() {
						t.Errorf("a reader opened the file before Commit returned (%d bytes)", len(data))
						return
					}
					if err != nil || !bytes.Equal(data, want) {
						t.Errorf("a reader saw %d bytes, %v; want the whole %d", len(data), err, len(want))
						return
					}
					seen.Add(1)
				}
			})
			notVisible := func(when string) {
				t.Helper()
				if _, err := s.NewReader(context.Background(), handle); !errors.Is(err, store.ErrUnknownHandle) {
					t.Errorf("%s: NewReader = %v; want ErrUnknownHandle", when, err)
				}
				for _, k := range keys(t, s) {
					if !strings.HasPrefix(k, ".") { // the folder's temporary file
						t.Errorf("%s: the store lists %q", when, k)
					}
				}
			}
			h := jsonl.Header{Operation: "recall", Count: n, Timestamp: "2026-11-21T13:00:00.000Z"}
			buf := bytes.NewBuffer(headerLine(t, h))
			if err := w.WriteHeader(h); err != nil {
				t.Fatal(err)
			}
			notVisible("after the header")
			for i := range n {
				rec := record(i, size)
				if err := w.WriteRecord(rec); err != nil {
					t.Fatal(err)
				}
				buf.Write(rec)
				buf.WriteByte('\n')
				if i == n/2 {
					notVisible("halfway")
				}
			}
			notVisible("before Commit")
			want = buf.Bytes()
			committed.Store(true) // Commit may show the file before it returns
			if err := w.Commit(); err != nil {
				t.Fatal(err)
			}
			for seen.Load() == 0 {
				time.Sleep(time.Millisecond) // the poller sees the whole file at least once
				if t.Failed() {
					break
				}
			}
			close(stop)
			wg.Wait()
			if got := readAll(t, s, handle); !bytes.Equal(got, want) {
				t.Errorf("stored %d bytes, want %d", len(got), len(want))
			}
			t.Logf("%d polls", polls.Load())
		})
	}
}

// headerLine returns the line WriteHeader writes for h.
func headerLine(t testing.TB, h jsonl.Header) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(struct {
		Type string `json:"type"`
		jsonl.Header
	}{"lro_header", h}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestAbort checks that a write that does not reach a successful Commit
// leaves nothing in the store: an Abort after records beyond the Writer's
// buffer, a Commit with a wrong count, and a canceled context.
func TestAbort(t *testing.T) {
	tests := []struct {
		name   string
		finish func(t *testing.T, w *jsonl.Writer, cancel context.CancelFunc)
	}{
		{"abort", func(t *testing.T, w *jsonl.Writer, _ context.CancelFunc) {
			if err := w.Abort(); err != nil {
				t.Error(err)
			}
		}},
		{"count mismatch", func(t *testing.T, w *jsonl.Writer, _ context.CancelFunc) {
			if err := w.Commit(); err == nil || !strings.Contains(err.Error(), "record count does not match header") {
				t.Errorf("Commit = %v, want ErrCountMismatch", err)
			}
		}},
		{"canceled", func(t *testing.T, w *jsonl.Writer, cancel context.CancelFunc) {
			cancel()
			w.WriteRecord(record(0, 10)) // may fail, or not yet
			if err := w.Commit(); err == nil {
				t.Error("Commit after the context was canceled succeeded")
			}
		}},
	}
	for _, be := range backends() {
		for _, tc := range tests {
			t.Run(be.name+"/"+tc.name, func(t *testing.T) {
				s := be.open(t, nil)
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				w, err := s.Create(ctx, "recall")
				if err != nil {
					t.Fatal(err)
				}
				defer w.Abort()
				if err := w.WriteHeader(jsonl.Header{Count: 100}); err != nil {
					t.Fatal(err)
				}
				for i := range 50 { // 200 KiB: past the Writer's buffer
					if err := w.WriteRecord(record(i, 4<<10)); err != nil {
						t.Fatal(err)
					}
				}
				tc.finish(t, w, cancel)
				if _, err := s.NewReader(context.Background(), filepath.Base(w.Path())); !errors.Is(err, store.ErrUnknownHandle) {
					t.Errorf("NewReader after the failed write = %v, want ErrUnknownHandle", err)
				}
				if got := keys(t, s); len(got) != 0 {
					t.Errorf("the store holds %q after the failed write; want nothing", got)
				}
			})
		}
	}
}

// TestHandles checks what each store says of handles that are unknown,
// expired, malformed or forged.
func TestHandles(t *testing.T) {
	const ttl = time.Hour
	for _, be := range backends() {
		t.Run(be.name, func(t *testing.T) {
			clk := newClock(t0)
			s := store.WithClock(be.open(t, &store.Options{TTL: ttl}), clk.now)
			handle, _ := write(t, s, 1, 10)
			op, id, _ := disk.ParseName(handle, "")
			random := handle[len(handle)-len(".jsonl")-32 : len(handle)-len(".jsonl")]
			other := strings.Replace(handle, random, strings.Repeat("0", 32), 1)
			// A bucket's object records an expiry counted from its write's
			// deadline; a folder's file written by Create alone, none.
			life, expiredAt := ttl, "expired at 2026-11-21T14:00:00Z"
			if s.Bucket() != nil {
				life, expiredAt = ttl+store.DefaultWriteTimeout, "expired at 2026-11-21T14:00:30Z"
			}
			tests := []struct {
				handle string
				at     time.Time
				want   error
				says   string
				reason string
			}{
				{handle, t0, nil, "", "a fresh handle"},
				{handle, t0.Add(life - time.Millisecond), nil, "", "a millisecond before it expires"},
				{handle, t0.Add(life), store.ErrExpiredHandle, expiredAt, "when it expires"},
				{handle, t0.Add(48 * time.Hour), store.ErrExpiredHandle, "expired", "long expired, the file still there"},
				{other, t0, store.ErrUnknownHandle, "no such result", "another random part: no such file"},
				{disk.Name("", op, id), t0, store.ErrUnknownHandle, "not a handle", "the name without its random part (guessable)"},
				{"", t0, store.ErrUnknownHandle, "not a handle", "empty"},
				{"../" + handle, t0, store.ErrUnknownHandle, "not a handle", "a relative path"},
				{"x/" + handle, t0, store.ErrUnknownHandle, "not a handle", "a path into a subfolder"},
				{"/" + handle, t0, store.ErrUnknownHandle, "not a handle", "an absolute path"},
				{filepath.Join(os.TempDir(), handle), t0, store.ErrUnknownHandle, "not a handle", "an absolute path"},
				{"." + handle + ".tmp", t0, store.ErrUnknownHandle, "not a handle", "the temporary file's name"},
				{strings.Replace(handle, random, strings.ToUpper(random), 1), t0, store.ErrUnknownHandle, "not a handle", "upper-case random part"},
				{"other" + strings.TrimPrefix(handle, "atlatl"), t0, store.ErrUnknownHandle, "not a handle", "another prefix"},
				{handle + "\x00", t0, store.ErrUnknownHandle, "not a handle", "a NUL byte"},
				{"/etc/passwd", t0, store.ErrUnknownHandle, "not a handle", "a path outside"},
			}
			for _, tc := range tests {
				clk.set(tc.at)
				r, err := s.NewReader(context.Background(), tc.handle)
				if err == nil {
					r.Close()
				}
				if !errors.Is(err, tc.want) || (tc.want != nil && !strings.Contains(err.Error(), tc.says)) {
					t.Errorf("%s: NewReader(%q) at %v = %v; want %v saying %q", tc.reason, tc.handle, tc.at, err, tc.want, tc.says)
				}
				if errors.Is(err, store.ErrExpiredHandle) && errors.Is(err, store.ErrUnknownHandle) {
					t.Errorf("%s: %v is both expired and unknown", tc.reason, err)
				}
				r2, _, err2 := s.NewRangeReader(context.Background(), tc.handle, 1, 1)
				if err2 == nil {
					r2.Close()
				}
				if !errors.Is(err2, tc.want) {
					t.Errorf("%s: NewRangeReader(%q) = %v, want %v", tc.reason, tc.handle, err2, tc.want)
				}
			}
		})
	}
}

// TestHandlesFolder checks that a folder's store reads only regular files
// directly in the folder, with one hard link, whatever is named like a
// handle.
func TestHandlesFolder(t *testing.T) {
	dir := t.TempDir()
	s, err := store.Open(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	handle, _ := write(t, s, 1, 10)
	// A forged handle whose file is outside the folder, reached by a link.
	outside := t.TempDir()
	secret := strings.Replace(handle, handle[len(handle)-38:len(handle)-6], strings.Repeat("a", 32), 1)
	if err := os.WriteFile(filepath.Join(outside, secret), []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := strings.Replace(handle, handle[len(handle)-38:len(handle)-6], strings.Repeat("b", 32), 1)
	if err := os.Symlink(filepath.Join(outside, secret), filepath.Join(dir, link)); err != nil {
		t.Fatal(err)
	}
	sub := strings.Replace(handle, handle[len(handle)-38:len(handle)-6], strings.Repeat("c", 32), 1)
	if err := os.Mkdir(filepath.Join(dir, sub), 0o700); err != nil {
		t.Fatal(err)
	}
	// A hard link in the folder to the file outside it.
	hard := strings.Replace(handle, handle[len(handle)-38:len(handle)-6], strings.Repeat("d", 32), 1)
	if err := os.Link(filepath.Join(outside, secret), filepath.Join(dir, hard)); err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{link, sub, secret, hard} {
		if _, err := s.NewReader(context.Background(), h); !errors.Is(err, store.ErrUnknownHandle) {
			t.Errorf("NewReader(%q) = %v, want ErrUnknownHandle", h, err)
		}
	}
	if _, err := s.NewReader(context.Background(), hard); err == nil || !strings.Contains(err.Error(), "hard link") {
		t.Errorf("NewReader of a hard link = %v, want an error naming the hard link", err)
	}
	missing, err := store.Open(context.Background(), filepath.Join(dir, "none"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := missing.NewReader(context.Background(), handle); !errors.Is(err, store.ErrUnknownHandle) {
		t.Errorf("NewReader in a folder that does not exist = %v, want ErrUnknownHandle", err)
	}
}

// TestSweep sweeps each store's bucket with three janitors at once, as three
// replicas would: the expired files are deleted, once, and the fresh one is
// still readable.
func TestSweep(t *testing.T) {
	const ttl, janitors = time.Hour, 3
	for _, be := range backends() {
		t.Run(be.name, func(t *testing.T) {
			clk := newClock(t0.Add(-3 * ttl))
			s := store.WithClock(be.open(t, &store.Options{TTL: ttl}), clk.now)
			old1, _ := write(t, s, 1, 10)
			old2, _ := write(t, s, 2, 10)
			clk.set(t0)
			fresh, data := write(t, s, 3, 10)
			results := make([]cleanup.Result, janitors)
			var wg sync.WaitGroup
			for i := range janitors {
				j, err := cleanup.New(&cleanup.Options{Dir: s.Dir(), Bucket: s.Bucket(), Prefix: s.Prefix(), TTL: s.TTL()})
				if err != nil {
					t.Fatal(err)
				}
				wg.Go(func() {
					var err error
					if results[i], err = j.Sweep(context.Background(), t0.Add(disk.SkewMargin)); err != nil {
						t.Error(err)
					}
				})
			}
			wg.Wait()
			deleted := 0
			for _, r := range results {
				deleted += r.Expired
				if r.Kept != 1 {
					t.Errorf("a sweep: %+v; want the fresh file kept", r)
				}
			}
			// S3 deletes are not atomic (the driver checks, then deletes),
			// so two sweeps may both count one object.
			if deleted < 2 || (s.Bucket() == nil || be.name == "memblob") && deleted != 2 {
				t.Errorf("%d deletions counted for 2 expired files", deleted)
			}
			if got := keys(t, s); len(got) != 1 || got[0] != fresh {
				t.Errorf("the store holds %q; want only the fresh %q (not %q, %q)", got, fresh, old1, old2)
			}
			if got := readAll(t, s, fresh); !bytes.Equal(got, data) {
				t.Errorf("the fresh file reads %q, want %q", got, data)
			}
		})
	}
}

// TestOpen checks the errors of Open and the constructors.
func TestOpen(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		location string
		opts     *store.Options
		says     string
		reason   string
	}{
		{"gs://bucket", nil, `import _ "gocloud.dev/blob/gcsblob"`, "a driver the program did not import"},
		{"azblob://c", nil, `import _ "gocloud.dev/blob/azureblob"`, "a driver the program did not import"},
		{"ftp://host/x", nil, "no driver of gocloud.dev/blob", "a scheme of no driver"},
		{"mem://", &store.Options{TTL: -1}, "Options.TTL", "a negative TTL"},
		{"mem://", &store.Options{Prefix: "a/b"}, "Options.Prefix", "a prefix with a slash"},
	}
	for _, tc := range tests {
		_, err := store.Open(ctx, tc.location, tc.opts)
		if err == nil || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("%s: Open(%q) = %v; want an error saying %q", tc.reason, tc.location, err, tc.says)
		}
	}
	if _, err := store.Open(ctx, "s3://b?no_such_parameter=1", nil); err == nil {
		t.Error("Open with an unknown S3 parameter succeeded")
	}
	if _, err := store.Open(ctx, "s3://user:secret@b?no_such_parameter=1", nil); err == nil || strings.Contains(err.Error(), "secret") {
		t.Errorf("Open = %v; want an error without the URL's password", err)
	}
	// Without the password, the error still is what it was.
	if _, err := store.Open(ctx, "gs://user:secret@b", nil); err == nil || strings.Contains(err.Error(), "secret") || !strings.Contains(err.Error(), "gs://user:xxxxx@b") || !strings.Contains(err.Error(), `import _ "gocloud.dev/blob/gcsblob"`) {
		t.Errorf("Open of a URL with a password and no driver = %v; want an error naming the redacted URL and the driver's import", err)
	}
	opener := bucketurl.Opener() // blobstore's
	bucketurl.Register(nil)
	_, err := store.Open(ctx, "s3://user:secret@b", nil)
	bucketurl.Register(opener)
	if err == nil || !strings.Contains(err.Error(), `import _ "github.com/zircote/lro-go/lro/store/blobstore"`) || strings.Contains(err.Error(), "secret") {
		t.Errorf("Open without an opener = %v; want an error naming the import, without the password", err)
	}
	s, err := store.Open(ctx, t.TempDir(), nil)
	if err != nil || s.Dir() == "" || s.Bucket() != nil || s.Close() != nil {
		t.Errorf("Open of a folder path: %v, %v", s, err)
	}
	s, err = store.Open(ctx, "mem://", nil)
	if err != nil || s.Dir() != "" || s.Bucket() == nil || s.Prefix() != spec.DefaultPrefix || s.TTL() != store.DefaultTTL {
		t.Fatalf("Open(mem://) = %v, %v", s, err)
	}
	if err := s.Close(); err != nil {
		t.Error(err)
	}
}

// TestOpenChecks: Open of a bucket that can be listed succeeds, of one that
// cannot fails with the reason, without the URL's password; a folder, made
// on the first write, always opens.
func TestOpenChecks(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		location string
		want     string // "" for no error
	}{
		{"mem://", ""},
		{filepath.Join(t.TempDir(), "not", "yet"), ""},
		// Nothing listens on port 1.
		{"s3://nobucket?endpoint=http://127.0.0.1:1&region=us-east-1&use_path_style=true", "store: cannot list the bucket"},
		{"s3://user:secret@nobucket?endpoint=http://127.0.0.1:1&region=us-east-1&use_path_style=true", "store: cannot list the bucket"},
	} {
		s, err := store.Open(ctx, tt.location, nil)
		if (err == nil) != (tt.want == "") || err != nil && (!strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "secret")) {
			t.Errorf("Open(%s) = %v, want %q", tt.location, err, tt.want)
		}
		if err == nil {
			s.Close()
		}
	}
}

// TestOpenRefusesUnsafe: a folder that another user could write to is
// refused at start, saying why, as jsonl.Create refuses it on every write.
func TestOpenRefusesUnsafe(t *testing.T) {
	open := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{open, filepath.Join(open, "lro")} {
		s, err := store.Open(context.Background(), dir, nil)
		if s != nil || !errors.Is(err, disk.ErrUnsafeDir) || !strings.Contains(err.Error(), "writable by others without the sticky bit") {
			t.Errorf("Open(%s) = %v, %v; want ErrUnsafeDir saying why", dir, s, err)
		}
	}
}
