package extract

import (
	"context"
	"errors"
	"github.com/zircote/lro-go/lro"
	"io"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/zircote/lro-go/jsonl"
)

func writeFile(t testing.TB, dir string, records ...any) string {
	t.Helper()
	w, err := jsonl.Create("recall", &jsonl.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := w.WriteHeader(jsonl.Header{Count: len(records), Detail: "full"}); err != nil {
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
	return w.Path()
}

// TestLineRange reads character ranges of a line far longer than the read
// buffer, whose multi-byte characters straddle the buffer's boundaries.
func TestLineRange(t *testing.T) {
	dir := t.TempDir()
	long := strings.Repeat("aé日😀", 50_000) // 10 bytes, 4 characters
	path := writeFile(t, dir, long, "short")
	c, err := newConfig(&Options{LRO: &lro.Options{OutputDir: dir}})
	if err != nil {
		t.Fatal(err)
	}
	want := []rune(`"` + long + `"`)
	for _, tt := range []struct{ offset, count int }{
		{0, 10}, {1, 5}, {65_530, 20}, {131_071, 3}, {len(want) - 5, 100}, {len(want), 10}, {len(want) + 7, 10}, {0, len(want) + 1},
	} {
		src, err := c.openSource(context.Background(), ref{argFilePath, path})
		if err != nil {
			t.Fatal(err)
		}
		text, total, ok, err := src.lineRange(tt.offset, tt.count)
		if err != nil || !ok {
			t.Fatalf("lineRange(%d, %d): ok %v, err %v", tt.offset, tt.count, ok, err)
		}
		lo, hi := min(tt.offset, len(want)), min(tt.offset+tt.count, len(want))
		if text != string(want[lo:hi]) || !utf8.ValidString(text) {
			t.Errorf("lineRange(%d, %d) = %q, want %q", tt.offset, tt.count, truncate(text, 40), truncate(string(want[lo:hi]), 40))
		}
		if total != len(want) {
			t.Errorf("total = %d, want %d", total, len(want))
		}
		if src.line != 2 {
			t.Errorf("line = %d after reading line 2", src.line)
		}
		text, _, ok, err = src.lineRange(0, 100)
		if text != `"short"` || !ok || err != nil {
			t.Errorf("next line = %q, %v, %v", text, ok, err)
		}
		if _, _, ok, _ := src.lineRange(0, 1); ok {
			t.Error("lineRange past the last line reports a line")
		}
		src.Close()
	}
}

func TestSourceInputLimit(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, strings.Repeat("x", 5000), 1, 2)
	c, err := newConfig(&Options{LRO: &lro.Options{OutputDir: dir}, MaxInputBytes: 4000})
	if err != nil {
		t.Fatal(err)
	}
	src, err := c.openSource(context.Background(), ref{argFilePath, path})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if _, err := src.next(1 << 20); err == nil || !strings.Contains(err.Error(), "MaxInputBytes") {
		t.Errorf("next = %v, want the input limit", err)
	}
}

// endlessLine is a header, then a line that does not end: it cancels its
// context once it has given after bytes of it, and ends the line at limit
// bytes so that a read that ignores the cancel still ends.
type endlessLine struct {
	header      []byte
	given       int
	after       int
	limit       int
	cancel      context.CancelFunc
	headerGiven bool
}

func (r *endlessLine) Read(p []byte) (int, error) {
	if !r.headerGiven {
		r.headerGiven = true
		return copy(p, r.header), nil
	}
	if r.given >= r.limit {
		return 0, io.EOF
	}
	n := min(len(p), r.limit-r.given)
	for i := range n {
		p[i] = 'x'
	}
	r.given += n
	if r.given >= r.after {
		r.cancel()
	}
	return n, nil
}

// TestLineRangeStopsWhileSkipping skips the start of a line to reach a
// char_offset past it: the line is read in chunks, with the call's time
// limit (here a cancel) checked between them, so that the read stops soon
// after the cancel, not at the end of the line.
func TestLineRangeStopsWhileSkipping(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &endlessLine{header: []byte(`{"type":"lro_header","count":1}` + "\n"), after: 1 << 20, limit: 64 << 20, cancel: cancel}
	src, err := newSource(ctx, r, io.NopCloser(nil), "endless", math.MaxInt64)
	if err != nil {
		t.Fatal(err)
	}
	_, _, ok, err := src.lineRange(math.MaxInt, 10)
	if !errors.Is(err, context.Canceled) || ok {
		t.Errorf("lineRange = %v, %v, want the cancel", ok, err)
	}
	if r.given > r.after+2*readBuffer {
		t.Errorf("%d bytes read, %d after the cancel", r.given, r.given-r.after)
	}
}

// TestRecordLimitOfMaxInt: a MaxRecordBytes of math.MaxInt, which Validate
// accepts, bounds nothing (the bound plus the '\n' does not overflow into
// a bound that every line passes); the one-byte margin for the '\n' holds
// at a small bound too.
func TestRecordLimitOfMaxInt(t *testing.T) {
	for _, tt := range []struct {
		reason string
		maxLen int
		line   string
		want   string // "" for errLineTooLong
	}{
		{"the largest bound", math.MaxInt, `{"id":1}`, `{"id":1}`},
		{"a line of the bound", 8, `{"id":1}`, `{"id":1}`},
		{"a line past the bound", 7, `{"id":1}`, ""},
	} {
		src, err := newSource(context.Background(), strings.NewReader(`{"type":"lro_header","count":1}`+"\n"+tt.line+"\n"),
			io.NopCloser(nil), "f", math.MaxInt64)
		if err != nil {
			t.Fatal(err)
		}
		got, err := src.next(tt.maxLen)
		if tt.want == "" && !errors.Is(err, errLineTooLong) || tt.want != "" && (err != nil || string(got) != tt.want) {
			t.Errorf("%s: next(%d) = %q, %v; want %q", tt.reason, tt.maxLen, got, err, tt.want)
		}
	}
}
