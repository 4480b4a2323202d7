package lro_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/estimate"
	"github.com/zircote/lro-go/internal/tabular"
	"github.com/zircote/lro-go/internal/testing/fuzzrecords"
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

// The oracle of FuzzRecordExtraction: where the records of a tool result
// are, following the rules internal/offload documents, written
// independently of its scanner (with encoding/json's decoder) so that the
// two check each other.

// notice is the structured content of a fallback that shows no part of the
// tool's own structured content.
const notice = `{"offloaded":false}`

// oracleRecords is where the records of a result are.
type oracleRecords struct {
	// records are the records of a JSON document, each as its line in the
	// file.
	records [][]byte
	// doc is that document, without the whitespace around it, and
	// doc[start:end] the array that holds the records; start is -1 when the
	// document itself is the one record.
	doc        []byte
	start, end int
	// lines are the lines of a text that is not one JSON document, each with
	// the "\r" of a "\r\n" kept; nil for a document.
	lines []string
	// table is the text read as rows (package tabular), whose records are
	// records; nil for any other text.
	table *tabular.Table
}

// count returns the number of records.
func (o oracleRecords) count() int {
	if o.doc == nil && o.table == nil {
		return len(o.lines)
	}
	return len(o.records)
}

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
// array; of an object, the elements of its largest array member (the first
// of equal ones), where of members that share a name only the last counts;
// otherwise the document itself.
func oracleDoc(t *testing.T, doc []byte) oracleRecords {
	doc = bytes.Trim(doc, jsonSpace)
	o := oracleRecords{doc: doc, start: -1}
	switch doc[0] {
	case '[':
		o.start, o.end = 0, len(doc)
	case '{':
		type member struct {
			name       string
			start, end int
			array      bool
		}
		var members []member
		dec := json.NewDecoder(bytes.NewReader(doc))
		if _, err := dec.Token(); err != nil {
			t.Fatalf("oracle: %v", err)
		}
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				t.Fatalf("oracle: %v", err)
			}
			var v json.RawMessage
			if err := dec.Decode(&v); err != nil {
				t.Fatalf("oracle: %v", err)
			}
			end := int(dec.InputOffset())
			members = append(members, member{key.(string), end - len(v), end, v[0] == '['})
		}
		last := map[string]int{}
		for i, m := range members {
			last[m.name] = i
		}
		for i, m := range members {
			if m.array && last[m.name] == i && (o.start < 0 || m.end-m.start > o.end-o.start) {
				o.start, o.end = m.start, m.end
			}
		}
	}
	if o.start < 0 {
		o.records = [][]byte{oracleLine(t, doc)}
		return o
	}
	var elems []json.RawMessage
	if err := json.Unmarshal(doc[o.start:o.end], &elems); err != nil {
		t.Fatalf("oracle: %v", err)
	}
	for _, e := range elems {
		o.records = append(o.records, oracleLine(t, e))
	}
	return o
}

// oracleText returns the records of a text item: those of its JSON document
// when it is one (up to the whitespace JSON allows around it), else its
// lines, "\n" ending a line and no line after a final "\n".
func oracleText(t *testing.T, text string) oracleRecords {
	if doc := bytes.Trim([]byte(text), jsonSpace); len(doc) > 0 && json.Valid(doc) {
		return oracleDoc(t, doc)
	}
	if tab, ok := tabular.Read(text); ok {
		return oracleRecords{start: -1, table: &tab, records: tab.Records}
	}
	o := oracleRecords{start: -1, lines: []string{}}
	if text != "" {
		o.lines = strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	}
	return o
}

// checkLineRecords checks the records of the lines of a text, in the file.
func checkLineRecords(t *testing.T, lines []json.RawMessage, want []string) {
	t.Helper()
	for i, rec := range lines {
		var got logLine
		dec := json.NewDecoder(bytes.NewReader(rec))
		dec.DisallowUnknownFields()
		// Invalid UTF-8 becomes U+FFFD in JSON, a rune for each byte.
		if err := dec.Decode(&got); err != nil || got != (logLine{Line: i + 1, Text: string([]rune(want[i]))}) {
			t.Fatalf("line %d = %q (%v), want the record of line %d %q", i+2, rec, err, i+1, want[i])
		}
	}
}

