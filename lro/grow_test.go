package lro_test

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/estimate"
	"github.com/zircote/lro-go/internal/testing/realshapes"
)

// The real shapes' results are recorded small; the tests of this package
// grow them, as each item's Grow says, to the size they need.

// largeResult returns a copy of the item's result made at least minTokens
// large (by [estimate.Tokens] over its text items and structured content), with
// the shape of the original: more array elements for JSON, more rows for a
// table, more lines for text, more content items for a list of items.
// Structured content that repeats a text item's text repeats the grown text.
// It also returns how many records the copy holds: Records times the
// number of copies of the body.
func largeResult(it realshapes.Item, minTokens int) (*mcp.CallToolResult, int, error) {
	for copies := 2; copies <= 1<<20; copies *= 2 {
		res, err := grown(it, copies)
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", it.Name, err)
		}
		if grownTokens(res) >= minTokens {
			return res, it.Records * copies, nil
		}
	}
	return nil, 0, fmt.Errorf("%s: does not grow", it.Name)
}

// grownTokens estimates the size of a result: its texts, the JSON of its other
// content items, and its structured content.
func grownTokens(res *mcp.CallToolResult) int {
	n := 0
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			n += estimate.Tokens(tc.Text)
		} else if b, err := json.Marshal(c); err == nil {
			n += estimate.Tokens(string(b))
		}
	}
	if raw, ok := res.StructuredContent.(json.RawMessage); ok {
		n += estimate.Tokens(string(raw))
	}
	return n
}

// grown returns the result with its body repeated copies times.
func grown(it realshapes.Item, copies int) (*mcp.CallToolResult, error) {
	src := it.Result
	res := &mcp.CallToolResult{Meta: src.Meta, IsError: src.IsError}
	if it.Grow.By == "items" {
		if it.Grow.Head >= len(src.Content) {
			return nil, errors.New("no content items to repeat")
		}
		res.Content = append(res.Content, src.Content[:it.Grow.Head]...)
		for range copies {
			res.Content = append(res.Content, src.Content[it.Grow.Head:]...)
		}
		res.StructuredContent = src.StructuredContent
		return res, nil
	}
	texts := map[string]string{} // original text -> grown text
	for _, c := range src.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			res.Content = append(res.Content, c)
			continue
		}
		var text string
		var err error
		switch it.Grow.By {
		case "json":
			var b []byte
			b, err = growJSON([]byte(tc.Text), copies)
			text = string(b)
		case "text":
			text, err = growText(it, tc.Text, copies)
		default:
			err = fmt.Errorf("unknown grow %q", it.Grow.By)
		}
		if err != nil {
			return nil, err
		}
		texts[tc.Text] = text
		cp := *tc
		cp.Text = text
		res.Content = append(res.Content, &cp)
	}
	if raw, ok := src.StructuredContent.(json.RawMessage); ok {
		sc, err := growStructured(raw, texts, copies)
		if err != nil {
			return nil, fmt.Errorf("structured content: %w", err)
		}
		res.StructuredContent = json.RawMessage(sc)
	}
	return res, nil
}

// growText grows a text as it.Grow says: the part after Prefix and the head lines and before
// Suffix is repeated, with Sep between copies.
func growText(it realshapes.Item, s string, copies int) (string, error) {
	g := it.Grow
	if !strings.HasPrefix(s, g.Prefix) || !strings.HasSuffix(s[len(g.Prefix):], g.Suffix) {
		return "", fmt.Errorf("the text does not start with %q and end with %q", g.Prefix, g.Suffix)
	}
	head := g.Prefix
	body := s[len(g.Prefix) : len(s)-len(g.Suffix)]
	for range g.HeadLines {
		i := strings.IndexByte(body, '\n')
		if i < 0 {
			return "", fmt.Errorf("fewer than %d head lines", g.HeadLines)
		}
		head, body = head+body[:i+1], body[i+1:]
	}
	if body == "" {
		return "", errors.New("nothing to repeat")
	}
	var b strings.Builder
	b.WriteString(head)
	for i := range copies {
		if i > 0 {
			b.WriteString(g.Sep)
		}
		b.WriteString(body)
	}
	b.WriteString(g.Suffix)
	return b.String(), nil
}

