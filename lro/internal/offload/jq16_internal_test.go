package offload

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Why jq 1.6 cannot parse a line, as the descriptor's warning says.
const (
	reasonSurrogate = "a lone surrogate escape such as \\ud800"
	reasonDepth     = "nesting deeper than jq 1.6 reads"
)

// jq16Unreadable returns why jq 1.6 cannot parse the valid JSON line, or
// "", as the tally finds it while it reads the line as a record.
func jq16Unreadable(line []byte) string {
	t := newTally()
	_ = t.add(line) // valid
	return strings.Join(t.jq16.reasons, "; ")
}

// nest returns v inside n containers: n arrays, n objects, or n pairs of
// an array holding an object.
func nest(kind string, n int, v string) string {
	p := map[string][2]string{"a": {"[", "]"}, "o": {`{"k":`, "}"}, "ao": {`[{"k":`, "}]"}}[kind]
	return strings.Repeat(p[0], n) + v + strings.Repeat(p[1], n)
}

// TestJQ16Unreadable checks the lines that jq 1.6 refuses, against the real
// jq 1.6 (/usr/bin/jq on Debian bookworm, as CI installs it) when it is
// the jq on the PATH: its limits are exact, one container either side.
func TestJQ16Unreadable(t *testing.T) {
	tests := []struct {
		line string
		want string // the reason; "" for a line jq 1.6 reads
	}{
		{`{"a":"plain"}`, ""},
		{`{"a":"n250\ud800"}`, reasonSurrogate},
		{`{"a":"\uD83D\uDE00 a pair"}`, ""},
		{`{"a":"\ud800\ud800"}`, reasonSurrogate},
		{`{"a":"\udc00 a lone low one is read"}`, ""},
		{`{"a":"\\ud800 is no escape"}`, ""},
		{`"\udbff"`, reasonSurrogate},
		{nest("a", 256, "1"), ""},
		{nest("a", 257, "1"), reasonDepth},
		{nest("o", 128, "1"), ""},
		{nest("o", 129, "1"), reasonDepth},
		{nest("o", 128, "{}"), reasonDepth},
		{nest("a", 255, `{"a":1}`), ""},
		{nest("ao", 85, "1"), ""},
		{nest("ao", 86, "1"), reasonDepth},
		{`{"s":"` + strings.Repeat("[", 300) + `"}`, ""},
		{`[` + strings.Repeat(`{"a":1},`, 300) + `{}]`, ""},
	}
	jq, _ := exec.LookPath("jq")
	real := false
	if jq != "" {
		out, _ := exec.Command(jq, "--version").Output()
		real = strings.TrimSpace(string(out)) == "jq-1.6"
	}
	if !real && os.Getenv("CI") == "true" {
		t.Fatal("CI installs Debian's jq 1.6: the limits are checked against it")
	}
	for _, tt := range tests {
		name := tt.line[:min(len(tt.line), 40)]
		if got := jq16Unreadable([]byte(tt.line)); got != tt.want {
			t.Errorf("jq16Unreadable(%s…) = %q, want %q", name, got, tt.want)
		}
		if real {
			path := filepath.Join(t.TempDir(), "line.json")
			if err := os.WriteFile(path, []byte(tt.line+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			err := exec.Command(jq, "-c", ".", path).Run()
			if (err != nil) != (tt.want != "") {
				t.Errorf("jq 1.6 on %s…: error %v, but want %q", name, err, tt.want)
			}
		}
	}
}

// TestJQ16Warning: a file with records that jq 1.6 cannot parse is
// offloaded as it came, and its descriptor's guidance says which lines and
// points to what reads them; the records are rebuilt as they were.
func TestJQ16Warning(t *testing.T) {
	var recs []string
	for i := range 40 {
		switch i {
		case 3:
			recs = append(recs, `{"id":3,"name":"n250\ud800"}`)
		case 7:
			recs = append(recs, `{"id":7,"name":`+nest("a", 300, "1")+`}`)
		default:
			recs = append(recs, fmt.Sprintf(`{"id":%d,"name":"record %d"}`, i, i))
		}
	}
	text := "[" + strings.Join(recs, ",") + "]"
	for _, native := range []bool{false, true} {
		c := testConfig(t)
		c.Threshold = 100
		c.Native = native
		res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
		if !c.Apply(context.Background(), func() Call { return Call{Tool: "t"} }, res, nil, nil).Changed() {
			t.Fatal("not offloaded")
		}
		var d struct {
			Guidance string `json:"guidance"`
		}
		if err := json.Unmarshal(res.StructuredContent.(json.RawMessage), &d); err != nil {
			t.Fatal(err)
		}
		want := "jq 1.6 cannot parse line 5, 9 (" + reasonSurrogate + "; " + reasonDepth + "): use jq 1.7 or later."
		if native {
			want = strings.Replace(want, "use jq", "use lro_extract, or jq", 1)
		}
		if !strings.Contains(d.Guidance, want) {
			t.Errorf("native %v: guidance %q\nwant it to say %q", native, d.Guidance, want)
		}
		_, _, rebuilt := readBack(t, res)
		quoted, err := json.Marshal(text)
		if err != nil {
			t.Fatal(err)
		}
		whole := []byte(`{"content":[{"type":"text","text":` + string(quoted) + `}]}`)
		if !bytes.Equal(rebuilt, whole) {
			t.Errorf("rebuilt %.200s\nwant %.200s", rebuilt, whole)
		}
	}
}
