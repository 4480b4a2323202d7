package jsonl

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"os"
	"testing"
	"time"
)

// TestCommitFlushFails makes the final flush of Commit fail by closing the
// file underneath the Writer: the temporary file must be removed and the
// final one never appear.
func TestCommitFlushFails(t *testing.T) {
	dir := t.TempDir()
	c := &closable{}
	w, err := create("recall", &Options{Dir: dir}, time.Now, c.wrap)
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
	c.closed = true // the header and record are still in the buffer

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
	c := &closable{}
	w, err := create("recall", &Options{Dir: dir}, time.Now, c.wrap)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := w.WriteHeader(Header{Count: 2}); err != nil {
		t.Fatal(err)
	}
	c.closed = true
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
	if err := w.WriteValid([]byte(`1`)); err != first {
		t.Errorf("WriteValid = %v, want the first error %v", err, first)
	}
	if err := w.Commit(); err != first {
		t.Errorf("Commit = %v, want the first error %v", err, first)
	}
	checkEmpty(t, dir)
}

// closable writes through to the file until closed, then fails as a
// closed file does.
type closable struct {
	w      io.Writer
	closed bool
}

func (c *closable) wrap(w io.Writer) io.Writer { c.w = w; return c }

func (c *closable) Write(p []byte) (int, error) {
	if c.closed {
		return 0, os.ErrClosed
	}
	return c.w.Write(p)
}

// checkEmpty fails t for every entry of dir.
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

// TestWriteValid: the offload core's write of a record line it has
// validated itself is WriteRecord without the validation: the same checks
// of the Writer's state, the same count and the same line in the file.
func TestWriteValid(t *testing.T) {
	w, err := Create("recall", &Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := w.WriteValid([]byte(`{"a":1}`)); err != errNoHeader {
		t.Errorf("Write before the header = %v, want errNoHeader", err)
	}
	if err := w.WriteHeader(Header{Count: 2}); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{`{"a":1}`, `[2]`} {
		if err := w.WriteValid([]byte(line)); err != nil {
			t.Fatal(err)
		}
	}
	if w.count != 2 {
		t.Errorf("count = %d, want 2", w.count)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteValid([]byte(`1`)); err != errClosed {
		t.Errorf("Write after Commit = %v, want errClosed", err)
	}
	data, err := os.ReadFile(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if _, recs, _ := bytes.Cut(data, []byte("\n")); string(recs) != "{\"a\":1}\n[2]\n" {
		t.Errorf("records = %q", recs)
	}
}
