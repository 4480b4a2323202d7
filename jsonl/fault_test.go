package jsonl_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/zircote/lro-go/jsonl"
)

// fullDisk is a writer in front of a file that behaves like a file system
// with limit bytes free: it writes what fits, then fails with
// syscall.ENOSPC, as write(2) does on a full disk.
type fullDisk struct {
	w       io.Writer
	limit   int
	written int // bytes that reached w
	fails   int // writes that returned ENOSPC
}

func (d *fullDisk) Write(p []byte) (int, error) {
	free := d.limit - d.written
	if len(p) <= free {
		n, err := d.w.Write(p)
		d.written += n
		return n, err
	}
	n, err := d.w.Write(p[:max(free, 0)])
	d.written += n
	if err != nil {
		return n, err
	}
	d.fails++
	return n, syscall.ENOSPC
}

// record returns a JSON string record of exactly size bytes (size >= 2).
func record(i, size int) []byte {
	s := fmt.Sprintf(`"r%06d `, i)
	return []byte(s + strings.Repeat("x", size-len(s)-1) + `"`)
}

// TestDiskFull writes through a writer that runs out of space after limit
// bytes. Whatever the point of failure (the first flush of the buffer, a
// record larger than the buffer written through, a later flush, or the final
// flush in Commit), the error wraps ENOSPC, stays the Writer's error, and
// nothing is left in the directory: no final file and no temporary file.
func TestDiskFull(t *testing.T) {
	tests := []struct {
		name  string
		limit int   // free bytes
		sizes []int // record sizes
		// failsAt is the index of the first record whose write fails, or
		// len(sizes) for Commit. A record of 1000 bytes takes 1001 with its
		// line ending and the header about 150, so record k overflows the
		// 64 KiB buffer (and makes it flush) when 150+1001k+1000 > 65536,
		// the first time for k = 65, the second time for k = 130.
		failsAt int
		reason  string
	}{
		{"no space, small file", 0, []int{100, 100}, 2,
			"everything fits in the buffer, so the first write to the disk is the flush in Commit"},
		{"no space, record larger than the buffer", 0, []int{jsonl.BufferSize + 10}, 0,
			"a record that does not fit in the buffer is written through at once"},
		{"space for the header and some records", 1000, repeat(1000, 100), 65,
			"the first flush, after about 64 KiB of records were buffered, writes 1000 bytes and fails"},
		{"space for 100 KiB", 100 << 10, repeat(1000, 200), 130,
			"the first flush succeeds, the second one fails after some of its bytes were written"},
		{"space for all but the last flush", 150 << 10, repeat(1000, 155), 155,
			"two flushes succeed and the final one, in Commit, fails"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var disk *fullDisk
			w, err := jsonl.CreateWith("recall", &jsonl.Options{Dir: dir}, time.Now, func(w io.Writer) io.Writer {
				disk = &fullDisk{w: w, limit: tt.limit}
				return disk
			})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Abort()
			if err := w.WriteHeader(jsonl.Header{Count: len(tt.sizes)}); err != nil {
				t.Fatalf("WriteHeader: %v (the header is buffered and cannot fail)", err)
			}
			var first error
			for i, size := range tt.sizes {
				rec := record(i, size)
				err = w.WriteRecord(rec)
				if err != nil {
					if i != tt.failsAt {
						t.Fatalf("record %d failed (%v), want the first failure at %d: %s", i, err, tt.failsAt, tt.reason)
					}
					first = err
					break
				}
			}
			if first == nil && tt.failsAt != len(tt.sizes) {
				t.Fatalf("no write failed, want record %d to fail: %s", tt.failsAt, tt.reason)
			}
			if first != nil {
				if !errors.Is(first, syscall.ENOSPC) {
					t.Fatalf("write error = %v, want ENOSPC", first)
				}
				// The temporary file holds exactly what fitted, and no final
				// file exists yet.
				names := dirNames(t, dir)
				if len(names) != 1 || !strings.HasSuffix(names[0], ".tmp") {
					t.Fatalf("after the failed write the directory holds %q, want one temporary file", names)
				}
				if fi, err := os.Stat(filepath.Join(dir, names[0])); err != nil || fi.Size() != int64(disk.written) {
					t.Errorf("temporary file: %v, %v; want %d bytes, what the full disk took", fi, err, disk.written)
				}
				if err := w.WriteRecord([]byte(`{}`)); err != first {
					t.Errorf("WriteRecord after the failure = %v, want the first error", err)
				}
			}
			err = w.Commit()
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("Commit = %v, want ENOSPC: %s", err, tt.reason)
			}
			if first != nil && err != first {
				t.Errorf("Commit = %v, want the first write error %v", err, first)
			}
			if disk.fails == 0 || disk.written != tt.limit {
				t.Errorf("disk took %d of %d bytes with %d failures: the failure was not injected where planned", disk.written, tt.limit, disk.fails)
			}
			checkNothingLeft(t, dir)
			if _, err := os.Lstat(w.Path()); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("Lstat(Path()) = %v, want ErrNotExist", err)
			}
			if err := w.Abort(); err != nil {
				t.Errorf("Abort after the failed Commit = %v", err)
			}
		})
	}
}