// The shapes of FuzzRecordExtraction's results.
const (
	shapeText       = iota // the input as text
	shapeStructured        // the input as raw structured content, no text
	shapeBoth              // the input as text and as raw structured content (a typed tool)
	shapeDecoded           // the input as text, and decoded into Go values as structured content
	shapeSummary           // a short summary as text, the input as raw structured content
	shapes
)

// FuzzRecordExtraction sends arbitrary tool results through [lro.Wrap] with
// a small threshold: the input as text, as structured content (raw, or
// decoded into Go values), as both, and with a disk that is full. Nothing may
// panic; a result is offloaded exactly when everything the client would
// receive is above the threshold, else it is unchanged; an offloaded file
// holds exactly the oracle's records, and offload.Rebuild puts it back
// together into the very result (numbers as written, a text that held JSON
// in its compact form); a failed write leaves nothing behind and sends, within
// the threshold, the leading records that fit in the document they came
// from, with a warning whose figures are true. When gen is not empty, the
// input is instead the records it describes (package fuzzrecords: arrays of
// floats, arrays of arrays, nulls, mixed types, unicode keys, very long
// strings, deep nesting), as a list or a page of one.
func FuzzRecordExtraction(f *testing.F) {
	seeds := []string{
		`[{"id":1,"name":"alpha"},{"id":2,"name":"beta"},{"id":3,"name":"gamma"}]`,
		"[\n  {\"id\": 1,\n   \"tags\": [\"a\", \"b\"]},\n  2 ,\t\"three\", null, true, -0.5e3\n]",
		`{"total":3,"items":[1,2,3],"more":[4,5],"next":"abc"}`,
		`{"total":987654,"cursor":"c2","items":[{"id":1.50},{"id":2E+1},{"id":-0}],"notes":"kept beside"}`,
		`{"a":[1,2],"b":[3,4],"a":[5,6,7]}`,
		`{"a":[1,2,3,4],"b":[3,4],"a":"the last a is not an array"}`,
		`{"a":[1, 2],"b":[1,23]}`,
		`{"nested":{"items":[1,2,3]},"name":"no top-level array here"}`,
		`{"k\"ey":["x\"]\"","y"],"e\u0301":[],"\u0061":[1,2,3]}`,
		"   \r\n[\"padded\", \"by whitespace\"]\n\n",
		`"just a string, long enough to go above a tiny threshold"`,
		`12345678901234567890.000e-0`,
		`[1.0, 1e2, -0, 12345678901234567890123, 0.1000]`,
		`[[1,2],[3],{"a":[4]},"<html> & \u2028"]`,
		"line one\nline two\r\n\nline four after an empty one\n",
		"invalid \xff\xfe utf-8 \xe5\xa4 in a line\nand <html> & \u2028 separators",
		"[\"invalid \xff utf-8 in JSON\", \"\\ud800 a lone surrogate\"]",
		"[1,2,3] trailing text makes it plain text",
		"[{'id': 1, 'customer': \"O'Brien\", 'note': None, 'paid': True, 'total': 19.99}, {'id': 2, 'customer': 'Ann \\\\ \\n', 'note': 'x\\x85', 'paid': False, 'total': 1e-05}]",
		"[(1, 'a'), (2, 'b'), (-3, None)]\n",
		"id,customer,total\r\n1,O'Brien,19.99\r\n2,\"say \"\"hi\"\"\",\r\n3,\"a,b\",-0.5\r\n",
		"id\tname\n1\tbob\n2\tamy\n",
		"| id | name |\n|---:|:-----|\n|  1 | bob  |\n| 22 | amy  |\n",
		"\n",
		`[]`,
		`{}`,
		`null`,
		"",
	}
	for _, s := range seeds {
		for mode := range uint8(2 * shapes) {
			for _, threshold := range []uint8{0, 8, 40} {
				f.Add(s, mode, threshold, []byte(nil))
			}
		}
	}
	f.Fuzz(func(t *testing.T, text string, mode, threshold uint8, gen []byte) {
		if len(text) > 1<<16 || len(gen) > 512 {
			return // bound the work per input
		}
		if len(gen) > 0 {
			// Records shaped as real tools return them, as a list or as
			// the page of a list.
			var v any = fuzzrecords.Generate(gen)
			if gen[0]%2 == 1 {
				v = map[string]any{"total": 1000, "items": v, "next": "c2"}
			}
			b, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			text = string(b)
		}
		th := 1 + int(threshold)
		shape := mode % shapes
		full := mode/shapes%2 == 1 // the disk is full
		if shape != shapeText && !json.Valid([]byte(text)) {
			shape = shapeText
		}

		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
		var structured []byte // the structured content's JSON, as the client receives it
		switch shape {
		case shapeStructured:
			res.Content = nil
			res.StructuredContent = json.RawMessage(text)
			structured = bytes.Trim([]byte(text), jsonSpace)
		case shapeBoth:
			res.StructuredContent = json.RawMessage(text)
			structured = bytes.Trim([]byte(text), jsonSpace)
		case shapeDecoded:
			var v any
			if err := json.Unmarshal([]byte(text), &v); err != nil {
				return // a number beyond float64, for example
			}
			if v == nil {
				break // JSON null decodes into a nil any: no structured content
			}
			res.StructuredContent = v
			var err error
			if structured, err = json.Marshal(v); err != nil {
				t.Fatal(err)
			}
		case shapeSummary:
			res.Content[0] = &mcp.TextContent{Text: fmt.Sprintf("%d bytes of JSON", len(text))}
			res.StructuredContent = json.RawMessage(text)
			structured = bytes.Trim([]byte(text), jsonSpace)
		}
		// The records: the structured content's when there is some, unless
		// it holds no array and a text that does not repeat it is at least
		// half its size; else the text's.
		var o oracleRecords
		if structured != nil && (oracleHasArray(t, structured) || !oracleTextHolds(t, res, structured)) {
			o = oracleDoc(t, structured)
		} else {
			o = oracleText(t, res.Content[0].(*mcp.TextContent).Text)
		}
		tokens := estimate.Tokens(string(structured))
		for _, c := range res.Content {
			tokens += estimate.Tokens(c.(*mcp.TextContent).Text)
		}
		orig := resultJSON(t, res)
		before := cloneResult(res)

		dir := t.TempDir()
		obs := &recorder{}
		opts := &lro.Options{OutputDir: dir, ThresholdTokens: th, Observer: obs}
		if full {
			hooked(opts, lro.Hooks{WrapWriter: func(w io.Writer) io.Writer { return &fullDisk{w: w} }})
		}
		h := wrap(func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return res, nil }, opts)
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
		case tokens <= th:
			if !reflect.DeepEqual(before, cloneResult(got)) {
				t.Fatalf("result within the threshold (~%d of %d tokens) was changed:\nbefore %#v\nafter  %#v", tokens, th, before, cloneResult(got))
			}
			if used := sentTokens(t, got); used > th {
				t.Fatalf("result sent inline is ~%d tokens, above the threshold %d", used, th)
			}
			if len(entries) != 0 || len(events) != 0 {
				t.Fatalf("not offloaded, yet %d files and %d events", len(entries), len(events))
			}

		case !full:
			d := descriptorOf(t, got)
			hdr, lines, rebuilt := readOffloaded(t, d.FilePath)
			n := o.count()
			if hdr.Count != n || len(lines) != n || d.Summary.Count != n {
				t.Fatalf("header count %d, %d lines, summary count %d; the result holds %d records", hdr.Count, len(lines), d.Summary.Count, n)
			}
			if o.doc == nil && o.table == nil {
				checkLineRecords(t, lines, o.lines)
			} else {
				for i := range o.records {
					if !bytes.Equal(lines[i], o.records[i]) {
						t.Fatalf("line %d = %q, want record %q", i+2, lines[i], o.records[i])
					}
				}
			}
			if hdr.EstimatedTokens != tokens || d.Summary.EstimatedTokens != tokens {
				t.Errorf("estimated_tokens %d in the header, %d in the summary; want %d, the whole result's", hdr.EstimatedTokens, d.Summary.EstimatedTokens, tokens)
			}
			checkRebuilt(t, orig, rebuilt)
			if len(entries) != 1 || len(events) != 1 || !is[event.Offloaded](events[0]) {
				t.Fatalf("offloaded with %d files and events %v, want one of each", len(entries), events)
			}

		default:
			checkFuzzFallback(t, got, o, structured != nil, th, tokens, len(entries), events)
		}
	})
}

