package lro_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/estimate"
	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/event"
)

// fullDisk is a writer in front of an offloaded file that behaves like a file
// system with limit bytes free: it writes what fits, then fails with
// syscall.ENOSPC, as write(2) does on a full disk.
type fullDisk struct {
	w       io.Writer
	limit   int
	written int
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
	return n, syscall.ENOSPC
}

// The oracle of FuzzRecordExtraction: the records a tool result holds,
// following the rules [lro.Wrap] documents, written independently of the
// package's scanner (with encoding/json's decoder) so that the two check each
// other.

// jsonSpace is the whitespace JSON allows around values.
const jsonSpace = " \t\r\n"

// oracleLine returns a record as its line in the file: as written, or
// compacted when it spans lines (jsonl.Writer.WriteRecord's rule).
func oracleLine(t *testing.T, rec []byte) []byte {
	rec = bytes.Trim(rec, jsonSpace)
	if !bytes.ContainsAny(rec, "\r\n") {
		return rec
	}
	var b bytes.Buffer
	if err := json.Compact(&b, rec); err != nil {
		t.Fatalf("oracle: compacting %q: %v", rec, err)
	}
	return b.Bytes()
}

// oracleDoc returns the records of a valid JSON document: the elements of an
// array; the elements of the longest (first on a tie) array field of an
// object that has one; otherwise the document itself. The array the records
// come from is also returned, nil for a document without one.
func oracleDoc(t *testing.T, doc []byte) (records [][]byte, array []byte) {
	trimmed := bytes.Trim(doc, jsonSpace)
	switch {
	case bytes.HasPrefix(trimmed, []byte("[")):
		array = trimmed
	case bytes.HasPrefix(trimmed, []byte("{")):
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		if _, err := dec.Token(); err != nil {
			t.Fatalf("oracle: %v", err)
		}
		for dec.More() {
			if _, err := dec.Token(); err != nil { // the key
				t.Fatalf("oracle: %v", err)
			}
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				t.Fatalf("oracle: %v", err)
			}
			if v[0] == '[' && len(v) > len(array) {
				array = v
			}
		}
	}
	if array == nil {
		return [][]byte{oracleLine(t, trimmed)}, nil
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(array, &elems); err != nil {
		t.Fatalf("oracle: %v", err)
	}
	for _, e := range elems {
		records = append(records, oracleLine(t, e))
	}
	return records, array
}

// oracleLines returns the records of a plain text: one {"line":N,"text":…}
// object per line, "\n" ending a line and a "\r" before it dropped, and no
// record for the empty line after a final "\n".
func oracleLines(t *testing.T, text string) (records [][]byte, texts []string) {
	text = strings.TrimSuffix(text, "\n")
	for i, l := range strings.Split(text, "\n") {
		l = strings.TrimSuffix(l, "\r")
		rec, err := json.Marshal(logLine{Line: i + 1, Text: l})
		if err != nil {
			t.Fatal(err)
		}
		records = append(records, rec)
		texts = append(texts, string([]rune(l))) // invalid UTF-8 becomes U+FFFD in JSON
	}
	return records, texts
}

func tokensOf(lines [][]byte) int {
	n := 0
	for _, l := range lines {
		n += estimate.Bytes(l)
	}
	return n
}

