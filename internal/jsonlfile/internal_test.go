package jsonlfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/oklog/ulid/v2"

	"github.com/zircote/lro-go/internal/tempname"
)

// TestCommitFlushFails makes the final flush of Commit fail by closing the
// file underneath the Writer: the temporary file must be removed and the
// final one never appear.
func TestCommitFlushFails(t *testing.T) {
	dir := t.TempDir()
	w, err := Create("recall", &Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := w.WriteHeader(Header{Count: 1}); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRecord([]byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	w.sink.(*tempFile).f.Close() // the header and record are still in the buffer

	if err := w.Commit(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Commit = %v, want the flush error os.ErrClosed", err)
	}
	checkEmpty(t, dir)
	if _, err := os.Lstat(w.Path()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Lstat(Path()) = %v, want ErrNotExist", err)
	}
}

// TestWriteErrorIsSticky makes a write fail: later writes and Commit return
// the same error, and Commit removes the temporary file.
func TestWriteErrorIsSticky(t *testing.T) {
	dir := t.TempDir()
	w, err := Create("recall", &Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := w.WriteHeader(Header{Count: 2}); err != nil {
		t.Fatal(err)
	}
	w.sink.(*tempFile).f.Close()
	big := make([]byte, bufferSize+2) // larger than the buffer: written through
	big[0], big[len(big)-1] = '"', '"'
	for i := 1; i < len(big)-1; i++ {
		big[i] = 'x'
	}
	first := w.WriteRecord(big)
	if !errors.Is(first, os.ErrClosed) {
		t.Fatalf("WriteRecord to a closed file = %v, want os.ErrClosed", first)
	}
	if err := w.WriteRecord([]byte(`{}`)); err != first {
		t.Errorf("next WriteRecord = %v, want the first error %v", err, first)
	}
	if err := w.WriteValue(1); err != first {
		t.Errorf("WriteValue = %v, want the first error %v", err, first)
	}
	if err := w.Commit(); err != first {
		t.Errorf("Commit = %v, want the first error %v", err, first)
	}
	checkEmpty(t, dir)
}

func checkEmpty(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("directory holds %s, want nothing", e.Name())
	}
}

// TestCreateRetriesOnCollision forces Create to draw ULIDs whose temporary or
// final name is taken: it must move on to a free name, and give up with
// fs.ErrExist after createAttempts.
func TestCreateRetriesOnCollision(t *testing.T) {
	taken1 := ulid.MustParseStrict("01M7Z4V5MVAEP07QR38R3NRT01")
	taken2 := ulid.MustParseStrict("01M7Z4V5MVAEP07QR38R3NRT02")
	free := ulid.MustParseStrict("01M7Z4V5MVAEP07QR38R3NRT03")
	dir := t.TempDir()
	// taken1 has a temporary file (a writer in progress), taken2 a
	// committed file: neither may be reused or overwritten.
	tmp1 := filepath.Join(dir, tempname.Of(Name("", "recall", taken1)))
	final2 := filepath.Join(dir, Name("", "recall", taken2))
	for _, p := range []string{tmp1, final2} {
		if err := os.WriteFile(p, []byte("keep"), 0o600); err != nil {
			t.Fatal(err)
		}
	}

	defer func(orig func(uint64) (ulid.ULID, error)) { newID = orig }(newID)
	var calls int
	newID = func(uint64) (ulid.ULID, error) {
		calls++
		return []ulid.ULID{taken1, taken2, free}[min(calls-1, 2)], nil
	}
	w, err := Create("recall", &Options{Dir: dir})
	if err != nil {
		t.Fatalf("Create = %v, want success on the third name", err)
	}
	defer w.Abort()
	if want := filepath.Join(dir, Name("", "recall", free)); w.Path() != want || calls != 3 {
		t.Errorf("Path() = %s after %d draws, want %s after 3", w.Path(), calls, want)
	}
	for _, p := range []string{tmp1, final2} {
		if data, err := os.ReadFile(p); err != nil || string(data) != "keep" {
			t.Errorf("%s = %q, %v; want it untouched", p, data, err)
		}
	}

	newID = func(uint64) (ulid.ULID, error) { return taken1, nil }
	if w, err := Create("recall", &Options{Dir: dir}); !errors.Is(err, fs.ErrExist) {
		if err == nil {
			w.Abort()
		}
		t.Errorf("Create with every name taken = %v, want fs.ErrExist", err)
	}
}

// TestWriteValid: the offload core's write of a record line it has
// validated itself is WriteRecord without the validation: the same checks
// of the Writer's state, the same count and the same line in the file.
func TestWriteValid(t *testing.T) {
	w, err := Create("recall", &Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := WriteValid(w, []byte(`{"a":1}`)); err != ErrNoHeader {
		t.Errorf("Write before the header = %v, want ErrNoHeader", err)
	}
	if err := w.WriteHeader(Header{Count: 2}); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{`{"a":1}`, `[2]`} {
		if err := WriteValid(w, []byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	if w.Count() != 2 {
		t.Errorf("Count() = %d, want 2", w.Count())
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := WriteValid(w, []byte(`1`)); err != ErrClosed {
		t.Errorf("Write after Commit = %v, want ErrClosed", err)
	}
	data, err := os.ReadFile(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if _, recs, _ := bytes.Cut(data, []byte("\n")); string(recs) != "{\"a\":1}\n[2]\n" {
		t.Errorf("records = %q", recs)
	}
}
