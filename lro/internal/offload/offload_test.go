package offload

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/jsonl"
)

func testConfig(t *testing.T) *Config {
	return &Config{Threshold: 1, Dir: t.TempDir(), Prefix: "atlatl", SchemaVersion: "1.0", Tokenizer: Heuristic{}, Now: time.Now}
}

// readBack reads the file a descriptor in res names, and rebuilds it.
func readBack(t *testing.T, res *mcp.CallToolResult) (FileHeader, [][]byte, []byte) {
	t.Helper()
	var d struct {
		FilePath string `json:"file_path"`
	}
	if err := json.Unmarshal(res.StructuredContent.(json.RawMessage), &d); err != nil || d.FilePath == "" {
		t.Fatalf("not a descriptor: %v", res.StructuredContent)
	}
	h, recs, err := ReadFile(d.FilePath)
	if err != nil {
		t.Fatal(err)
	}
	lines := make([][]byte, len(recs))
	for i, r := range recs {
		lines[i] = r
	}
	rebuilt, err := Rebuild(h, lines)
	if err != nil {
		t.Fatal(err)
	}
	return h, lines, rebuilt
}

// TestRebuild: every shape of result is put back together from its file,
// byte for byte for what the client receives (texts as written, structured
// content compact).
func TestRebuild(t *testing.T) {
	tests := []struct {
		name       string
		texts      []string
		structured string
		want       string // the rebuilt result
		lines      int
	}{
		{"an array as text, spaced as printed", []string{`[1, 2.50, 1e400]`}, "",
			`{"content":[{"type":"text","text":"[1, 2.50, 1e400]"}]}`, 3},
		{"a JSON text spaced as no printer does comes back compact", []string{`[1 , 2.50]`}, "",
			`{"content":[{"type":"text","text":"[1,2.50]"}]}`, 2},
		{"members whose names need escaping in a pointer", []string{`{"a/b~c":[1,2],"n":"x"}`}, "",
			`{"content":[{"type":"text","text":"{\"a/b~c\":[1,2],\"n\":\"x\"}"}]}`, 2},
		{"duplicate names: the last array holds the records", []string{`{"r":[1],"r":[2,3]}`}, "",
			`{"content":[{"type":"text","text":"{\"r\":[1],\"r\":[2,3]}"}]}`, 2},
		{"text lines, CRLF and a final newline", []string{"a\r\nb\n\n"}, "",
			`{"content":[{"type":"text","text":"a\r\nb\n\n"}]}`, 3},
		{"an empty text beside lines", []string{"", "xxxxxxxx"}, "",
			`{"content":[{"type":"text","text":""},{"type":"text","text":"xxxxxxxx"}]}`, 1},
		{"a text that is one JSON string", []string{`"quoted"`}, "",
			`{"content":[{"type":"text","text":"\"quoted\""}]}`, 1},
		{"structured content and its copy", []string{`{"items":[1,2],"total":9}`}, `{"items":[1,2],"total":9}`,
			`{"content":[{"type":"text","text":"{\"items\":[1,2],\"total\":9}"}],"structuredContent":{"items":[1,2],"total":9}}`, 2},
		{"a summary beside structured content", []string{"2 items"}, `{"items":[1,2]}`,
			`{"content":[{"type":"text","text":"2 items"}],"structuredContent":{"items":[1,2]}}`, 2},
		{"the text itself beside {content: text}", []string{"line one\nline two"}, `{"content":"line one\nline two"}`,
			`{"content":[{"type":"text","text":"line one\nline two"}],"structuredContent":{"content":"line one\nline two"}}`, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := &mcp.CallToolResult{}
			for _, s := range tt.texts {
				res.Content = append(res.Content, &mcp.TextContent{Text: s})
			}
			if tt.structured != "" {
				res.StructuredContent = json.RawMessage(tt.structured)
			}
			c := testConfig(t)
			if !c.Apply(context.Background(), func() Call { return Call{Tool: "t"} }, res, nil, nil).Changed() {
				t.Fatal("not offloaded")
			}
			_, lines, rebuilt := readBack(t, res)
			if string(rebuilt) != tt.want {
				t.Errorf("rebuilt\n %s\nwant\n %s", rebuilt, tt.want)
			}
			if len(lines) != tt.lines {
				t.Errorf("%d record lines, want %d", len(lines), tt.lines)
			}
		})
	}
}