// FuzzRecordExtraction sends arbitrary tool results through [lro.Wrap] with
// a tiny threshold: as text, as the same text plus its JSON as structured
// content (raw, or decoded into Go values), and with a disk that is full.
// Nothing may panic; a result is offloaded exactly when the oracle's records
// exceed the threshold; an offloaded file holds exactly the oracle's records;
// a result that is not offloaded is unchanged; a failed write shows the
// leading records that fit and reports the rest.
func FuzzRecordExtraction(f *testing.F) {
	seeds := []string{
		`[{"id":1,"name":"alpha"},{"id":2,"name":"beta"},{"id":3,"name":"gamma"}]`,
		"[\n  {\"id\": 1,\n   \"tags\": [\"a\", \"b\"]},\n  2 ,\t\"three\", null, true, -0.5e3\n]",
		`{"total":3,"items":[1,2,3],"more":[4,5],"next":"abc"}`,
		`{"a":[1,2],"b":[3,4],"a":[5,6,7]}`,
		`{"a":[1, 2],"b":[1,23]}`,
		`{"nested":{"items":[1,2,3]},"name":"no top-level array here"}`,
		`{"k\"ey":["x\"]\"","y"],"e\u0301":[]}`,
		"   \r\n[\"padded\", \"by whitespace\"]\n\n",
		`"just a string, long enough to go above a tiny threshold"`,
		`12345678901234567890`,
		"line one\nline two\r\n\nline four after an empty one\n",
		"invalid \xff\xfe utf-8 \xe5\xa4 in a line\nand <html> & \u2028 separators",
		"[1,2,3] trailing text makes it plain text",
		`[]`,
		`{}`,
		"",
	}
	for _, s := range seeds {
		for mode := range uint8(6) {
			for _, threshold := range []uint8{0, 8, 40} {
				f.Add(s, mode, threshold)
			}
		}
	}
	f.Fuzz(func(t *testing.T, text string, mode, threshold uint8) {
		if len(text) > 1<<16 {
			return // bound the work per input
		}
		th := 1 + int(threshold)%64
		structured := mode % 3 // 0 text only, 1 raw JSON, 2 decoded JSON
		full := mode/3%2 == 1  // the disk is full
		if structured != 0 && !json.Valid([]byte(text)) {
			structured = 0
		}

		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
		var array []byte
		var records [][]byte
		var texts []string
		switch structured {
		case 0:
			trimmed := strings.TrimLeft(text, jsonSpace)
			if (strings.HasPrefix(trimmed, "[") || strings.HasPrefix(trimmed, "{")) && json.Valid([]byte(text)) {
				records, array = oracleDoc(t, []byte(text))
			} else {
				records, texts = oracleLines(t, text)
			}
		case 1:
			res.StructuredContent = json.RawMessage(text)
			records, array = oracleDoc(t, []byte(text))
		case 2:
			var v any
			if err := json.Unmarshal([]byte(text), &v); err != nil {
				return // a number beyond float64, for example
			}
			res.StructuredContent = v
			doc, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			records, array = oracleDoc(t, doc)
		}
		offload := estimate.Tokens(text) > th && tokensOf(records) > th
		before := cloneResult(res)

		dir := t.TempDir()
		obs := &recorder{}
		opts := &lro.Options{OutputDir: dir, ThresholdTokens: th, Observer: obs}
		if full {
			opts.WrapWriter = func(w io.Writer) io.Writer { return &fullDisk{w: w} }
		}
		h := lro.Wrap(func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return res, nil }, opts)
		got, err := h(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "fuzz"}})
		if err != nil || got != res {
			t.Fatalf("Wrap returned %v, %v; want the handler's result and no error", got, err)
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		events := obs.all()

		switch {
		case !offload:
			if !reflect.DeepEqual(before, cloneResult(got)) {
				t.Fatalf("result within the threshold (%d records) was changed:\nbefore %#v\nafter  %#v", len(records), before, got)
			}
			if len(entries) != 0 || len(events) != 0 {
				t.Fatalf("not offloaded, yet %d files and %d events", len(entries), len(events))
			}

		case !full:
			d := descriptorOf(t, got)
			hdr, lines, err := jsonl.ReadFile(d.FilePath)
			if err != nil {
				t.Fatal(err)
			}
			if hdr.Count != len(records) || len(lines) != len(records) || d.Summary.Count != len(records) {
				t.Fatalf("header count %d, %d lines, summary count %d; the result holds %d records", hdr.Count, len(lines), d.Summary.Count, len(records))
			}
			for i := range records {
				if !bytes.Equal(lines[i], records[i]) {
					t.Fatalf("line %d = %q, want record %q", i+2, lines[i], records[i])
				}
			}
			if hdr.EstimatedTokens != tokensOf(records) {
				t.Errorf("estimated_tokens %d, want %d", hdr.EstimatedTokens, tokensOf(records))
			}
			if len(entries) != 1 || len(events) != 1 || events[0].Kind() != event.KindOffloaded {
				t.Fatalf("offloaded with %d files and events %v, want one of each", len(entries), events)
			}

		default:
			if len(entries) != 0 {
				t.Fatalf("the write failed, yet the folder holds %d files", len(entries))
			}
			k, used := 0, 0
			for _, r := range records {
				if used+estimate.Bytes(r) > th {
					break
				}
				used += estimate.Bytes(r)
				k++
			}
			if len(events) != 1 {
				t.Fatalf("events %v, want one WriteFailed", events)
			}
			e, ok := events[0].(event.WriteFailed)
			if !ok || e.Count != len(records) || e.Shown != k {
				t.Fatalf("event %+v, want WriteFailed with count %d, shown %d", events[0], len(records), k)
			}
			if len(got.Content) != 2 {
				t.Fatalf("%d content items, want a warning and the truncated records", len(got.Content))
			}
			if w := got.Content[0].(*mcp.TextContent).Text; !strings.Contains(w, fmt.Sprintf("showing %d of %d records", k, len(records))) {
				t.Fatalf("warning %q does not say showing %d of %d records", w, k, len(records))
			}
			body := got.Content[1].(*mcp.TextContent).Text
			switch {
			case texts != nil:
				if want := strings.Join(texts[:k], "\n"); body != want {
					t.Fatalf("body %q, want the first %d lines %q", body, k, want)
				}
			case array != nil && bytes.HasPrefix(bytes.Trim([]byte(body), jsonSpace), []byte("[")):
				kept, _ := oracleDoc(t, []byte(body))
				if !slices.EqualFunc(kept, records[:k], bytes.Equal) {
					t.Fatalf("body %q holds %q, want the first %d records %q", body, kept, k, records[:k])
				}
			default:
				if !json.Valid([]byte(body)) {
					t.Fatalf("body %q is not JSON", body)
				}
			}
		}
	})
}

// cloneResult returns what a client would see of res, for comparison.
func cloneResult(res *mcp.CallToolResult) map[string]any {
	var texts []string
	for _, c := range res.Content {
		texts = append(texts, c.(*mcp.TextContent).Text)
	}
	sc, _ := json.Marshal(res.StructuredContent)
	return map[string]any{"texts": texts, "structured": string(sc), "error": res.IsError}
}
