package offload

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tiktoken-go/tokenizer"

	"github.com/zircote/lro-go/estimate"
	"github.com/zircote/lro-go/lro/internal/describe"
)

// pullRequests returns a page of n pull requests as GitHub's API returns
// them, made from testdata/github-pull-request.json: the pull_request of
// the payload example pull_request/labeled.with-organization.payload.json
// of github.com/octokit/webhooks (MIT), commit 3a58428, about 20 KB with
// its nested users, repositories, labels and links. The records differ as
// a real page's do: number, title, body (null in some), labels (none to
// three) and milestone (null in some).
func pullRequests(t testing.TB, n int) []json.RawMessage {
	t.Helper()
	data, err := os.ReadFile("testdata/github-pull-request.json")
	if err != nil {
		t.Fatal(err)
	}
	out := make([]json.RawMessage, n)
	for i := range out {
		set := map[string]string{
			"number": fmt.Sprint(100 + i),
			"id":     fmt.Sprint(279147437 + i),
			"title":  fmt.Sprintf(`"Update the README with new information (%d)"`, i),
		}
		if i%3 == 0 {
			set["body"] = "null"
		}
		if i%4 == 0 {
			set["milestone"] = "null"
		}
		var pr struct{ Labels []json.RawMessage }
		if err := json.Unmarshal(data, &pr); err != nil || len(pr.Labels) == 0 {
			t.Fatalf("no label to copy: %v", err)
		}
		labels := make([]json.RawMessage, i%4)
		for j := range labels {
			labels[j] = setMembers(t, pr.Labels[0], map[string]string{"name": fmt.Sprintf(`"area %d"`, j)})
		}
		l, _ := json.Marshal(labels)
		set["labels"] = string(l)
		out[i] = setMembers(t, data, set)
	}
	return out
}

// setMembers returns the object obj with the values of the members named in
// set replaced, the members in their order, as an API writes them.
func setMembers(t testing.TB, obj []byte, set map[string]string) json.RawMessage {
	t.Helper()
	dec := jsontext.NewDecoder(bytes.NewReader(obj))
	var b bytes.Buffer
	enc := jsontext.NewEncoder(&b)
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		t.Fatalf("not an object: %v", err)
	}
	enc.WriteToken(jsontext.BeginObject)
	for dec.PeekKind() == '"' {
		name, err := dec.ReadToken()
		if err != nil {
			t.Fatal(err)
		}
		key := name.String()
		v, err := dec.ReadValue()
		if err != nil {
			t.Fatal(err)
		}
		if nv, ok := set[key]; ok {
			v = jsontext.Value(nv)
		}
		if err := enc.WriteToken(jsontext.String(key)); err != nil {
			t.Fatal(err)
		}
		if err := enc.WriteValue(v); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.WriteToken(jsontext.EndObject); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSpace(b.Bytes())
}

// o200k counts o200k_base tokens, the tokenizer of GPT-4o and GPT-5, of
// texts up to 64 KiB, such as descriptors; larger ones (the result, which
// only the threshold compares) it estimates as the default does, which is
// much faster under -race.
type o200k struct{ codec tokenizer.Codec }

func (o o200k) Tokens(text []byte) int {
	if len(text) > 64<<10 {
		return Heuristic{}.Tokens(text)
	}
	n, _ := o.codec.Count(string(text))
	return max(n, 1)
}

// TestLargeRecordsKeepRecipes: a page of 80 pull requests, records of some
// 20 KB each whose whole line schema passes the bound, gets a descriptor
// within the bound with the ten recipes and the line schema trimmed, which
// says so and still validates every line; under the default tokenizer and
// the o200k one.
func TestLargeRecordsKeepRecipes(t *testing.T) {
	codec, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	page := pullRequests(t, 80)
	for _, tt := range []struct {
		name string
		tok  estimate.Tokenizer
	}{
		{"heuristic", Heuristic{}},
		{"o200k", o200k{codec}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data, err := json.Marshal(page)
			if err != nil {
				t.Fatal(err)
			}
			res := &mcp.CallToolResult{StructuredContent: json.RawMessage(data)}
			c := testConfig(t)
			c.Tokenizer = tt.tok
			if !c.Apply(context.Background(), func() Call { return Call{Tool: "list_pull_requests"} }, res, nil, nil).Changed() {
				t.Fatal("not offloaded")
			}
			sc := res.StructuredContent.(json.RawMessage)
			if tokens := c.Tokenizer.Tokens(sc); tokens > maxDescriptorTokens {
				t.Errorf("the descriptor is %d tokens, more than %d", tokens, maxDescriptorTokens)
			}
			var d struct {
				JqRecipes  []any          `json:"jq_recipes"`
				LineSchema map[string]any `json:"line_schema"`
			}
			if err := json.Unmarshal(sc, &d); err != nil {
				t.Fatal(err)
			}
			if len(d.JqRecipes) != 10 {
				t.Errorf("%d recipes, want 10: %.300s", len(d.JqRecipes), sc)
			}
			comment, _ := d.LineSchema["$comment"].(string)
			if !strings.Contains(comment, "Trimmed") || !strings.Contains(comment, "Line 2") {
				t.Errorf("the line schema does not say it is trimmed: %q", comment)
			}
			props, _ := d.LineSchema["properties"].(map[string]any)
			for _, name := range []string{"number", "title", "user", "head", "labels"} {
				if props[name] == nil {
					t.Errorf("the line schema does not name %q: %.500s", name, sc)
				}
			}
			_, lines, _ := readBack(t, res)
			if len(lines) != len(page) {
				t.Fatalf("%d records in the file, want %d", len(lines), len(page))
			}
			validates(t, d.LineSchema, lines)
		})
	}
}

