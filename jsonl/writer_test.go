package jsonl_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/zircote/lro-go/internal/disk"
	"github.com/zircote/lro-go/internal/spec"
	"github.com/zircote/lro-go/jsonl"
)

// fixedNow is the clock of most tests: a time with milliseconds, in a zone
// other than UTC to check that timestamps are converted.
func fixedNow() time.Time {
	return time.Date(2026, 11, 21, 14, 31, 0, 123_456_789, time.FixedZone("CET", 3600))
}

// create starts a Writer in a new temporary directory and aborts it at the
// end of the test.
func create(t *testing.T, operation string) (*jsonl.Writer, string) {
	t.Helper()
	dir := t.TempDir()
	w, err := jsonl.CreateWith(operation, &jsonl.Options{Dir: dir}, fixedNow, nil)
	if err != nil {
		t.Fatalf("Create: %v", err)
	}
	t.Cleanup(func() { w.Abort() })
	return w, dir
}

// dirNames returns the names in dir, hidden ones included.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// readLines returns the lines of the file at path, checking that the file
// ends with a newline.
func readLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, ok := strings.CutSuffix(string(data), "\n")
	if !ok {
		t.Fatalf("%s does not end with a newline: %q", path, data)
	}
	return strings.Split(s, "\n")
}

func TestRoundTrip(t *testing.T) {
	w, dir := create(t, "recall")
	query := `who wrote "LRO" & <why>?`
	in := jsonl.Header{
		Operation:       "recall",
		Query:           &query,
		Count:           3,
		SchemaVersion:   "mif/1.2",
		EstimatedTokens: 4321,
		Detail:          "light",
	}
	records := []string{
		`{"id":"m1","content":"first"}`,
		`{"id":"m2","tags":["a","b"],"n":1.5e3,"ok":true,"none":null}`,
		`"a bare string is one JSON value too"`,
	}
	if err := w.WriteHeader(in); err != nil {
		t.Fatalf("WriteHeader: %v", err)
	}
	for i, r := range records {
		if err := w.WriteRecord([]byte(r)); err != nil {
			t.Fatalf("WriteRecord(%d): %v", i, err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatalf("Commit: %v", err)
	}

	// The file: header line with every field in order, then the records.
	wantHeader := `{"type":"lro_header","operation":"recall","query":"who wrote \"LRO\" & <why>?","count":3,` +
		`"schema_version":"mif/1.2","timestamp":"2026-11-21T13:31:00.123Z","estimated_tokens":4321,"detail":"light"}`
	if diff := cmp.Diff(append([]string{wantHeader}, records...), readLines(t, w.Path())); diff != "" {
		t.Errorf("file lines mismatch (-want +got):\n%s", diff)
	}
	fi, err := os.Stat(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if w.Size() != fi.Size() {
		t.Errorf("Size() = %d, file has %d bytes", w.Size(), fi.Size())
	}
	if got, want := dirNames(t, dir), []string{filepath.Base(w.Path())}; !slices.Equal(got, want) {
		t.Errorf("directory holds %q after Commit, want only %q", got, want)
	}

	// ReadFile gives back what was written.
	h, got, err := jsonl.ReadFile(w.Path())
	if err != nil {
		t.Fatalf("ReadFile: %v", err)
	}
	want := in
	want.Timestamp = "2026-11-21T13:31:00.123Z"
	if diff := cmp.Diff(want, h); diff != "" {
		t.Errorf("ReadFile header mismatch (-want +got):\n%s", diff)
	}
	var gotRecords []string
	for _, r := range got {
		gotRecords = append(gotRecords, string(r))
	}
	if diff := cmp.Diff(records, gotRecords); diff != "" {
		t.Errorf("ReadFile records mismatch (-want +got):\n%s", diff)
	}
}

func TestPathAndName(t *testing.T) {
	w, dir := create(t, "Search Memories")
	if !filepath.IsAbs(w.Path()) {
		t.Errorf("Path() = %q, want an absolute path", w.Path())
	}
	if got := filepath.Dir(w.Path()); got != dir {
		t.Errorf("Path() is in %q, want %q", got, dir)
	}
	op, id, ok := disk.ParseName(filepath.Base(w.Path()), spec.DefaultPrefix)
	if !ok || op != "search_memories" {
		t.Fatalf("ParseName(%q) = %q, _, %v; want search_memories, true", filepath.Base(w.Path()), op, ok)
	}
	want := fixedNow().UTC().Truncate(time.Millisecond)
	if got := id.Timestamp(); !got.Equal(want) {
		t.Errorf("ULID time = %v, want %v", got, want)
	}
}

func TestHeaderDefaults(t *testing.T) {
	tests := []struct {
		name   string
		in     jsonl.Header
		want   string
		reason string
	}{
		{
			name:   "zero",
			in:     jsonl.Header{},
			want:   `{"type":"lro_header","operation":"Recall Memories","query":null,"count":0,"schema_version":"","timestamp":"2026-11-21T13:31:00.123Z","estimated_tokens":0,"detail":""}`,
			reason: "a nil query is null, the operation defaults to Create's (unsanitized) and the timestamp to Now in UTC with milliseconds",
		},
		{
			name:   "explicit",
			in:     jsonl.Header{Operation: "recall", Timestamp: "2020-01-01T00:00:00Z"},
			want:   `{"type":"lro_header","operation":"recall","query":null,"count":0,"schema_version":"","timestamp":"2020-01-01T00:00:00Z","estimated_tokens":0,"detail":""}`,
			reason: "the type is always lro_header; a given operation and timestamp are kept",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, _ := create(t, "Recall Memories")
			if err := w.WriteHeader(tc.in); err != nil {
				t.Fatal(err)
			}
			if err := w.Commit(); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{tc.want}, readLines(t, w.Path())); diff != "" {
				t.Errorf("%s\nheader mismatch (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

func TestWriteRecordCompacts(t *testing.T) {
	tests := []struct {
		name, in, want string
		reason         string
	}{
		{"compact", `{"a":1}`, `{"a":1}`, "already compact records are written as is"},
		{"indented", "{\n  \"a\": [\n    1,\n    2\n  ]\n}", `{"a":[1,2]}`, "MarshalIndent output must fit on one line"},
		{"crlf", "{\"a\":\r\n1}\r\n", `{"a":1}`, "carriage returns would break line-based tools"},
		{"one line with spaces", `{"a": 1, "b": []}`, `{"a": 1, "b": []}`, "a record without line break is written byte for byte"},
		{"trailing newline", "\t{\"a\": 1}\n", `{"a":1}`, "a record with a line break is compacted entirely"},
		{"spaces and newline", "  { \"a\" : 1 ,\n \"b\" : [ ] }  ", `{"a":1,"b":[]}`, "insignificant spaces go with the line break"},
		{"string whitespace", "{\"a b\":\n\"c\\nd\\te  f\"}", `{"a b":"c\nd\te  f"}`, "whitespace and escapes inside strings are data and kept"},
		{"html", `{"q":"<a & b>"}`, `{"q":"<a & b>"}`, "string bytes are not re-escaped"},
		{"unicode", `{"t":"大型 👍 \u2028"}`, `{"t":"大型 👍 \u2028"}`, "non-ASCII and escapes are kept as given"},
		{"scalar", "42\n", "42", "any JSON value is a record"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, _ := create(t, "recall")
			if err := w.WriteHeader(jsonl.Header{Count: 1}); err != nil {
				t.Fatal(err)
			}
			if err := w.WriteRecord([]byte(tc.in)); err != nil {
				t.Fatalf("WriteRecord(%q): %v", tc.in, err)
			}
			if err := w.Commit(); err != nil {
				t.Fatal(err)
			}
			lines := readLines(t, w.Path())
			if diff := cmp.Diff(tc.want, lines[len(lines)-1]); diff != "" {
				t.Errorf("%s\nrecord line mismatch (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

func TestWriteRecordRejectsInvalid(t *testing.T) {
	tests := []struct {
		name, in string
		reason   string
	}{
		{"empty", "", "no value at all"},
		{"blank", " \n ", "whitespace only"},
		{"truncated", `{"a":`, "an incomplete value"},
		{"two values", `1 2`, "a record is exactly one value"},
		{"two objects", `{}{}`, "a record is exactly one value"},
		{"jsonl", "{}\n{}", "two lines are two records"},
		{"single quotes", `{'a':1}`, "not JSON"},
		{"nan", `NaN`, "not a JSON number"},
		{"bad literal", `nul`, "a misspelled literal"},
		{"unterminated string", `"abc`, "an unterminated string"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, _ := create(t, "recall")
			if err := w.WriteHeader(jsonl.Header{Count: 1}); err != nil {
				t.Fatal(err)
			}
			size := w.Size()
			err := w.WriteRecord([]byte(tc.in))
			if !errors.Is(err, jsonl.ErrInvalidRecord) {
				t.Fatalf("WriteRecord(%q) = %v, want ErrInvalidRecord: %s", tc.in, err, tc.reason)
			}
			if !strings.Contains(err.Error(), w.Path()) {
				t.Errorf("error %q does not name the path %s", err, w.Path())
			}
			if w.Size() != size {
				t.Errorf("after a rejected record Size() = %d; want %d", w.Size(), size)
			}
			// The Writer is still usable.
			if err := w.WriteRecord([]byte(`{}`)); err != nil {
				t.Fatalf("WriteRecord after a rejected record: %v", err)
			}
			if err := w.Commit(); err != nil {
				t.Fatalf("Commit after a rejected record: %v", err)
			}
		})
	}
}

func TestCallOrder(t *testing.T) {
	w, dir := create(t, "recall")
	if err := w.WriteRecord([]byte(`{}`)); !errors.Is(err, jsonl.ErrNoHeader) {
		t.Errorf("WriteRecord before WriteHeader = %v, want ErrNoHeader", err)
	}
	if err := w.WriteHeader(jsonl.Header{Count: -1}); !errors.Is(err, jsonl.ErrInvalidHeader) {
		t.Errorf("WriteHeader(Count: -1) = %v, want ErrInvalidHeader", err)
	}
	if err := w.WriteHeader(jsonl.Header{Count: 1}); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteHeader(jsonl.Header{Count: 1}); !errors.Is(err, jsonl.ErrHeaderWritten) {
		t.Errorf("second WriteHeader = %v, want ErrHeaderWritten", err)
	}
	if err := w.WriteRecord([]byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRecord([]byte(`{}`)); !errors.Is(err, jsonl.ErrClosed) {
		t.Errorf("WriteRecord after Commit = %v, want ErrClosed", err)
	}
	if err := w.WriteHeader(jsonl.Header{}); !errors.Is(err, jsonl.ErrClosed) {
		t.Errorf("WriteHeader after Commit = %v, want ErrClosed", err)
	}
	if err := w.Commit(); !errors.Is(err, jsonl.ErrClosed) {
		t.Errorf("second Commit = %v, want ErrClosed", err)
	}
	if err := w.Abort(); err != nil {
		t.Errorf("Abort after Commit = %v, want nil", err)
	}
	if got, want := dirNames(t, dir), []string{filepath.Base(w.Path())}; !slices.Equal(got, want) {
		t.Errorf("after Commit and Abort the directory holds %q, want %q", got, want)
	}
}

func TestAtomicity(t *testing.T) {
	tests := []struct {
		name    string
		records int // written, against a header count of 2
		finish  func(*jsonl.Writer) error
		wantErr error
		reason  string
	}{
		{"abort", 1, (*jsonl.Writer).Abort, nil, "Abort removes the temporary file"},
		{"abort twice", 1, func(w *jsonl.Writer) error { w.Abort(); return w.Abort() }, nil, "Abort is idempotent"},
		{"too few", 1, (*jsonl.Writer).Commit, jsonl.ErrCountMismatch, "a short file is never committed"},
		{"too many", 3, (*jsonl.Writer).Commit, jsonl.ErrCountMismatch, "neither is a long one"},
		{"commit after abort", 2, func(w *jsonl.Writer) error { w.Abort(); return w.Commit() }, jsonl.ErrClosed, "an aborted Writer cannot commit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w, dir := create(t, "recall")
			if err := w.WriteHeader(jsonl.Header{Count: 2}); err != nil {
				t.Fatal(err)
			}
			for range tc.records {
				if err := w.WriteRecord([]byte(`{"x":1}`)); err != nil {
					t.Fatal(err)
				}
			}
			// Before Commit, only the hidden temporary file exists.
			names := dirNames(t, dir)
			if len(names) != 1 {
				t.Fatalf("directory holds %q while writing, want one temporary file", names)
			}
			if base, ok := disk.TempBase(names[0]); !ok || base != filepath.Base(w.Path()) {
				t.Errorf("directory holds %q while writing, want the temporary file of %s", names[0], w.Path())
			}
			if _, err := os.Lstat(w.Path()); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("Lstat(Path()) before Commit = %v, want ErrNotExist", err)
			}

			err := tc.finish(w)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Errorf("got error %v, want %v: %s", err, tc.wantErr, tc.reason)
			}
			if errors.Is(err, jsonl.ErrCountMismatch) && !strings.Contains(err.Error(), w.Path()) {
				t.Errorf("error %q does not name the path", err)
			}
			if names := dirNames(t, dir); len(names) != 0 {
				t.Errorf("directory holds %q, want nothing: %s", names, tc.reason)
			}
		})
	}
}

// TestCommitWithoutHeader checks that even a Writer never given a header
// leaves nothing behind.
func TestCommitWithoutHeader(t *testing.T) {
	w, dir := create(t, "recall")
	if err := w.Commit(); !errors.Is(err, jsonl.ErrNoHeader) {
		t.Errorf("Commit without header = %v, want ErrNoHeader", err)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("directory holds %q, want nothing", names)
	}
}

// TestCommitRenameFails blocks the final path with a directory, so that the
// rename in Commit fails: the temporary file must still be removed.
func TestCommitRenameFails(t *testing.T) {
	w, dir := create(t, "recall")
	if err := w.WriteHeader(jsonl.Header{Count: 1}); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRecord([]byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(w.Path(), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(w.Path(), "x"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	err := w.Commit()
	if err == nil {
		t.Fatal("Commit over a non-empty directory = nil, want an error")
	}
	if !strings.Contains(err.Error(), w.Path()) {
		t.Errorf("error %q does not name the path", err)
	}
	if got, want := dirNames(t, dir), []string{filepath.Base(w.Path())}; !slices.Equal(got, want) {
		t.Errorf("directory holds %q, want only the blocking directory %q", got, want)
	}
}

func TestModes(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("Unix permissions")
	}
	root := t.TempDir()
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(root, "new parent", "new dir")
	w, err := jsonl.Create("recall", &jsonl.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := w.WriteHeader(jsonl.Header{}); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path   string
		want   fs.FileMode
		reason string
	}{
		{w.Path(), 0o600, "results may hold private data: owner only"},
		{dir, fs.ModeDir | 0o700, "a directory Create makes is owner only"},
		{filepath.Dir(dir), fs.ModeDir | 0o700, "so are the missing parents it makes"},
		{root, fs.ModeDir | 0o755, "an existing directory is not Create's to change"},
	} {
		fi, err := os.Stat(tc.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode(); got != tc.want {
			t.Errorf("mode of %s = %v, want %v: %s", tc.path, got, tc.want, tc.reason)
		}
	}
}

func TestCreateOptions(t *testing.T) {
	t.Run("nil options", func(t *testing.T) {
		w, err := jsonl.Create("recall", nil)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		tmp, err := filepath.Abs(os.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		if got := filepath.Dir(w.Path()); got != tmp {
			t.Errorf("Path() dir = %q, want os.TempDir() %q", got, tmp)
		}
		if base := filepath.Base(w.Path()); !strings.HasPrefix(base, spec.DefaultPrefix+"-recall-") {
			t.Errorf("Path() base = %q, want prefix %q", base, spec.DefaultPrefix+"-recall-")
		}
		if _, id, _ := disk.ParseName(filepath.Base(w.Path()), ""); time.Since(id.Timestamp()) < 0 || time.Since(id.Timestamp()) > time.Minute {
			t.Errorf("the name's time = %v, want about now", id.Timestamp())
		}
	})
	t.Run("relative dir", func(t *testing.T) {
		t.Chdir(t.TempDir())
		w, err := jsonl.Create("recall", &jsonl.Options{Dir: "out"})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		if !filepath.IsAbs(w.Path()) {
			t.Errorf("Path() = %q, want absolute", w.Path())
		}
	})
	t.Run("path with spaces", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "my results", "ünï cödé")
		w, err := jsonl.Create("recall", &jsonl.Options{Dir: dir, Prefix: "my.app_v2-x"})
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		if err := w.WriteHeader(jsonl.Header{Count: 1}); err != nil {
			t.Fatal(err)
		}
		if err := w.WriteRecord([]byte(`{"ok":true}`)); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		if _, recs, err := jsonl.ReadFile(w.Path()); err != nil || len(recs) != 1 {
			t.Fatalf("ReadFile(%q) = %d records, %v; want 1, nil", w.Path(), len(recs), err)
		}
		if _, _, ok := disk.ParseName(filepath.Base(w.Path()), "my.app_v2-x"); !ok {
			t.Errorf("ParseName(%q) with its prefix = false", filepath.Base(w.Path()))
		}
	})
	t.Run("dir is a file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(file, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		if w, err := jsonl.Create("recall", &jsonl.Options{Dir: file}); err == nil {
			w.Abort()
			t.Error("Create in a regular file = nil error, want one")
		}
	})
	t.Run("time before 1970", func(t *testing.T) {
		_, err := jsonl.CreateWith("recall", &jsonl.Options{Dir: t.TempDir()},
			func() time.Time { return time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC) }, nil)
		if err == nil {
			t.Error("Create with a time a ULID cannot hold = nil error, want one")
		}
	})
}

func TestValidatePrefix(t *testing.T) {
	tests := []struct {
		prefix string
		ok     bool
		reason string
	}{
		{"", true, "empty means DefaultPrefix"},
		{"atlatl", true, "the default"},
		{"My_App.v2-lro", true, "every allowed byte class"},
		{strings.Repeat("p", 64), true, "64 bytes is the limit"},
		{strings.Repeat("p", 65), false, "too long for a file name with room to spare"},
		{".hidden", false, "a leading dot would hide committed files like temporary ones"},
		{"a/b", false, "a separator would write outside the directory"},
		{"..", false, "a parent directory reference"},
		{"a b", false, "spaces are not allowed"},
		{"ünï", false, "non-ASCII is not allowed"},
		{"a*", false, "glob characters would confuse a janitor's pattern"},
	}
	for _, tc := range tests {
		err := disk.ValidatePrefix(tc.prefix)
		if (err == nil) != tc.ok {
			t.Errorf("ValidatePrefix(%q) = %v, want ok=%v: %s", tc.prefix, err, tc.ok, tc.reason)
		}
		if err != nil && !errors.Is(err, jsonl.ErrInvalidPrefix) {
			t.Errorf("ValidatePrefix(%q) = %v, want ErrInvalidPrefix", tc.prefix, err)
		}
		w, err := jsonl.Create("recall", &jsonl.Options{Dir: t.TempDir(), Prefix: tc.prefix})
		if tc.ok != (err == nil) {
			t.Errorf("Create with prefix %q = %v, want ok=%v: %s", tc.prefix, err, tc.ok, tc.reason)
		}
		if err != nil {
			if !errors.Is(err, jsonl.ErrInvalidPrefix) || !strings.Contains(err.Error(), fmt.Sprintf("%q", tc.prefix)) {
				t.Errorf("Create with prefix %q = %v, want ErrInvalidPrefix naming the prefix", tc.prefix, err)
			}
			continue
		}
		w.Abort()
	}
}

// TestConcurrentWriters writes 64 × 20 files at once in one directory, all in
// the same millisecond as far as the ULIDs know: every name must be unique
// and every file complete.
func TestConcurrentWriters(t *testing.T) {
	const goroutines, files, records = 64, 20, 5
	dir := t.TempDir()
	var (
		mu    sync.Mutex
		paths = make(map[string]bool)
		wg    sync.WaitGroup
	)
	errs := make(chan error, goroutines)
	for g := range goroutines {
		wg.Go(func() {
			for f := range files {
				w, err := jsonl.CreateWith("recall", &jsonl.Options{Dir: dir}, fixedNow, nil)
				if err != nil {
					errs <- err
					return
				}
				err = w.WriteHeader(jsonl.Header{Count: records})
				for r := 0; r < records && err == nil; r++ {
					err = w.WriteRecord(fmt.Appendf(nil, `{"g":%d,"f":%d,"r":%d}`, g, f, r))
				}
				if err == nil {
					err = w.Commit()
				}
				if err != nil {
					w.Abort()
					errs <- err
					return
				}
				mu.Lock()
				if paths[w.Path()] {
					errs <- fmt.Errorf("path %s used twice", w.Path())
				}
				paths[w.Path()] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got, want := len(paths), goroutines*files; got != want {
		t.Fatalf("%d distinct paths, want %d", got, want)
	}
	if got := len(dirNames(t, dir)); got != goroutines*files {
		t.Errorf("directory holds %d files, want %d (no temporary file left)", got, goroutines*files)
	}
	for p := range paths {
		if _, recs, err := jsonl.ReadFile(p); err != nil || len(recs) != records {
			t.Errorf("ReadFile(%s) = %d records, %v; want %d", p, len(recs), err, records)
		}
	}
}

func TestReadFile(t *testing.T) {
	const header = `{"type":"lro_header","count":2}`
	long := `{"content":"` + strings.Repeat("x", 1<<20) + `"}`
	tests := []struct {
		name    string
		content string
		want    []string
		wantErr error
		reason  string
	}{
		{"ok", header + "\n{\"a\":1}\n[2]\n", []string{`{"a":1}`, `[2]`}, nil, "the format Writer produces"},
		{"no final newline", header + "\n{\"a\":1}\n[2]", []string{`{"a":1}`, `[2]`}, nil, "the last line may lack its newline"},
		{"crlf", header + "\r\n{\"a\":1}\r\n[2]\r\n", []string{`{"a":1}`, `[2]`}, nil, "Windows line endings are not part of records"},
		{"long lines", header + "\n" + long + "\n" + long + "\n", []string{long, long}, nil, "records of any length"},
		{"too few", header + "\n{}\n", nil, jsonl.ErrCountMismatch, "a truncated file"},
		{"too many", header + "\n{}\n{}\n{}\n", nil, jsonl.ErrCountMismatch, "more lines than announced"},
		{"blank line", header + "\n{}\n\n{}\n", nil, jsonl.ErrInvalidRecord, "an empty line is not a record"},
		{"invalid line", header + "\n{}\n{\n", nil, jsonl.ErrInvalidRecord, "a record must be valid JSON"},
		{"empty file", "", nil, jsonl.ErrNotOffloadFile, "no header"},
		{"no header", "{}\n{}\n", nil, jsonl.ErrNotOffloadFile, "a plain JSONL file"},
		{"negative count", `{"type":"lro_header","count":-2}` + "\n", nil, jsonl.ErrInvalidHeader, "a count is never negative"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f.jsonl")
			if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
				t.Fatal(err)
			}
			_, recs, err := jsonl.ReadFile(path)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("ReadFile error = %v, want %v: %s", err, tc.wantErr, tc.reason)
			}
			if err != nil && !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the path", err)
			}
			var got []string
			for _, r := range recs {
				got = append(got, string(r))
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nrecords mismatch (-want +got):\n%s", tc.reason, diff)
			}
		})
	}

	t.Run("missing file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "missing.jsonl")
		if _, _, err := jsonl.ReadFile(path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("ReadFile(missing) = %v, want ErrNotExist", err)
		}
	})
	t.Run("records do not alias", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "f.jsonl")
		if err := os.WriteFile(path, []byte(header+"\n[1]\n[2]\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		_, recs, err := jsonl.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		_ = append(recs[0], "XXXX"...)
		if string(recs[1]) != "[2]" {
			t.Errorf("appending to record 0 changed record 1 to %q", recs[1])
		}
	})
}

func TestAbortNil(t *testing.T) {
	var w *jsonl.Writer
	if err := w.Abort(); err != nil {
		t.Errorf("(*Writer)(nil).Abort() = %v, want nil", err)
	}
}

// TestExtension: the members of Header.Extension follow the
// specification's fields on the header line, and read back in order; an
// empty object adds nothing, and what is not one object is refused.
func TestExtension(t *testing.T) {
	tests := []struct {
		ext      string
		line     string // after the specification's fields; "" for an error
		readBack string
	}{
		{`{"b":1, "a":[2]}`, `,"b":1,"a":[2]}`, `{"b":1,"a":[2]}`},
		{`{}`, `}`, ``},
		{`[1]`, ``, ``},
		{`{"a":1`, ``, ``},
	}
	for _, tt := range tests {
		w, _ := create(t, "recall")
		err := w.WriteHeader(jsonl.Header{Extension: json.RawMessage(tt.ext)})
		if tt.line == "" {
			if err == nil {
				t.Errorf("WriteHeader with extension %s = nil, want an error", tt.ext)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		lines := readLines(t, w.Path())
		if !strings.HasSuffix(lines[0], `"detail":""`+tt.line) {
			t.Errorf("extension %s: header line %s, want it to end in %s", tt.ext, lines[0], tt.line)
		}
		h, _, err := jsonl.ReadFile(w.Path())
		if err != nil || string(h.Extension) != tt.readBack {
			t.Errorf("extension %s read back as %s, %v; want %s", tt.ext, h.Extension, err, tt.readBack)
		}
	}
}
