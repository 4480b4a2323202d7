package offload

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zircote/lro-go/jsonl"
)

// TestFileHeaderOnTheWire: a header with this module's fields is written
// with the specification's fields first, in their order, then "result",
// "records_at" and "copies", as the files have always been written, and
// reads back the same.
func TestFileHeaderOnTheWire(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 11, 21, 13, 31, 0, 123e6, time.UTC) }
	c := New(Config{Dir: t.TempDir(), Now: now})
	w, err := c.create(context.Background(), "recall")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	h := FileHeader{
		Header: jsonl.Header{Count: 1, SchemaVersion: "1.0", Timestamp: "2026-11-21T13:31:00.123Z", EstimatedTokens: 9, Detail: "full"},
		Shape: Shape{
			Result:    json.RawMessage(`{"content":[{"type":"text","text":""}]}`),
			RecordsAt: []Placement{{At: "/content/0/text", As: "lines", Count: 1, FinalNewline: true}},
			Copies:    []Copy{{At: "/structuredContent", Of: "/content/0/text", As: "string"}},
		},
	}
	if err := writeHeader(w, h); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteValid([]byte(`{"line":1,"text":"a"}`)); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	want := `{"type":"lro_header","operation":"recall","query":null,"count":1,"schema_version":"1.0","timestamp":"2026-11-21T13:31:00.123Z","estimated_tokens":9,"detail":"full",` +
		`"result":{"content":[{"type":"text","text":""}]},"records_at":[{"at":"/content/0/text","as":"lines","count":1,"final_newline":true}],` +
		`"copies":[{"at":"/structuredContent","of":"/content/0/text","as":"string"}]}`
	if diff := cmp.Diff([]string{want, `{"line":1,"text":"a"}`}, strings.Split(strings.TrimSuffix(string(must(os.ReadFile(w.Path()))), "\n"), "\n")); diff != "" {
		t.Errorf("file lines (-want +got):\n%s", diff)
	}
	got, _, err := ReadFile(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	h.Operation = "recall"
	if diff := cmp.Diff(h, got); diff != "" {
		t.Errorf("read back (-want +got):\n%s", diff)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