// TestStructuredBytesAreBase64: structured content given as []byte reaches
// the client as encoding/json writes a []byte, a base64 string, and the file
// rebuilds that, not the bytes read as JSON.
func TestStructuredBytesAreBase64(t *testing.T) {
	res := &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: "2 items"}},
		StructuredContent: []byte(`{"items":[1,2]}`),
	}
	want, err := json.Marshal(res) // what the client receives
	if err != nil {
		t.Fatal(err)
	}
	if !testConfig(t).Apply(context.Background(), func() Call { return Call{Tool: "t"} }, res, nil, nil).Changed() {
		t.Fatal("not offloaded")
	}
	if _, _, rebuilt := readBack(t, res); string(rebuilt) != string(want) {
		t.Errorf("rebuilt\n %s\nwant what the client receives\n %s", rebuilt, want)
	}
}

// TestInvalidStructuredContentIsLeftAlone: structured content that is not
// JSON is not the pipeline's to judge: the result goes out as it is.
func TestInvalidStructuredContentIsLeftAlone(t *testing.T) {
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", 100)}}, StructuredContent: json.RawMessage(`{"a":`)}
	if testConfig(t).Apply(context.Background(), func() Call { return Call{Tool: "t"} }, res, nil, nil).Changed() {
		t.Error("a result with invalid structured content was rewritten")
	}
}

// TestBesideIsBounded: whatever the result holds beside its records, the
// descriptor shows at most eight values and names at most eight other
// parts, and a long number is named, not shown.
func TestBesideIsBounded(t *testing.T) {
	res := &mcp.CallToolResult{StructuredContent: json.RawMessage(`{"items":[1,2,3],"n":` + strings.Repeat("9", 20000) + `}`)}
	for i := range 1000 {
		res.Content = append(res.Content, &mcp.TextContent{Text: "memory " + strings.Repeat("x", i%3)})
	}
	c := testConfig(t)
	c.Threshold = 100
	if !c.Apply(context.Background(), func() Call { return Call{Tool: "t"} }, res, nil, nil).Changed() {
		t.Fatal("not offloaded")
	}
	var d struct {
		Beside struct {
			Values map[string]json.RawMessage `json:"values"`
			Other  []string                   `json:"other"`
		} `json:"beside"`
	}
	sc := res.StructuredContent.(json.RawMessage)
	if err := json.Unmarshal(sc, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Beside.Values) > maxShownValues || len(d.Beside.Other) > maxShownValues+1 {
		t.Errorf("beside shows %d values and names %d parts", len(d.Beside.Values), len(d.Beside.Other))
	}
	if len(sc) > 8000 {
		t.Errorf("the descriptor is %d bytes", len(sc))
	}
	_, _, rebuilt := readBack(t, res)
	if !bytes.Contains(rebuilt, []byte(strings.Repeat("9", 20000))) {
		t.Error("the long number is not kept in the file")
	}
}

// TestRebuildRefusesBadPointers: a placement that is not a JSON Pointer is
// an error, not a panic.
func TestRebuildRefusesBadPointers(t *testing.T) {
	h := FileHeader{Shape: Shape{Result: json.RawMessage(`{"content":[]}`), RecordsAt: []Placement{{At: "content", As: asValue, Count: 1}}}}
	if _, err := Rebuild(h, [][]byte{[]byte(`1`)}); err == nil {
		t.Error("no error for the pointer \"content\"")
	}
}

// TestTallyReadsNamesAsJSON checks that the summary's members are found by
// their JSON names, escaped or not, and only at the top level.
func TestTallyReadsNamesAsJSON(t *testing.T) {
	tl := newTally()
	for _, line := range []string{
		`{"namespace":"a","score":0.5}`,
		`{"name\u0073pace":"a","sc\u006fre":0.9}`,
		`{"nested":{"namespace":"b","score":7},"namespace":"c\u0021"}`,
		`{"namespace":"","score":"high"}`,
		"{\"namespace\":\"\xff\"}", // not UTF-8: not a name to show
		`[1,2]`,
	} {
		tl.add([]byte(line))
	}
	if got, want := counts(tl.namespaces), map[string]int{"a": 2, "c!": 1}; !maps.Equal(got, want) {
		t.Errorf("namespaces = %v, want %v", got, want)
	}
	if tl.scores != 2 || tl.minScore != 0.5 || tl.maxScore != 0.9 {
		t.Errorf("scores = %d in [%v, %v], want 2 in [0.5, 0.9]", tl.scores, tl.minScore, tl.maxScore)
	}
}