// TestDiskFullAbort checks the other way out of a failed write: the caller
// aborts instead of committing, and the partial temporary file is removed.
func TestDiskFullAbort(t *testing.T) {
	dir := t.TempDir()
	w, err := jsonl.CreateWith("recall", &jsonl.Options{Dir: dir}, time.Now, func(w io.Writer) io.Writer {
		return &fullDisk{w: w, limit: 5000}
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WriteHeader(jsonl.Header{Count: 100}); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		if err := w.WriteRecord(record(i, 1000)); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("WriteRecord = %v, want ENOSPC", err)
			}
			break
		}
	}
	if names := dirNames(t, dir); len(names) != 1 {
		t.Fatalf("directory holds %q, want the partial temporary file", names)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	checkNothingLeft(t, dir)
}

func repeat(size, n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = size
	}
	return s
}

// checkNothingLeft fails the test if dir holds anything, hidden temporary
// files included.
func checkNothingLeft(t *testing.T, dir string) {
	t.Helper()
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("directory holds %q, want nothing", names)
	}
}

// panicker is a writer in front of a file that panics on its write number
// at (counted from 1) and passes the others through.
type panicker struct {
	w      io.Writer
	at, n  int
	panics bool // it has panicked
}

func (p *panicker) Write(b []byte) (int, error) {
	p.n++
	if p.n == p.at {
		p.panics = true
		panic("injected write panic")
	}
	return p.w.Write(b)
}

// TestWrapWriterPanics makes the wrap function of CreateWith, or the writer
// it returns, panic at each point of a file's life. The caller recovers
// after its deferred Abort has run, as a server's recovering middleware
// would: whatever the point, the directory must be left empty.
func TestWrapWriterPanics(t *testing.T) {
	big := strings.Repeat("q", jsonl.BufferSize+10)
	tests := []struct {
		name string
		// wrapPanics makes the wrap function itself panic, inside
		// Create: there is no Writer yet to Abort.
		wrapPanics bool
		header     jsonl.Header
		sizes      []int // record sizes
		at         int   // the write that panics
		reason     string
	}{
		{name: "wrap itself", wrapPanics: true, header: jsonl.Header{Count: 1}, sizes: []int{10},
			reason: "Create made the temporary file before calling wrap; it must remove it"},
		{name: "header", header: jsonl.Header{Count: 1, Query: &big}, sizes: []int{10}, at: 1,
			reason: "a header larger than the buffer is written through in WriteHeader"},
		{name: "first record", header: jsonl.Header{Count: 1}, sizes: []int{jsonl.BufferSize + 10}, at: 1,
			reason: "a record larger than the buffer is written through in WriteRecord"},
		{name: "a later record", header: jsonl.Header{Count: 3}, sizes: repeat(jsonl.BufferSize/2, 3), at: 2,
			reason: "the second flush of the buffer, after one that reached the file"},
		{name: "commit flush", header: jsonl.Header{Count: 2}, sizes: []int{10, 10}, at: 1,
			reason: "everything fits in the buffer: the only write is the flush in Commit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var p *panicker
			opts := &jsonl.Options{Dir: dir}
			wrap := func(w io.Writer) io.Writer {
				if tt.wrapPanics {
					panic("injected wrap panic")
				}
				p = &panicker{w: w, at: tt.at}
				return p
			}
			recovered := func() (r any) {
				defer func() { r = recover() }()
				w, err := jsonl.CreateWith("recall", opts, time.Now, wrap)
				if err != nil {
					t.Fatal(err)
				}
				defer w.Abort()
				if err := w.WriteHeader(tt.header); err != nil {
					t.Fatal(err)
				}
				for i, size := range tt.sizes {
					if err := w.WriteRecord(record(i, size)); err != nil {
						t.Fatal(err)
					}
				}
				if err := w.Commit(); err != nil {
					t.Fatal(err)
				}
				return nil
			}()
			if recovered == nil || (!tt.wrapPanics && !p.panics) {
				t.Fatalf("recovered %v: the panic was not injected where planned: %s", recovered, tt.reason)
			}
			checkNothingLeft(t, dir)
		})
	}
}
