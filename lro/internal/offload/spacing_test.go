package offload

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/zircote/lro-go/internal/rawjson"
)

// printed reads a sample printed by a real printer (testdata/printers/gen.sh).
func printed(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "printers", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// goPrinted returns value.json as Go's encoding/json prints it: Marshal
// (indent ""), MarshalIndent, or an Encoder's SetIndent (a final newline).
func goPrinted(t *testing.T, indent string, encoder bool) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(printed(t, "value.json")), &v); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	switch {
	case encoder:
		enc := json.NewEncoder(&b)
		enc.SetIndent("", indent)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
	case indent == "":
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	default:
		data, err := json.MarshalIndent(v, "", indent)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	return b.String()
}

// jsonTexts are JSON texts as real printers print them, and the layout
// each is kept with ("" for compact); fallback marks those that no layout
// gives back (they come back compact).
func jsonTexts(t *testing.T) []struct {
	name, text, layout string
	fallback           bool
} {
	indented := printed(t, "node_indent2.json")
	return []struct {
		name, text, layout string
		fallback           bool
	}{
		{"JSON.stringify(x)", printed(t, "node_compact.json"), "", false},
		{"JSON.stringify(x, null, 2): the memory and filesystem servers", indented, "indent=2", false},
		{"JSON.stringify(x, null, 4)", printed(t, "node_indent4.json"), "indent=4", false},
		{"JSON.stringify(x, null, '\\t')", printed(t, "node_tab.json"), "indent=tab", false},
		{"JSON.stringify of an array, null, 2", printed(t, "node_orders_indent2.json"), "indent=2", false},
		{"json.dumps(x): ', ' and ': '", printed(t, "python_default.json"), "spaced", false},
		{"json.dumps(x, indent=2)", printed(t, "python_indent2.json"), "indent=2", false},
		{"json.dumps(x, indent=0): lines without indentation", printed(t, "python_indent0.json"), "indent=0", false},
		{"json.dumps(x, indent='\\t')", printed(t, "python_tab.json"), "indent=tab", false},
		{"json.dumps(x, ensure_ascii=False, indent=2)", printed(t, "python_utf8.json"), "indent=2", false},
		{"json.dumps(x, separators=(',', ':'))", printed(t, "python_compact.json"), "", false},
		{"print(json.dumps(x))", printed(t, "python_print.json"), "spaced trail=n", false},
		{"json.dumps(x, indent=2) written in text mode on Windows: CRLF", printed(t, "python_crlf.json"), "indent=2 crlf trail=rn", false},
		{"jq .", printed(t, "jq_default.json"), "indent=2 trail=n", false},
		{"jq --tab .", printed(t, "jq_tab.json"), "indent=tab trail=n", false},
		{"jq --indent 4 .", printed(t, "jq_indent4.json"), "indent=4 trail=n", false},
		{"jq -c .", printed(t, "jq_compact.json"), "compact trail=n", false},
		{"sqlite3 -json: rows one a line", printed(t, "sqlite_json.json"), "rows trail=n", false},
		{"sqlite3 -json, one row", printed(t, "sqlite_json_one.json"), "compact trail=n", false},
		{"json.Marshal", goPrinted(t, "", false), "", false},
		{"json.MarshalIndent(v, \"\", \"  \")", goPrinted(t, "  ", false), "indent=2", false},
		{"json.MarshalIndent(v, \"\", \"\\t\")", goPrinted(t, "\t", false), "indent=tab", false},
		{"json.Encoder with SetIndent: a final newline", goPrinted(t, "   ", true), "indent=3 trail=n", false},
		{"white space around the document", " \t\r\n" + indented + "\n\n", "indent=2 lead=strn trail=nn", false},
		{"CRLF without a final newline", strings.ReplaceAll(indented, "\n", "\r\n"), "indent=2 crlf", false},
		{"rows with CRLF", strings.ReplaceAll(printed(t, "sqlite_json.json"), "\n", "\r\n"), "rows crlf trail=rn", false},
		{"a number and a newline", strings.Repeat("1234567890", 8) + "\n", "compact trail=n", false},
		{"a string", `"two  spaces, \u00e9, ` + strings.Repeat("and more ", 8) + `"`, "", false},
		{"spacing no printer makes", `{"a" : [1,2], "b":[ ]}`, "", true},
		{"lines that end both ways", strings.Replace(indented, "\n", "\r\n", 3), "", true},
		{"more white space after it than a layout keeps", indented + strings.Repeat("\n", maxAround+1), "", true},
		{"an indentation of spaces and tabs", strings.ReplaceAll(indented, "\n  ", "\n \t"), "", true},
	}
}