// growStructured grows structured content: a string value equal to a text
// item becomes its grown text; otherwise the largest array grows.
func growStructured(raw []byte, texts map[string]string, copies int) ([]byte, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, err
	}
	replaced := false
	var walk func(v any) any
	walk = func(v any) any {
		switch x := v.(type) {
		case string:
			if g, ok := texts[x]; ok {
				replaced = true
				return g
			}
		case map[string]any:
			for k, e := range x {
				x[k] = walk(e)
			}
		case []any:
			for i, e := range x {
				x[i] = walk(e)
			}
		}
		return v
	}
	v = walk(v)
	if !replaced {
		return growJSON(raw, copies)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// growJSON repeats the elements of the largest array of the JSON document
// doc, keeping its bytes and the separator between its elements, so that the
// document keeps its spacing, its numbers as written and its strings as
// escaped. The largest array is the one with the most bytes outside white
// space, so that the same data indented or compact (a text and the
// structured content that repeats it) grow alike.
func growJSON(doc []byte, copies int) ([]byte, error) {
	if !json.Valid(doc) {
		return nil, errors.New("not JSON")
	}
	var best jsonArray
	if err := best.find(doc, 0); err != nil {
		return nil, err
	}
	if best.elems == nil {
		return nil, errors.New("no array with elements")
	}
	first, last := best.elems[0], best.elems[len(best.elems)-1]
	sep := append([]byte(","), doc[best.open+1:first]...)
	if len(best.elems) >= 4 {
		sep = doc[best.elems[1]:best.elems[2]]
	}
	var b bytes.Buffer
	b.Write(doc[:first])
	for i := range copies {
		if i > 0 {
			b.Write(sep)
		}
		b.Write(doc[first:last])
	}
	b.Write(doc[last:])
	if !json.Valid(b.Bytes()) {
		return nil, errors.New("grown JSON is not valid")
	}
	return b.Bytes(), nil
}

// jsonArray is an array of a JSON document: the offset of its bracket, the
// [start, end) offsets of its elements, and its size outside white space.
type jsonArray struct {
	open  int
	elems []int
	size  int
}

// find visits the value v, at offset base of the document, and its values
// after it, keeping in a the array with elements that is largest.
func (a *jsonArray) find(v jsontext.Value, base int) error {
	kind := v.Kind()
	if kind != '[' && kind != '{' {
		return nil
	}
	dec := jsontext.NewDecoder(bytes.NewReader(v), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	var elems []int
	for dec.PeekKind() != kind+2 { // ']' or '}'
		if kind == '{' {
			if _, err := dec.ReadToken(); err != nil { // the member's name
				return err
			}
		}
		e, err := dec.ReadValue()
		if err != nil {
			return err
		}
		start := base + int(dec.InputOffset()) - len(e)
		elems = append(elems, start, start+len(e))
		if err := a.find(e, start); err != nil {
			return err
		}
	}
	compact := slices.Clone(v)
	if err := compact.Compact(); err != nil {
		return err
	}
	if kind == '[' && elems != nil && len(compact) > a.size {
		*a = jsonArray{open: base, elems: elems, size: len(compact)}
	}
	return nil
}

// TestLarge checks that every item of the corpus grows above the size asked for and
// keeps its shape.
func TestLarge(t *testing.T) {
	items, err := realshapes.Items()
	if err != nil {
		t.Fatal(err)
	}
	const minTokens = 8000
	for _, it := range items {
		t.Run(it.Name, func(t *testing.T) {
			res, recs, err := largeResult(it, minTokens)
			if err != nil {
				t.Fatal(err)
			}
			if recs%max(it.Records, 1) != 0 || it.Records > 0 && recs < 2*it.Records {
				t.Errorf("%d records from %d recorded", recs, it.Records)
			}
			if n := grownTokens(res); n < minTokens || n > 8*minTokens {
				t.Errorf("~%d tokens, want %d to %d", n, minTokens, 8*minTokens)
			}
			if len(res.Content) < len(it.Result.Content) {
				t.Errorf("%d content items, fewer than the %d recorded", len(res.Content), len(it.Result.Content))
			}
			for i, c := range res.Content {
				tc, ok := c.(*mcp.TextContent)
				if !ok {
					continue
				}
				orig, _ := it.Result.Content[min(i, len(it.Result.Content)-1)].(*mcp.TextContent)
				checkShape(t, it, tc.Text, orig)
			}
			if sc, ok := res.StructuredContent.(json.RawMessage); ok && !json.Valid(sc) {
				t.Errorf("structured content is not JSON: %.200s", sc)
			}
			checkCopy(t, it.Result, res)
		})
	}
}

// checkCopy checks that structured content holding the text of a text
// item (as server-filesystem sends it) holds the grown text, and that
// structured content that is the same JSON as a text (server-memory's) is
// still the same JSON once both grew.
func checkCopy(t *testing.T, orig, grown *mcp.CallToolResult) {
	t.Helper()
	sc, ok := orig.StructuredContent.(json.RawMessage)
	if !ok {
		return
	}
	if tc, ok := orig.Content[0].(*mcp.TextContent); ok && sameJSON(sc, []byte(tc.Text)) {
		if !sameJSON(grown.StructuredContent.(json.RawMessage), []byte(grown.Content[0].(*mcp.TextContent).Text)) {
			t.Errorf("the structured content repeated the text's JSON, and no longer does once grown")
		}
	}
	var m map[string]any
	if json.Unmarshal(sc, &m) != nil || len(orig.Content) == 0 {
		return
	}
	tc, ok := orig.Content[0].(*mcp.TextContent)
	if !ok || m["content"] != tc.Text {
		return
	}
	var g map[string]any
	if err := json.Unmarshal(grown.StructuredContent.(json.RawMessage), &g); err != nil {
		t.Fatal(err)
	}
	if want := grown.Content[0].(*mcp.TextContent).Text; g["content"] != want {
		t.Errorf("structured content's copy of the text did not grow with it")
	}
}

// checkShape checks that a grown text has the shape of the recorded one.
func checkShape(t *testing.T, it realshapes.Item, text string, orig *mcp.TextContent) {
	t.Helper()
	switch {
	case it.Grow.By == "json":
		if !json.Valid([]byte(text)) {
			t.Errorf("the grown text is not JSON: %.200s", text)
		}
	case it.Name == "sqlite3/csv" || it.Name == "python/csv":
		r := csv.NewReader(strings.NewReader(text))
		rows, err := r.ReadAll()
		if err != nil {
			t.Fatalf("the grown text is not CSV: %v", err)
		}
		if len(rows) < 3 {
			t.Errorf("%d rows", len(rows))
		}
	case it.Name == "sqlite3/markdown" || it.Name == "pandas/to_markdown":
		for i, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			if !strings.HasPrefix(l, "|") || !strings.HasSuffix(l, "|") {
				t.Errorf("line %d is not a table row: %q", i+1, l)
				break
			}
		}
	case it.Name == "sqlite3/tabs" || it.Name == "psql/tsv":
		lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		for i, l := range lines {
			if strings.Count(l, "\t") != strings.Count(lines[0], "\t") {
				t.Errorf("line %d has %d tabs, the header %d: %q", i+1, strings.Count(l, "\t"), strings.Count(lines[0], "\t"), l)
				break
			}
		}
	case it.Grow.Prefix == "[":
		if !strings.HasPrefix(text, "[{") || !strings.HasSuffix(text, "}]") {
			t.Errorf("the grown text is not a Python list of dicts: %.200s", text)
		}
	}
	if orig != nil && it.Grow.By != "items" && !strings.HasPrefix(text, firstLine(orig.Text)[:min(100, len(firstLine(orig.Text)))]) {
		t.Errorf("the grown text does not start as the recorded one: %.200q", text)
	}
}

// sameJSON reports whether a and b are the same JSON value.
func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return cmp.Equal(x, y)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func TestGrowJSON(t *testing.T) {
	tests := []struct {
		name, doc, want string
	}{
		{"a top-level array keeps its separator", `[1, 2, 3]`, `[1, 2, 3, 1, 2, 3]`},
		{"indented elements keep their indentation", "[\n  {\"a\": 1},\n  {\"a\": 2}\n]", "[\n  {\"a\": 1},\n  {\"a\": 2},\n  {\"a\": 1},\n  {\"a\": 2}\n]"},
		{"one element borrows the space before it", "{\"items\": [\n  {\"a\": 1}\n], \"total\": 1}", "{\"items\": [\n  {\"a\": 1},\n  {\"a\": 1}\n], \"total\": 1}"},
		{"the largest array grows, not the first", `{"a":[1],"b":[{"x":[10,20,30]}]}`, `{"a":[1],"b":[{"x":[10,20,30]},{"x":[10,20,30]}]}`},
		{"the array with the most bytes outside white space grows", "{\"a\":[\n        1,\n        2\n    ],\"b\":[\"xyz\"]}", "{\"a\":[\n        1,\n        2\n    ],\"b\":[\"xyz\",\"xyz\"]}"},
		{"brackets and escapes in strings are text", `["a]\"[", "b,c"]`, `["a]\"[", "b,c", "a]\"[", "b,c"]`},
		{"numbers stay as written", `[1e400, 12345678901234567890, -0.0]`, `[1e400, 12345678901234567890, -0.0, 1e400, 12345678901234567890, -0.0]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := growJSON([]byte(tt.doc), 2)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
	for _, doc := range []string{`{}`, `[]`, `"x"`, `not json`} {
		if _, err := growJSON([]byte(doc), 2); err == nil {
			t.Errorf("growJSON(%q): no error, want one (nothing to grow)", doc)
		}
	}
}
