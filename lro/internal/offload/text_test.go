package offload

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/rawjson"
	"github.com/zircote/lro-go/internal/tabular"
	"github.com/zircote/lro-go/internal/testing/fuzzrecords"
)

// textResult returns the JSON of a result of one text item, as Rebuild
// gives it back.
func textResult(texts ...string) string {
	var b bytes.Buffer
	b.WriteString(`{"content":[`)
	for i, s := range texts {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":"text","text":`)
		b.Write(rawjson.AppendQuote(nil, s))
		b.WriteByte('}')
	}
	b.WriteString(`]}`)
	return b.String()
}

// sample reads a sample of package tabular, printed by real Python and the
// sqlite3 shell (internal/tabular/testdata/gen.sh).
func sample(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "internal", "tabular", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestRowsAreRecords: rows printed as text (mcp-server-sqlite's read_query,
// which returns str() of its rows, CSV, TSV, Markdown) are offloaded as one
// record per row, with the header's names and typed values, and the file
// rebuilds the exact text.
func TestRowsAreRecords(t *testing.T) {
	// read_query of 20,100 rows: 300 rows of the real sample, 67 times, as
	// Python prints the list they make.
	query := sample(t, "sqlite_read_query.txt")
	body := query[1 : len(query)-1]
	big := "[" + strings.Repeat(body+", ", 66) + body + "]"
	tests := []struct {
		name, text, format string
		count              int
		first              string
	}{
		{"read_query of 20,100 rows", big, "python", 20100, `{"id":1,"customer":"say \"hi\"","note":"emoji 🎉","paid":true,"total":1e-05,"big":-10}`},
		{"tuples", sample(t, "tuples.txt"), "python", 50, `[1,"say \"hi\"","emoji 🎉",true,1e-05,-10]`},
		{"sqlite3 -csv -header", sample(t, "sqlite_csv.csv"), "csv", 300, `{"id":1,"customer":"say \"hi\"","note":"emoji 🎉","paid":1,"total":1.0e-05}`},
		{"Python's csv module, CRLF", sample(t, "python_csv.csv"), "csv", 300, `{"id":1,"customer":"say \"hi\"","note":"emoji 🎉","paid":"True","total":1e-05}`},
		{"sqlite3 -separator tab", sample(t, "sqlite_tsv.tsv"), "tsv", 300, `{"id":1,"total":1.0e-05,"paid":1}`},
		{"sqlite3 .mode markdown", sample(t, "sqlite_markdown.md"), "markdown", 300, `{"id":1,"total":1.0e-05,"paid":1}`},
		{"sqlite3 -tabs, quotes inside and no quoting", sample(t, "sqlite_tabs.tsv"), "tsv", 241, `{"id":1,"customer":"say \"hi\"","note":"emoji 🎉","total":1.0e-05}`},
		{"pandas' to_markdown, alignment colons and decimal points", sample(t, "pandas_markdown.md"), "markdown", 241, `{"index":0,"id":1,"customer":"say \"hi\"","note":"emoji 🎉","paid":1,"total":1e-05}`},
		{"tabulate's pipe format", sample(t, "tabulate_pipe.md"), "markdown", 241, `{"id":1,"customer":"say \"hi\"","note":"emoji 🎉","paid":1,"total":1e-05}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: tt.text}}}
			c := testConfig(t)
			c.Threshold = 100
			if !c.Apply(context.Background(), func() Call { return Call{Tool: "read_query"} }, res, nil, nil).Changed() {
				t.Fatal("not offloaded")
			}
			h, lines, rebuilt := readBack(t, res)
			if string(rebuilt) != textResult(tt.text) {
				t.Fatalf("rebuilt otherwise:\n%.300s", rebuilt)
			}
			want := []Placement{{At: "/content/0/text", As: tt.format, Count: tt.count, Layout: h.RecordsAt[0].Layout}}
			if diff := cmp.Diff(want, h.RecordsAt); diff != "" {
				t.Errorf("placements (-want +got):\n%s", diff)
			}
			if len(lines) != tt.count {
				t.Fatalf("%d records, want %d", len(lines), tt.count)
			}
			if diff := cmp.Diff(tt.first, string(lines[0])); diff != "" {
				t.Errorf("first record (-want +got):\n%s", diff)
			}
			if len(h.Result) > 200 || len(h.RecordsAt[0].Layout) > 100 {
				t.Errorf("the header holds more than the layout: result %d bytes, layout %q", len(h.Result), h.RecordsAt[0].Layout)
			}
			// The descriptor counts the rows, and its recipes read records.
			var d struct {
				Summary struct {
					Count int `json:"count"`
				} `json:"summary"`
				Recipes []json.RawMessage `json:"jq_recipes"`
			}
			if err := json.Unmarshal(res.StructuredContent.(json.RawMessage), &d); err != nil || d.Summary.Count != tt.count || len(d.Recipes) != 10 {
				t.Errorf("descriptor count %d, %d recipes (%v), want %d and 10", d.Summary.Count, len(d.Recipes), err, tt.count)
			}
		})
	}
}

// TestTextThatIsNoTableStaysLines: prose, code, logs and short or ragged
// tables stay {"line","text"} records, rebuilt exactly.
func TestTextThatIsNoTableStaysLines(t *testing.T) {
	src, err := os.ReadFile("records.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{
		string(src),
		"2026-11-26T19:00:00Z INFO started, pid=12\n2026-11-26T19:00:01Z WARN slow, ms=800\n2026-11-26T19:00:02Z INFO done, ok=true\n",
		"id,name\n1,bob\n",
		"Dear all, thanks.\nWe met, we talked.\nSee you, soon.\n",
		"[{'a': f(1)}, {'a': 2}]",
		"| this is | not a table |\n| it is | a poem |\n| with | pipes |\n| at | its ends |\n",
		"| a | b |\n|--:|:--|\n| 1 | x | y |\n| 2 | z |\n",
		"id\tname\n1\tsay \"hi\"\n2\n",
	} {
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
		if !testConfig(t).Apply(context.Background(), func() Call { return Call{Tool: "t"} }, res, nil, nil).Changed() {
			t.Fatal("not offloaded")
		}
		h, _, rebuilt := readBack(t, res)
		if h.RecordsAt[0].As != asLines || string(rebuilt) != textResult(text) {
			t.Errorf("%.40q: placed as %q, rebuilt exactly: %v", text, h.RecordsAt[0].As, string(rebuilt) == textResult(text))
		}
	}
}

// TestStructuredTextIsKeptOnce: @modelcontextprotocol/server-filesystem
// sends a listing as text and again as structuredContent {"content":
// text}. The text is kept once, as records; the header keeps a copy
// reference, and its line stays small whatever the listing's size.
func TestStructuredTextIsKeptOnce(t *testing.T) {
	var b strings.Builder
	for i := range 3000 {
		kind := "[FILE]"
		if i%7 == 0 {
			kind = "[DIR]"
		}
		fmt.Fprintf(&b, "%s entry-%04d.txt\n", kind, i)
	}
	listing := strings.TrimSuffix(b.String(), "\n")
	sc, err := json.Marshal(map[string]any{"content": listing})
	if err != nil {
		t.Fatal(err)
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: listing}}, StructuredContent: json.RawMessage(sc)}
	c := testConfig(t)
	c.Threshold = 100
	if !c.Apply(context.Background(), func() Call { return Call{Tool: "list_directory"} }, res, nil, nil).Changed() {
		t.Fatal("not offloaded")
	}
	h, lines, rebuilt := readBack(t, res)
	want := `{"content":[{"type":"text","text":` + string(rawjson.AppendQuote(nil, listing)) + `}],"structuredContent":` + string(sc) + `}`
	if string(rebuilt) != want {
		t.Fatalf("rebuilt otherwise:\n%.300s", rebuilt)
	}
	if len(lines) != 3000 {
		t.Errorf("%d records, want 3000", len(lines))
	}
	if diff := cmp.Diff([]Copy{{At: "/structuredContent/content", Of: "/content/0/text", As: "string"}}, h.Copies); diff != "" {
		t.Errorf("copies (-want +got):\n%s", diff)
	}
	// The header's line, as lro_read of line 1 returns it.
	f, err := os.Open(filePath(t, res))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	first, err := bufio.NewReader(f).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	if len(first) > 1000 {
		t.Errorf("header line of %d bytes, want it small: %.300s", len(first), first)
	}
}

// TestStringCopies: which strings are kept once, and that the file still
// rebuilds the result.
func TestStringCopies(t *testing.T) {
	long := strings.Repeat("a line of text\n", 20)
	tests := []struct {
		name       string
		texts      []string
		structured string
		copies     []Copy
	}{
		{"the last of duplicate names", []string{long}, `{"content":"x","content":` + string(rawjson.AppendQuote(nil, long)) + `}`,
			[]Copy{{At: "/structuredContent/content", Of: "/content/0/text", As: "string"}}},
		{"not the first of duplicate names", []string{long}, `{"content":` + string(rawjson.AppendQuote(nil, long)) + `,"content":"x"}`, nil},
		{"a text kept whole beside the structured content's records", []string{long}, `{"content":` + string(rawjson.AppendQuote(nil, long)) + `,"entries":[1,2,3]}`,
			[]Copy{{At: "/structuredContent/content", Of: "/content/0/text", As: "string"}}},
		{"a short string is not worth a copy", []string{"short\ntext"}, `{"content":"short\ntext"}`, nil},
		{"the second of two texts", []string{"other text, not repeated, of some length to hold the records", long}, `{"a":1,"text":` + string(rawjson.AppendQuote(nil, long)) + `,"b":{}}`,
			[]Copy{{At: "/structuredContent/text", Of: "/content/1/text", As: "string"}}},
		{"a text that was JSON, printed back exactly", []string{`{"k": "` + strings.Repeat("v", 80) + `"}`}, `{"s":` + string(rawjson.AppendQuote(nil, `{"k": "`+strings.Repeat("v", 80)+`"}`)) + `}`,
			[]Copy{{At: "/structuredContent/s", Of: "/content/0/text", As: "string"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := &mcp.CallToolResult{StructuredContent: json.RawMessage(tt.structured)}
			for _, s := range tt.texts {
				res.Content = append(res.Content, &mcp.TextContent{Text: s})
			}
			if !testConfig(t).Apply(context.Background(), func() Call { return Call{Tool: "t"} }, res, nil, nil).Changed() {
				t.Fatal("not offloaded")
			}
			h, _, rebuilt := readBack(t, res)
			want := strings.TrimSuffix(textResult(tt.texts...), "}") + `,"structuredContent":` + tt.structured + `}`
			if string(rebuilt) != want {
				t.Errorf("rebuilt\n %s\nwant\n %s", rebuilt, want)
			}
			var copies []Copy
			for _, cp := range h.Copies {
				if cp.As == "string" {
					copies = append(copies, cp)
				}
			}
			if diff := cmp.Diff(tt.copies, copies); diff != "" {
				t.Errorf("string copies (-want +got):\n%s", diff)
			}
		})
	}
}

// filePath returns the file a descriptor names.
func filePath(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	var d struct {
		FilePath string `json:"file_path"`
	}
	if err := json.Unmarshal(res.StructuredContent.(json.RawMessage), &d); err != nil {
		t.Fatal(err)
	}
	return d.FilePath
}

// FuzzTextRoundTrip offloads any text, alone, beside a structured content
// that repeats it ({"content": text}, as server-filesystem sends), or twice:
// whether it is read as rows, lines, a JSON document or a string copy, the
// file rebuilds the result byte for byte, but for a JSON text that no layout
// gives back, which comes back compact. With gen, the text is records shaped
// as real tools return them (package fuzzrecords) printed as a printer does
// (see jsonPrinters), or a page of them: it comes back byte for byte.
func FuzzTextRoundTrip(f *testing.F) {
	for _, name := range []string{"single_tuple_rows.txt", "python_csv_quote_all.csv", "lists_nested.txt", "tuple_of_tuples.txt"} {
		data, err := os.ReadFile(filepath.Join("..", "..", "..", "internal", "tabular", "testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		for mode := range uint8(3) {
			f.Add(string(data), mode, []byte(nil))
		}
	}
	for _, name := range []string{"node_indent2.json", "python_default.json", "python_crlf.json", "jq_default.json", "sqlite_json.json"} {
		data, err := os.ReadFile(filepath.Join("testdata", "printers", name))
		if err != nil {
			f.Fatal(err)
		}
		for mode := range uint8(3) {
			f.Add(string(data), mode, []byte(nil))
		}
	}
	for _, s := range []string{
		"[{'id': 1, 'note': None, 'ok': True}, {'id': 2, 'note': 'it\\'s \"x\"', 'ok': False}]",
		"id,name\r\n1,\"a \"\"b\"\"\"\r\n2,\r\n",
		"| a | b |\n|:-:|--:|\n| 1 | 2 |\n| 3 | 4 |",
		"a\tb\n1\t2\n3\t4",
		"plain text, with a comma\nand another line\n",
		"[1 , 2]",
		"{\"a\":[\n1]}\n",
	} {
		for mode := range uint8(3) {
			f.Add(s, mode, []byte(nil))
		}
	}
	for i := range len(jsonPrinters) {
		for mode := range uint8(3) {
			f.Add("", mode+3*uint8(i), []byte{byte(i), 7, 200, 13, 0, 255, 42})
		}
	}
	f.Fuzz(func(t *testing.T, text string, mode uint8, gen []byte) {
		if len(text) > 1<<16 || len(gen) > 512 {
			return // bound the work per input
		}
		printed := len(gen) > 0
		if printed {
			var v any = fuzzrecords.Generate(gen)
			if gen[0]%2 == 1 {
				v = map[string]any{"total": 1000, "items": v, "next": "c2"}
			}
			var err error
			if text, err = jsonPrinters[int(mode/3)%len(jsonPrinters)].print(v); err != nil {
				t.Fatal(err)
			}
		}
		// What the file must give back: the text, or a JSON text that no
		// layout gives back, compact where its records were taken from it.
		backs := []string{text}
		if doc := trimSpace([]byte(text)); len(doc) > 0 && jsontext.Value(doc).IsValid(rawjson.DecodeOptions...) {
			if _, ok := textSpacing(text, false); !ok {
				if printed {
					t.Fatalf("%q: no layout gives it back", text)
				}
				c := jsontext.Value(bytes.Clone(doc))
				if err := c.Compact(); err != nil {
					t.Fatal(err)
				}
				backs = append(backs, string(c))
			}
		}
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
		var sc json.RawMessage
		switch mode % 3 {
		case 1:
			var err error
			if sc, err = json.Marshal(map[string]string{"content": text}); err != nil {
				return
			}
			res.StructuredContent = sc
		case 2:
			res.Content = append(res.Content, &mcp.TextContent{Text: text})
		}
		n := len(res.Content)
		c := testConfig(t)
		c.Always = true
		if !c.Apply(context.Background(), func() Call { return Call{Tool: "t"} }, res, nil, nil).Changed() {
			t.Fatal("not offloaded")
		}
		_, _, rebuilt := readBack(t, res)
		var got any // compared as values: strings may be escaped otherwise
		if json.Unmarshal(rebuilt, &got) != nil {
			t.Fatalf("not JSON: %s", rebuilt)
		}
		var diff string
		for _, back := range backs {
			want := &mcp.CallToolResult{}
			for range n {
				want.Content = append(want.Content, &mcp.TextContent{Text: back})
			}
			if sc != nil {
				want.StructuredContent = sc
			}
			data, err := json.Marshal(want)
			if err != nil {
				t.Fatal(err)
			}
			var w any
			if err := json.Unmarshal(data, &w); err != nil {
				t.Fatal(err)
			}
			if diff = cmp.Diff(w, got); diff == "" {
				return
			}
		}
		t.Fatalf("rebuilt otherwise (-want +got):\n%s", diff)
	})
}

// jsonPrinters print a JSON value as the printers of real servers do, each
// made here independently of package offload's printer: Go's encoding/json,
// and the others by their rules on its output.
var jsonPrinters = []struct {
	name  string
	print func(v any) (string, error)
}{
	{"JSON.stringify(v), json.Marshal", func(v any) (string, error) { b, err := json.Marshal(v); return string(b), err }},
	{"JSON.stringify(v, null, 2)", indentedBy("  ", "", "")},
	{"json.dumps(v, indent=4)", indentedBy("    ", "", "")},
	{"json.dumps(v, indent=0)", indentedBy("", "", "")},
	{"jq --tab .", indentedBy("\t", "", "\n")},
	{"jq .", indentedBy("  ", "", "\n")},
	{"json.dumps(v, indent=2) in CRLF text mode", indentedBy("  ", "\r\n", "\n")},
	{"white space around", indentedBy("  ", "", " \n\n")},
	{"json.dumps(v)", spaced},
	{"sqlite3 -json", func(v any) (string, error) {
		recs, ok := v.([]any)
		if !ok {
			b, err := json.Marshal(v)
			return string(b) + "\n", err
		}
		var b strings.Builder
		b.WriteByte('[')
		for i, r := range recs {
			if i > 0 {
				b.WriteString(",\n")
			}
			line, err := json.Marshal(r)
			if err != nil {
				return "", err
			}
			b.Write(line)
		}
		b.WriteString("]\n")
		return b.String(), nil
	}},
}

// indentedBy returns a printer of json.MarshalIndent by indent, with the
// line ends nl (when not "\n") and trail after the document.
func indentedBy(indent, nl, trail string) func(v any) (string, error) {
	return func(v any) (string, error) {
		b, err := json.MarshalIndent(v, "", indent)
		s := string(b) + trail
		if nl != "" {
			s = strings.ReplaceAll(s, "\n", nl)
		}
		return s, err
	}
}

// spaced prints v as Python's json.dumps does by default: ", " between
// elements and members, ": " after names, from Go's compact JSON.
func spaced(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	var out []byte
	in := false // within a string
	for i := 0; i < len(b); i++ {
		c := b[i]
		out = append(out, c)
		switch {
		case in && c == '\\':
			i++
			out = append(out, b[i])
		case c == '"':
			in = !in
		case !in && (c == ',' || c == ':'):
			out = append(out, ' ')
		}
	}
	return string(out), nil
}

// TestRebuildRefusesBadRowsAndCopies: a header that does not fit its lines
// (an unknown format or copy, a bad layout, a row of another shape, a string
// copy of what is not a string) is an error, not a panic.
func TestRebuildRefusesBadRowsAndCopies(t *testing.T) {
	result := json.RawMessage(`{"content":[{"type":"text","text":""}],"structuredContent":{"a":null}}`)
	row := [][]byte{[]byte(`{"a":1}`), []byte(`{"a":2}`)}
	tests := []struct {
		name  string
		pl    Placement
		lines [][]byte
		cp    Copy
	}{
		{"an unknown format", Placement{At: "/content/0/text", As: "yaml", Count: 2}, row, Copy{}},
		{"a bad CSV layout", Placement{At: "/content/0/text", As: "csv", Count: 2, Layout: "minimal"}, row, Copy{}},
		{"a bad Python layout", Placement{At: "/content/0/text", As: "python", Count: 2, Layout: "{{ eof"}, row, Copy{}},
		{"a bad Markdown layout", Placement{At: "/content/0/text", As: "markdown", Count: 2, Layout: "l l eof |---|---|"}, row, Copy{}},
		{"a Markdown layout of decimals without a number", Placement{At: "/content/0/text", As: "markdown", Count: 2, Layout: "l d eof |---|"}, row, Copy{}},
		{"a Markdown layout of more decimals than its column is wide", Placement{At: "/content/0/text", As: "markdown", Count: 2, Layout: "l d999999 eof |---|"}, row, Copy{}},
		{"a Markdown layout of an empty index name over rows with another first name", Placement{At: "/content/0/text", As: "markdown", Count: 2, Layout: "-l l eof |---|"}, row, Copy{}},
		{"a TSV layout without quoting for CSV", Placement{At: "/content/0/text", As: "csv", Count: 2, Layout: "none lf nl"}, row, Copy{}},
		{"rows of other names", Placement{At: "/content/0/text", As: "csv", Count: 2, Layout: "minimal lf nl"}, [][]byte{[]byte(`{"a":1,"b":2}`), []byte(`{"a":2,"c":3}`)}, Copy{}},
		{"a row that is no object", Placement{At: "/content/0/text", As: "tsv", Count: 2, Layout: "minimal lf nl"}, [][]byte{[]byte(`[1]`), []byte(`[2]`)}, Copy{}},
		{"a tuple row that is an object", Placement{At: "/content/0/text", As: "python", Count: 2, Layout: "[( eof"}, row, Copy{}},
		{"an unknown copy", Placement{At: "/content/0/text", As: "csv", Count: 2, Layout: "minimal lf nl"}, [][]byte{[]byte(`{"a":1,"b":2}`), []byte(`{"a":2,"b":3}`)}, Copy{At: "/structuredContent/a", Of: "/content/0/text", As: "bytes"}},
		{"a string copy of an object", Placement{At: "/content/0/text", As: "csv", Count: 2, Layout: "minimal lf nl"}, [][]byte{[]byte(`{"a":1,"b":2}`), []byte(`{"a":2,"b":3}`)}, Copy{At: "/structuredContent/a", Of: "/structuredContent", As: "string"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := FileHeader{Shape: Shape{Result: result, RecordsAt: []Placement{tt.pl}}}
			if tt.cp.At != "" {
				h.Copies = []Copy{tt.cp}
			}
			if out, err := Rebuild(h, tt.lines); err == nil {
				t.Errorf("rebuilt %s, want an error", out)
			}
		})
	}
}

// fullDisk is a disk that is full.
type fullDisk struct{}

func (fullDisk) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestRowsFallBackAsRows: when the file cannot be written, rows printed as
// text fall back to the first rows that fit, printed as the text printed
// them: a shorter table of the same format, header included.
func TestRowsFallBackAsRows(t *testing.T) {
	text := sample(t, "sqlite_csv.csv")
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
	c := testConfig(t)
	c.Threshold = 400
	c.WrapWriter = func(io.Writer) io.Writer { return fullDisk{} }
	if !c.Apply(context.Background(), func() Call { return Call{Tool: "t"} }, res, nil, nil).Changed() {
		t.Fatal("not rewritten")
	}
	if len(res.Content) != 2 {
		t.Fatalf("%d items, want a warning and the rows shown", len(res.Content))
	}
	shown := res.Content[1].(*mcp.TextContent).Text
	tab, ok := tabular.Read(shown)
	if !ok || tab.Format != "csv" || !strings.HasPrefix(text, shown) {
		t.Fatalf("shown %q, want the header and the first rows of the text", shown)
	}
	if w := res.Content[0].(*mcp.TextContent).Text; !strings.Contains(w, fmt.Sprintf("showing %d of 300 records", len(tab.Records))) {
		t.Errorf("warning %q, want it to count the %d rows shown of 300", w, len(tab.Records))
	}
}