// TestJSONTextsComeBackExact: a text item that holds a JSON document comes
// back byte for byte, whichever printer printed it, whether its records are
// taken from it, it repeats the structured content (server-memory sends
// JSON.stringify(x, null, 2) of its structured content) or the structured
// content repeats it as a string (server-filesystem's {"content": text}),
// which is then kept once. A text that no layout gives back comes back
// compact, and is not a string copy.
func TestJSONTextsComeBackExact(t *testing.T) {
	for _, tt := range jsonTexts(t) {
		t.Run(tt.name, func(t *testing.T) {
			if tt.text == "" || !jsontext.Value(tt.text).IsValid(rawjson.DecodeOptions...) {
				t.Fatalf("not a JSON text: %q", tt.text)
			}
			compact := jsontext.Value(strings.TrimSpace(tt.text))
			if err := compact.Compact(); err != nil {
				t.Fatal(err)
			}
			want := tt.text
			if tt.fallback {
				want = string(compact)
			}
			for _, with := range []string{"alone", "copy of the structured content", "structured content repeats it"} {
				res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: tt.text}}}
				structured := ""
				switch with {
				case "copy of the structured content":
					structured = string(compact)
				case "structured content repeats it":
					structured = `{"content":` + string(rawjson.AppendQuote(nil, tt.text)) + `}`
				}
				if structured != "" {
					res.StructuredContent = json.RawMessage(structured)
				}
				c := testConfig(t)
				c.Always = true
				if !c.Apply(context.Background(), func() Call { return Call{Tool: "t"} }, res, nil, nil).Changed() {
					t.Fatalf("%s: not offloaded", with)
				}
				h, _, rebuilt := readBack(t, res)
				wantResult := textResult(want)
				if structured != "" {
					wantResult = strings.TrimSuffix(wantResult, "}") + `,"structuredContent":` + structured + `}`
				}
				if string(rebuilt) != wantResult {
					t.Errorf("%s: rebuilt\n %q\nwant\n %q", with, rebuilt, wantResult)
				}
				var got string
				var wantCopies []Copy
				switch with {
				case "alone":
					got = h.RecordsAt[0].Layout
				case "copy of the structured content":
					wantCopies = []Copy{{At: "/content/0/text", Of: "/structuredContent", Layout: tt.layout}}
					got = tt.layout // said by the copy
				case "structured content repeats it":
					got = h.RecordsAt[0].Layout
					if !tt.fallback {
						wantCopies = []Copy{{At: "/structuredContent/content", Of: "/content/0/text", As: "string"}}
					}
				}
				if got != tt.layout {
					t.Errorf("%s: layout %q, want %q", with, got, tt.layout)
				}
				if diff := cmp.Diff(wantCopies, h.Copies); diff != "" {
					t.Errorf("%s: copies (-want +got):\n%s", with, diff)
				}
			}
		})
	}
}

// TestLayoutWords: the words of every layout parse back to it, and words
// that are not a layout are refused.
func TestLayoutWords(t *testing.T) {
	for _, l := range []spacing{
		{form: "compact"},
		{form: "compact", trail: "\n"},
		{form: "spaced", lead: " ", trail: "\r\n"},
		{form: "indent", indent: ""},
		{form: "indent", indent: "  ", crlf: true},
		{form: "indent", indent: "\t", trail: "\n"},
		{form: "indent", indent: strings.Repeat(" ", maxIndent)},
		{form: "rows", crlf: true, lead: "\t\n", trail: "\n\n"},
	} {
		got, err := parseSpacing(l.String())
		if err != nil {
			t.Errorf("%q: %v", l.String(), err)
			continue
		}
		if diff := cmp.Diff(l, got, cmp.AllowUnexported(spacing{})); diff != "" {
			t.Errorf("%q (-want +got):\n%s", l.String(), diff)
		}
	}
	for _, bad := range []string{
		"indent", "indent=", "indent=-1", "indent=02", "indent=17", "indent=x", "pretty",
		"compact compact", "compact lead=", "compact lead=x", "compact trail=nnnnnnnnnnnnnnnnn",
		"compact trail=n lead=n", "compact crlf crlf", " compact", "compact ",
	} {
		if _, err := parseSpacing(bad); err == nil {
			t.Errorf("%q: parsed, want an error", bad)
		}
	}
}
