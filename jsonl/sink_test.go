package jsonl_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/zircote/lro-go/jsonl"
)

// memSink is a Sink that keeps what is written in memory and shows it in
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

// randomName is the grammar of a name of Options.Random.
var randomName = regexp.MustCompile(`^atlatl-recall-[0-9A-HJKMNP-TV-Z]{26}-[0-9a-f]{32}\.jsonl$`)

func TestNewWriterCommits(t *testing.T) {
	sink := &memSink{}
	var gotName string
	now := time.Date(2026, 11, 21, 13, 31, 0, 123e6, time.UTC)
	w, err := jsonl.NewWriter("Recall", func(name string) (jsonl.Sink, error) {
		gotName = name
		return sink, nil
	}, &jsonl.Options{Random: true, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if w.Name() != gotName || !randomName.MatchString(gotName) || w.Path() != "" {
		t.Fatalf("Name() = %q, Path() = %q, open got %q; want a random name matching %v and no path", w.Name(), w.Path(), gotName, randomName)
	}
	if op, id, ok := jsonl.ParseName(w.Name(), ""); !ok || op != "recall" || !w.CreatedAt().Equal(now) || id.Time() != uint64(now.UnixMilli()) {
		t.Errorf("ParseName(%q) = %q, %v, %v; CreatedAt %v; want recall at %v", w.Name(), op, id, ok, w.CreatedAt(), now)
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
	if want := `{"a":1}` + "\n[1,2]\n"; !bytes.HasSuffix(sink.committed, []byte(want)) || int64(len(sink.committed)) != w.Size() || w.Count() != 2 {
		t.Errorf("committed %q (Size %d, Count %d); want it to end in %q", sink.committed, w.Size(), w.Count(), want)
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
			opts := &jsonl.Options{}
			if tc.name == "write error" {
				opts.WrapWriter = func(io.Writer) io.Writer { return failWriter{} }
			}
			w, err := jsonl.NewWriter("recall", func(string) (jsonl.Sink, error) { return s, nil }, opts)
			if err != nil {
				t.Fatal(err)
			}
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
	w, err := jsonl.NewWriter("recall", func(string) (jsonl.Sink, error) { return s, nil }, nil)
	if err != nil {
		t.Fatal(err)
	}
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

func TestNewWriterOpenFails(t *testing.T) {
	boom := errors.New("boom")
	if _, err := jsonl.NewWriter("recall", func(string) (jsonl.Sink, error) { return nil, boom }, nil); !errors.Is(err, boom) {
		t.Errorf("NewWriter = %v, want open's error", err)
	}
	if _, err := jsonl.NewWriter("recall", nil, &jsonl.Options{Prefix: ".x"}); !errors.Is(err, jsonl.ErrInvalidPrefix) {
		t.Errorf("NewWriter with prefix .x = %v, want ErrInvalidPrefix", err)
	}
}

func TestCreateRandom(t *testing.T) {
	dir := t.TempDir()
	names := map[string]bool{}
	for range 3 {
		w, err := jsonl.Create("recall", &jsonl.Options{Dir: dir, Random: true})
		if err != nil {
			t.Fatal(err)
		}
		w.WriteHeader(jsonl.Header{})
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		if !randomName.MatchString(w.Name()) || names[w.Name()] {
			t.Errorf("Create with Random named %q; want a new name matching %v", w.Name(), randomName)
		}
		names[w.Name()] = true
		if _, _, err := jsonl.ReadFile(w.Path()); err != nil {
			t.Error(err)
		}
	}
}