// validates checks that every line satisfies schema, as
// github.com/google/jsonschema-go validates it.
func validates(t *testing.T, schema map[string]any, lines [][]byte) {
	t.Helper()
	data, err := json.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("schema %s: %v", data, err)
	}
	for i, line := range lines {
		var v any
		if err := json.Unmarshal(line, &v); err != nil {
			t.Fatal(err)
		}
		if err := rs.Validate(v); err != nil {
			t.Fatalf("line %d does not satisfy the line schema %s: %v", i+2, data, err)
		}
	}
}

// TestTrimmings: a line schema too large is trimmed in steps, each smaller
// than the one before: less deep, then less wide (required properties
// first), then the record's type alone; each says what it leaves out, and
// each validates every record.
func TestTrimmings(t *testing.T) {
	recs := pullRequests(t, 8)
	c := testConfig(t)
	tl := newTally()
	lines := make([][]byte, len(recs))
	for i, r := range recs {
		if err := tl.add(r); err != nil {
			t.Fatal(err)
		}
		lines[i] = r
	}
	schema := tl.schema.Schema()
	full, err := describe.Marshal(schema)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		room    int    // tokens the schema may take
		comment string // in the trimmed schema's $comment
		named   int    // properties of the record named, -1 for all
	}{
		{"a little too large: one level less", c.Tokenizer.Tokens(full) - 1, "3 levels into a record (such as .base.repo.custom_properties)", -1},
		{"two levels", 3000, "2 levels into a record (such as ._links.comments)", -1},
		{"the record's properties", 600, "1 level into a record (such as ._links)", -1},
		{"half of them", 350, "24 of the record's 48 properties are named", 24},
		{"a quarter", 200, "12 of the record's 48 properties are named", 12},
		{"the type alone", 40, "the records' contents are not described", 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			fits := func(s []byte) bool { return c.Tokenizer.Tokens(s) <= tt.room }
			var got [][]byte
			for s := range trimmings(schema, memberNames(recs[0], schema["properties"].(map[string]any)), tt.room, fits) {
				got = append(got, s)
				break
			}
			if len(got) != 1 {
				t.Fatalf("%d trimmings, want 1", len(got))
			}
			if n := c.Tokenizer.Tokens(got[0]); n > tt.room {
				t.Errorf("the trimmed schema is %d tokens, more than %d", n, tt.room)
			}
			var s map[string]any
			if err := json.Unmarshal(got[0], &s); err != nil {
				t.Fatal(err)
			}
			if comment, _ := s["$comment"].(string); !strings.Contains(comment, tt.comment) {
				t.Errorf("$comment = %q, want it to say %q", comment, tt.comment)
			}
			props, _ := s["properties"].(map[string]any)
			if tt.named >= 0 && len(props) != tt.named {
				t.Errorf("%d properties named, want %d", len(props), tt.named)
			}
			if tt.named > 0 && (props["id"] == nil || props["number"] == nil) {
				t.Errorf("required properties left out first: %s", got[0])
			}
			validates(t, s, lines)
		})
	}
	n := 0
	for range trimmings(schema, nil, 0, func([]byte) bool { return false }) {
		n++
	}
	if n != 0 {
		t.Errorf("%d trimmings where none fits", n)
	}
	var sizes []int
	for s := range trimmings(schema, nil, math.MaxInt, func([]byte) bool { return true }) {
		sizes = append(sizes, len(s))
	}
	if len(sizes) != 9 || !slices.IsSortedFunc(sizes, func(a, b int) int { return b - a }) {
		t.Errorf("trimmings of %v bytes, want 9 (3 depths, 5 widths, the type), each smaller", sizes)
	}
}