// TestSampleIsTheFileLines: the recipes' sample is the file's first record
// lines as written, records that spanned lines compacted, as lro_extract
// reads them back; and the summary and schema describe the same records.
func TestSampleIsTheFileLines(t *testing.T) {
	text := "[\n  {\"namespace\": \"a\", \"score\": 1},\n  {\"namespace\":\n \"b\", \"n\": [1,\n 2]},\n 3\n]"
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	c := testConfig(t)
	r, _, err := c.read(res, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.plan(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	w, err := jsonl.Create("t", &jsonl.Options{Dir: c.Dir})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := w.WriteHeader(jsonl.Header{Count: p.count()}); err != nil {
		t.Fatal(err)
	}
	tl := p.t
	if err := p.writeRecords(context.Background(), w); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	_, lines, err := ReadFile(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(lines, tl.sample); diff != "" {
		t.Errorf("sample (-file lines +got):\n%s", diff)
	}
	if got, want := counts(tl.namespaces), map[string]int{"a": 1, "b": 1}; !maps.Equal(got, want) {
		t.Errorf("namespaces = %v, want %v", got, want)
	}
	if got := tl.schema.Schema()["type"]; !cmp.Equal(got, []string{"integer", "object"}) {
		t.Errorf("schema type = %v, want integer and object", got)
	}
}

// counts returns the counts of a tally's namespaces.
func counts(namespaces map[string]*int) map[string]int {
	out := map[string]int{}
	for ns, n := range namespaces {
		out[ns] = *n
	}
	return out
}

// TestTextThatIsNotJSON: a text that starts as a JSON document but is not
// one becomes lines, and what its read took for records is in no part of
// the descriptor: not in the schema, the summary or the recipes' sample.
func TestTextThatIsNotJSON(t *testing.T) {
	res := &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: `[{"namespace":"kept","a":1}]`},
		&mcp.TextContent{Text: `[{"namespace":"not-a-record","b":2}] and more`},
	}}
	c := testConfig(t)
	r, _, err := c.read(res, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.plan(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	if got := []string{p.runs[0].As, p.runs[1].As}; !cmp.Equal(got, []string{asArray, asLines}) {
		t.Fatalf("runs as %v, want an array and lines", got)
	}
	want := []json.RawMessage{
		json.RawMessage(`{"namespace":"kept","a":1}`),
		json.RawMessage(`{"line":1,"text":"[{\"namespace\":\"not-a-record\",\"b\":2}] and more"}`),
	}
	if diff := cmp.Diff(want, p.t.sample); diff != "" {
		t.Errorf("sample (-want +got):\n%s", diff)
	}
	if got, want := counts(p.t.namespaces), map[string]int{"kept": 1}; !maps.Equal(got, want) {
		t.Errorf("namespaces = %v, want %v", got, want)
	}
	props := p.t.schema.Schema()["properties"].(map[string]any)
	if _, ok := props["b"]; ok {
		t.Errorf("the schema has b, read from a text that is not JSON: %v", props)
	}
	if _, ok := props["line"]; !ok {
		t.Errorf("the schema has no line: %v", props)
	}
}

// TestPlainTextIsNotDescribed: a text item that is not one JSON document
// but starts like a scalar (null pointer, hello) is lines: nothing of it is
// described as a JSON value, and the records before it stay described.
func TestPlainTextIsNotDescribed(t *testing.T) {
	res := &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: `[{"a":1}]`},
		&mcp.TextContent{Text: `null pointer`},
		&mcp.TextContent{Text: `hello`},
	}}
	c := testConfig(t)
	r, _, err := c.read(res, nil, true)
	if err != nil {
		t.Fatal(err)
	}
	p, err := c.plan(context.Background(), r)
	if err != nil {
		t.Fatal(err)
	}
	want := []json.RawMessage{
		json.RawMessage(`{"a":1}`),
		json.RawMessage(`{"line":1,"text":"null pointer"}`),
		json.RawMessage(`{"line":2,"text":"hello"}`),
	}
	if diff := cmp.Diff(want, p.t.sample); diff != "" {
		t.Errorf("sample (-want +got):\n%s", diff)
	}
	if got := p.t.schema.Schema()["type"]; got != "object" {
		t.Errorf("the records' type is %v, want object only", got)
	}
}