// checkFuzzFallback checks the fallback res of a result whose records are
// o, as FuzzRecordExtraction says.
func checkFuzzFallback(t *testing.T, res *mcp.CallToolResult, o oracleRecords, structured bool, th, tokens, files int, events []event.Event) {
	t.Helper()
	if files != 0 {
		t.Fatalf("the write failed, yet the folder holds %d files", files)
	}
	if len(events) != 1 {
		t.Fatalf("events %v, want one WriteFailed", events)
	}
	e, ok := events[0].(event.WriteFailed)
	if !ok {
		t.Fatalf("event %v, want WriteFailed", events[0])
	}
	n := o.count()
	if len(res.Content) == 0 || len(res.Content) > 2 {
		t.Fatalf("%d content items, want a warning and at most one body", len(res.Content))
	}
	for _, c := range res.Content {
		if _, ok := c.(*mcp.TextContent); !ok {
			t.Fatalf("content %T, want texts", c)
		}
	}
	w := parseWarning(t, res.Content[0].(*mcp.TextContent).Text, e.Err)
	k := w.shown
	checkWarning(t, res, w, k, n, tokens)
	if e.Count != n || e.EstimatedTokens != tokens {
		t.Errorf("event %+v, want count %d, estimated_tokens %d", e, n, tokens)
	}
	if k > n {
		t.Fatalf("shows %d of %d records", k, n)
	}

	// The body: the first k records, in the document they came from.
	var body *string
	if len(res.Content) == 2 {
		body = &res.Content[1].(*mcp.TextContent).Text
	}
	var want string
	switch {
	case o.table != nil:
		// The first k rows, printed as the text printed them.
		if k > 0 {
			b, err := tabular.Print(nil, o.table.Format, o.table.Layout, o.records[:k])
			if err != nil {
				t.Fatal(err)
			}
			want = string(b)
		}
	case o.doc == nil:
		want = strings.Join(o.lines[:k], "\n")
	case o.start >= 0:
		var b bytes.Buffer
		b.Write(o.doc[:o.start])
		b.WriteByte('[')
		b.Write(bytes.Join(o.records[:k], []byte(",")))
		b.WriteByte(']')
		b.Write(o.doc[o.end:])
		want = b.String()
	}
	switch {
	case body == nil && k > 0:
		t.Fatalf("the warning says %d records are shown, but there is no body", k)
	case body == nil:
	case o.doc == nil && k == 0:
		t.Fatalf("body %q shows no line or row", *body)
	case o.doc != nil && o.start < 0:
		t.Fatalf("body %q, want none: the record is the whole document", *body)
	case *body != want:
		t.Fatalf("body %q, want the first %d records in their document %q", *body, k, want)
	}

	// The structured content: the body when it shows the structured
	// content, else the notice.
	sc := structuredBytes(t, res.StructuredContent)
	switch {
	case !structured && sc != nil:
		t.Fatalf("a result without structured content gained %q", sc)
	case structured && body != nil && string(sc) != *body:
		t.Fatalf("structured content %q, want the body %q", sc, *body)
	case structured && body == nil && string(sc) != notice:
		t.Fatalf("structured content %q, want %s", sc, notice)
	}

	// Within the threshold, unless it cannot hold even the short warning.
	if used := sentTokens(t, res); used > th && (body != nil || w.long) {
		t.Fatalf("fallback is ~%d tokens, above the threshold %d", used, th)
	}
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

// oracleHasArray reports whether the JSON value doc is an array or an object
// with an array member.
func oracleHasArray(t *testing.T, doc []byte) bool {
	var v any
	if err := json.Unmarshal(doc, &v); err != nil {
		t.Fatalf("oracle: %v", err)
	}
	switch x := v.(type) {
	case []any:
		return true
	case map[string]any:
		for _, m := range x {
			if _, ok := m.([]any); ok {
				return true
			}
		}
	}
	return false
}

// oracleTextHolds reports whether the text item of res, if any, is not the
// structured content's JSON (compared compact) and is at least half its
// size.
func oracleTextHolds(t *testing.T, res *mcp.CallToolResult, structured []byte) bool {
	if len(res.Content) == 0 {
		return false
	}
	text := bytes.Trim([]byte(res.Content[0].(*mcp.TextContent).Text), jsonSpace)
	if 2*len(text) < len(structured) {
		return false
	}
	var a, b bytes.Buffer
	if json.Compact(&a, text) != nil || json.Compact(&b, structured) != nil {
		return true
	}
	return !bytes.Equal(a.Bytes(), b.Bytes())
}
