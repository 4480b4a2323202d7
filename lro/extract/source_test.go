package extract

import (
	"context"
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
		if err := w.WriteValue(r); err != nil {
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
	c, err := newConfig(&Options{Dir: dir})
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
	c, err := newConfig(&Options{Dir: dir, MaxInputBytes: 4000})
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