// TestManyElementsReadAgain: an array of more elements than a read keeps
// is read again when written, whole and in order.
func TestManyElementsReadAgain(t *testing.T) {
	var b strings.Builder
	b.WriteString("[")
	for i := range maxKept + 2 {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `{"i":%d}`, i)
	}
	b.WriteString("]")
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}
	c := testConfig(t)
	if !c.Apply(context.Background(), func() Call { return Call{Tool: "t"} }, res, nil, nil).Changed() {
		t.Fatal("not offloaded")
	}
	h, lines, _ := readBack(t, res)
	if h.Count != maxKept+2 || len(lines) != maxKept+2 {
		t.Fatalf("count %d, %d lines; want %d", h.Count, len(lines), maxKept+2)
	}
	for i, l := range lines {
		if want := fmt.Sprintf(`{"i":%d}`, i); string(l) != want {
			t.Fatalf("line %d = %s, want %s", i+2, l, want)
		}
	}
}

// TestNoRecordsHaveASchema: a result of no records, offloaded all the same
// (Always), has the empty line schema, as one of records has theirs.
func TestNoRecordsHaveASchema(t *testing.T) {
	for _, text := range []string{"", "[]", `{"items":[],"total":0}`} {
		c := testConfig(t)
		c.Always = true
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
		if !c.Apply(context.Background(), func() Call { return Call{Tool: "t"} }, res, nil, nil).Changed() {
			t.Fatalf("%q: not offloaded", text)
		}
		var d map[string]json.RawMessage
		if err := json.Unmarshal(res.StructuredContent.(json.RawMessage), &d); err != nil {
			t.Fatal(err)
		}
		if got := string(d["line_schema"]); got != "{}" {
			t.Errorf("%q: line_schema = %q, want {}", text, got)
		}
	}
}

// TestDescriptorIsBounded: what the records hold never swells the
// descriptor. A long namespace is not named in the summary, a long value is
// not a recipe's default, a long name is neither in the line schema nor in
// a recipe, and a descriptor still too large (a record of 20,000 names)
// has its line schema trimmed, its recipes kept; each file holds the records
// whole.
func TestDescriptorIsBounded(t *testing.T) {
	long := strings.Repeat("<", 1<<20)
	names := make([]string, 20_000)
	for i := range names {
		names[i] = fmt.Sprintf(`"name %d": %d`, i, i)
	}
	many := "{" + strings.Join(names, ",") + "}"
	for _, tt := range []struct {
		name    string
		records []string
		bare    bool
	}{
		{"long namespace", []string{`{"namespace":"` + long + `"}`, `{"namespace":"_semantic"}`, `{"namespace":"` + long + `"}`}, false},
		{"long value", []string{`{"kind":"` + long + `"}`, `{"kind":"` + long + `"}`, `{"kind":"a"}`}, false},
		{"long strings", []string{`"` + long + `"`, `"` + long + `"`, `"a"`}, false},
		{"long key", []string{`{"` + long + `":1}`, `{"a":1}`}, false},
		{"many names", []string{many, `{"a":1}`}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := &mcp.CallToolResult{StructuredContent: json.RawMessage("[" + strings.Join(tt.records, ",") + "]")}
			c := testConfig(t)
			c.Threshold = 100
			if !c.Apply(context.Background(), func() Call { return Call{Tool: "t"} }, res, nil, nil).Changed() {
				t.Fatal("not offloaded")
			}
			sc := res.StructuredContent.(json.RawMessage)
			if tokens := c.Tokenizer.Tokens(sc); tokens > maxDescriptorTokens {
				t.Errorf("the descriptor is %d tokens", tokens)
			}
			var d struct {
				JqRecipes []any `json:"jq_recipes"`
			}
			if err := json.Unmarshal(sc, &d); err != nil {
				t.Fatal(err)
			}
			if bare := d.JqRecipes == nil; bare != tt.bare {
				t.Errorf("bare pointer: %v, want %v: %.300s", bare, tt.bare, sc)
			}
			if _, lines, _ := readBack(t, res); len(lines) != len(tt.records) {
				t.Errorf("%d records in the file, want %d", len(lines), len(tt.records))
			}
		})
	}
}

