package jsonl_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"github.com/zircote/lro-go/internal/disk"
	"github.com/zircote/lro-go/jsonl"
)

// memSink is a destination with Commit and Abort that keeps what is written in memory and shows it in
// committed only on Commit.
type memSink struct {
	buf       bytes.Buffer
	committed []byte // nil until Commit
	commits   int
	aborts    int
	commitErr error
}

func (s *memSink) Write(p []byte) (int, error) { return s.buf.Write(p) }

func (s *memSink) Commit() error {
	s.commits++
	if s.commitErr != nil {
		return s.commitErr
	}
	s.committed = bytes.Clone(s.buf.Bytes())
	return nil
}

func (s *memSink) Abort() error { s.aborts++; return nil }

func TestNewWriterCommits(t *testing.T) {
	sink := &memSink{}
	w := jsonl.NewWriter(sink, "atlatl-recall.jsonl", "Recall")
	defer w.Abort()
	if w.Path() != "atlatl-recall.jsonl" {
		t.Fatalf("Path() = %q, want the path given", w.Path())
	}
	if err := w.WriteHeader(jsonl.Header{Count: 2}); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRecord([]byte(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRecord([]byte("[1,\n2]")); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRecord([]byte(`{`)); !errors.Is(err, jsonl.ErrInvalidRecord) {
		t.Errorf("WriteRecord({) = %v, want ErrInvalidRecord", err)
	}
	if sink.committed != nil || sink.buf.Len() != 0 {
		t.Errorf("before Commit the sink holds %q (committed %q); want nothing: the Writer buffers", sink.buf.Bytes(), sink.committed)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil || sink.aborts != 0 || sink.commits != 1 {
		t.Errorf("Abort after Commit = %v; sink committed %d times, aborted %d times; want nil, 1, 0", err, sink.commits, sink.aborts)
	}
	h, err := jsonl.ReadHeader(bytes.NewReader(sink.committed))
	if err != nil || h.Operation != "Recall" || h.Count != 2 {
		t.Errorf("ReadHeader = %+v, %v", h, err)
	}
	if want := `{"a":1}` + "\n[1,2]\n"; !bytes.HasSuffix(sink.committed, []byte(want)) || int64(len(sink.committed)) != w.Size() {
		t.Errorf("committed %q (Size %d); want it to end in %q", sink.committed, w.Size(), want)
	}
}

func TestNewWriterAborts(t *testing.T) {
	tests := []struct {
		name   string
		finish func(w *jsonl.Writer, s *memSink) error
		reason string
	}{
		{"abort", func(w *jsonl.Writer, s *memSink) error { return w.Abort() }, "Abort aborts the sink"},
		{"count", func(w *jsonl.Writer, s *memSink) error { w.Commit(); return nil }, "a count mismatch aborts instead of committing"},
		{"write error", func(w *jsonl.Writer, s *memSink) error {
			if err := w.WriteRecord(bytes.Repeat([]byte("1"), 100<<10)); err == nil {
				t.Error("a write past the buffer to a failing writer succeeded")
			}
			if err := w.Commit(); err == nil {
				t.Error("Commit after a failed write succeeded")
			}
			return nil
		}, "a failed write aborts on Commit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &memSink{}
			dst := disk.Sink(s)
			if tc.name == "write error" {
				dst = disk.Wrap(s, func(io.Writer) io.Writer { return failWriter{} })
			}
			w := jsonl.NewWriter(dst, "", "recall")
			if err := w.WriteHeader(jsonl.Header{Count: 2}); err != nil {
				t.Fatal(err)
			}
			if err := tc.finish(w, s); err != nil {
				t.Fatal(err)
			}
			w.Abort()
			if s.committed != nil || s.commits != 0 || s.aborts != 1 {
				t.Errorf("%s: sink committed %d times (%q), aborted %d times; want 0, 1", tc.reason, s.commits, s.committed, s.aborts)
			}
		})
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }

func TestNewWriterCommitFails(t *testing.T) {
	boom := errors.New("boom")
	s := &memSink{commitErr: boom}
	w := jsonl.NewWriter(s, "", "recall")
	w.WriteHeader(jsonl.Header{})
	if err := w.Commit(); !errors.Is(err, boom) {
		t.Errorf("Commit = %v, want the sink's error", err)
	}
	if err := w.Abort(); err != nil || s.aborts != 0 || s.commits != 1 {
		t.Errorf("after a failed sink Commit: Abort = %v, sink committed %d, aborted %d; want nil, 1, 0 (a Sink hears Commit or Abort, once)", err, s.commits, s.aborts)
	}
	if err := w.Commit(); !errors.Is(err, jsonl.ErrClosed) {
		t.Errorf("second Commit = %v, want ErrClosed", err)
	}
}
