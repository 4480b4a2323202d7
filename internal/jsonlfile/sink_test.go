package jsonlfile_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"regexp"
	"testing"
	"time"

	"github.com/zircote/lro-go/internal/jsonlfile"
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
	w, err := jsonlfile.NewWriter("Recall", func(name string) (jsonlfile.Sink, error) {
		gotName = name
		return sink, nil
	}, &jsonlfile.Options{Random: true, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if w.Name() != gotName || !randomName.MatchString(gotName) || w.Path() != "" {
		t.Fatalf("Name() = %q, Path() = %q, open got %q; want a random name matching %v and no path", w.Name(), w.Path(), gotName, randomName)
	}
	if op, id, ok := jsonlfile.ParseName(w.Name(), ""); !ok || op != "recall" || !w.CreatedAt().Equal(now) || id.Time() != uint64(now.UnixMilli()) {
		t.Errorf("ParseName(%q) = %q, %v, %v; CreatedAt %v; want recall at %v", w.Name(), op, id, ok, w.CreatedAt(), now)
	}
	if err := w.WriteHeader(jsonlfile.Header{Count: 2}); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRecord([]byte(`{"a":1}`)); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRecord([]byte("[1,\n2]")); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRecord([]byte(`{`)); !errors.Is(err, jsonlfile.ErrInvalidRecord) {
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
	h, err := jsonlfile.ReadHeader(bytes.NewReader(sink.committed))
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
		finish func(w *jsonlfile.Writer, s *memSink) error
		reason string
	}{
		{"abort", func(w *jsonlfile.Writer, s *memSink) error { return w.Abort() }, "Abort aborts the sink"},
		{"count", func(w *jsonlfile.Writer, s *memSink) error { w.Commit(); return nil }, "a count mismatch aborts instead of committing"},
		{"write error", func(w *jsonlfile.Writer, s *memSink) error {
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
			opts := &jsonlfile.Options{}
			if tc.name == "write error" {
				opts.WrapWriter = func(io.Writer) io.Writer { return failWriter{} }
			}
			w, err := jsonlfile.NewWriter("recall", func(string) (jsonlfile.Sink, error) { return s, nil }, opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.WriteHeader(jsonlfile.Header{Count: 2}); err != nil {
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
	w, err := jsonlfile.NewWriter("recall", func(string) (jsonlfile.Sink, error) { return s, nil }, nil)
	if err != nil {
		t.Fatal(err)
	}
	w.WriteHeader(jsonlfile.Header{})
	if err := w.Commit(); !errors.Is(err, boom) {
		t.Errorf("Commit = %v, want the sink's error", err)
	}
	if err := w.Abort(); err != nil || s.aborts != 0 || s.commits != 1 {
		t.Errorf("after a failed sink Commit: Abort = %v, sink committed %d, aborted %d; want nil, 1, 0 (a Sink hears Commit or Abort, once)", err, s.commits, s.aborts)
	}
	if err := w.Commit(); !errors.Is(err, jsonlfile.ErrClosed) {
		t.Errorf("second Commit = %v, want ErrClosed", err)
	}
}

func TestNewWriterOpenFails(t *testing.T) {
	boom := errors.New("boom")
	if _, err := jsonlfile.NewWriter("recall", func(string) (jsonlfile.Sink, error) { return nil, boom }, nil); !errors.Is(err, boom) {
		t.Errorf("NewWriter = %v, want open's error", err)
	}
	if _, err := jsonlfile.NewWriter("recall", nil, &jsonlfile.Options{Prefix: ".x"}); !errors.Is(err, jsonlfile.ErrInvalidPrefix) {
		t.Errorf("NewWriter with prefix .x = %v, want ErrInvalidPrefix", err)
	}
}

func TestCreateRandom(t *testing.T) {
	dir := t.TempDir()
	names := map[string]bool{}
	for range 3 {
		w, err := jsonlfile.Create("recall", &jsonlfile.Options{Dir: dir, Random: true})
		if err != nil {
			t.Fatal(err)
		}
		w.WriteHeader(jsonlfile.Header{})
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		if !randomName.MatchString(w.Name()) || names[w.Name()] {
			t.Errorf("Create with Random named %q; want a new name matching %v", w.Name(), randomName)
		}
		names[w.Name()] = true
		if _, _, err := jsonlfile.ReadFile(w.Path()); err != nil {
			t.Error(err)
		}
	}
}