// TestOutcome: Apply says what it did as values, the same for every caller
// (lro, the extraction tools, the proxy): nothing within the threshold; the
// descriptor, the file's path and the store's handle when it offloaded; a
// fallback when the file could not be written.
func TestOutcome(t *testing.T) {
	big := func() *mcp.CallToolResult {
		return &mcp.CallToolResult{StructuredContent: json.RawMessage(`{"items":[` + strings.Repeat(`{"id":"abcdefgh"},`, 200) + `{"id":"z"}]}`)}
	}
	describe := func() Call { return Call{Tool: "t"} }

	c := testConfig(t)
	c.Threshold = 100000
	if o := c.Apply(context.Background(), describe, big(), nil, nil); !cmp.Equal(o, Outcome{}) || o.Changed() {
		t.Errorf("within the threshold: %+v, want the zero Outcome", o)
	}

	c = testConfig(t)
	res := big()
	o := c.Apply(context.Background(), describe, res, nil, nil)
	if !o.Offloaded || o.Fallback || !o.Changed() || o.Handle != "" {
		t.Fatalf("above the threshold: %+v, want offloaded to a folder", o)
	}
	if sc, _ := res.StructuredContent.(json.RawMessage); !bytes.Equal(o.Descriptor, sc) {
		t.Errorf("Descriptor %s, want the structured content %s", o.Descriptor, sc)
	}
	if h, recs, err := ReadFile(o.Path); err != nil || h.Count != 201 || len(recs) != 201 {
		t.Errorf("the file at Path %q: count %d, %d records, %v; want 201", o.Path, h.Count, len(recs), err)
	}

	c = testConfig(t)
	c.Dir = filepath.Join(c.Dir, "file")
	if err := os.WriteFile(c.Dir, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if o := c.Apply(context.Background(), describe, big(), nil, nil); o.Offloaded || !o.Fallback || !o.Changed() || o.Descriptor != nil || o.Path != "" {
		t.Errorf("unwritable folder: %+v, want the fallback alone", o)
	}
}

// TestInlineAllocatesNothing: a result that stays inline, of text, an image
// and audio, is estimated without an allocation: every call of a wrapped
// tool pays it.
func TestInlineAllocatesNothing(t *testing.T) {
	c := testConfig(t)
	c.Threshold = 1000
	describe := func() Call { t.Fatal("described an inline result"); return Call{} }
	text := &mcp.TextContent{Text: strings.Repeat(`{"id":1,"name":"café 字"}`, 20)}
	for _, tc := range []struct {
		name string
		res  *mcp.CallToolResult
		want float64
	}{
		{"text", &mcp.CallToolResult{Content: []mcp.Content{text}}, 0},
		{"text, image and audio", &mcp.CallToolResult{Content: []mcp.Content{text, &mcp.ImageContent{Data: []byte("x"), MIMEType: "image/png"}, &mcp.AudioContent{Data: []byte("x"), MIMEType: "audio/wav"}}}, 0},
		{"no content", &mcp.CallToolResult{}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := testing.AllocsPerRun(100, func() {
				if o := c.Apply(context.Background(), describe, tc.res, nil, nil); o.Changed() {
					t.Fatal("the result changed")
				}
			})
			if got != tc.want {
				t.Errorf("%v allocations, want %v", got, tc.want)
			}
		})
	}
}

// bytesTokenizer counts the bytes it is given, one token each.
type bytesTokenizer struct{ read *int }

func (b bytesTokenizer) Tokens(p []byte) int { *b.read += len(p); return len(p) }

// TestTypedTextCountedOnce: the text of a typed tool, a view of its
// structured content, is estimated by the structured content's figure
// (both count, as the client receives both), without reading it again.
func TestTypedTextCountedOnce(t *testing.T) {
	data := []byte(`{"items":[{"id":1},{"id":2}]}`)
	read := 0
	c := testConfig(t)
	c.Threshold = 1000
	c.Tokenizer = bytesTokenizer{&read}
	for _, tc := range []struct {
		name string
		text string
		want int
	}{
		{"a view of the structured content", unsafe.String(unsafe.SliceData(data), len(data)), len(data)},
		{"a copy of it", string(data), 2 * len(data)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			read = 0
			res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: tc.text}}, StructuredContent: json.RawMessage(data)}
			r, tokens, err := c.read(res, data, true)
			if err != nil || r == nil {
				t.Fatal(err)
			}
			if tokens != 2*len(data) {
				t.Errorf("estimate %d, want %d: the text and the structured content", tokens, 2*len(data))
			}
			if read != tc.want {
				t.Errorf("the tokenizer read %d bytes, want %d", read, tc.want)
			}
		})
	}
}
