// Package realshapes is a corpus of tool results recorded from real
// sources: the reference MCP servers (everything, filesystem, memory), the
// output formats of the Python reference servers (mcp-server-sqlite's
// read_query, mcp-server-git's git_log, git_status and git_diff) produced by
// the real programs, tabular text from sqlite3 and Python's csv module, and
// response examples embedded in public API specifications. Nothing in it is
// invented: testdata/manifest.json says where each item came from, and
// record_test.go (go test ./internal/realshapes -record) records it again.
//
// [Items] loads the corpus; [Item.Large] makes an item's result as large as
// needed, by repeating its records, rows or lines, keeping its shape.
package realshapes

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/estimate"
)

//go:embed testdata/manifest.json testdata/items
var files embed.FS

// An Item is one recorded tool result, as testdata/manifest.json lists
// it.
type Item struct {
	Name    string `json:"name"`    // unique, e.g. "filesystem/directory_tree"
	File    string `json:"file"`    // the result's file in testdata/items
	Source  string `json:"source"`  // the program or document it came from
	Version string `json:"version"` // the version of Source
	Command string `json:"command"` // how it was produced
	// Records is how many records the result holds as a reader of its
	// format counts them (rows of a table, elements of a list), or 0 when
	// the manifest does not say.
	Records int    `json:"records,omitempty"`
	Grow    growth `json:"grow"` // how Large makes the result large
	// Result is the tool result as the client received it. Its
	// StructuredContent, when present, is a json.RawMessage holding the
	// bytes received.
	Result *mcp.CallToolResult `json:"-"`
}

// growth says how an item is made large.
type growth struct {
	// By is "json" (every text item holding JSON, and the structured
	// content: the largest array's elements are repeated), "text" (every
	// text item: Prefix, the head lines and Suffix are kept once, the
	// rest, the body, is repeated with Sep between copies) or "items" (the
	// content items after the first Head are repeated).
	By        string `json:"by"`
	HeadLines int    `json:"head_lines,omitempty"`
	Prefix    string `json:"prefix,omitempty"`
	Suffix    string `json:"suffix,omitempty"`
	Sep       string `json:"sep,omitempty"`
	Head      int    `json:"head,omitempty"`
}

// Items returns the corpus, in the order of the manifest.
func Items() ([]Item, error) {
	data, err := files.ReadFile("testdata/manifest.json")
	if err != nil {
		return nil, err
	}
	var items []Item
	if err := json.Unmarshal(data, &items); err != nil {
		return nil, fmt.Errorf("realshapes: manifest: %w", err)
	}
	for i, it := range items {
		raw, err := files.ReadFile(path.Join("testdata/items", it.File))
		if err == nil {
			items[i].Result, err = decodeResult(raw)
		}
		if err != nil {
			return nil, fmt.Errorf("realshapes: %s: %w", it.Name, err)
		}
	}
	return items, nil
}

// decodeResult decodes a CallToolResult, keeping the structured content's
// bytes as received.
func decodeResult(raw []byte) (*mcp.CallToolResult, error) {
	var res mcp.CallToolResult
	var sc struct {
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if err := errors.Join(json.Unmarshal(raw, &res), json.Unmarshal(raw, &sc)); err != nil {
		return nil, err
	}
	if res.StructuredContent != nil { // neither absent nor null
		res.StructuredContent = sc.StructuredContent
	}
	return &res, nil
}

// Large returns a copy of the item's result made at least minTokens large
// (by [estimate.Tokens] over its text items and structured content), with
// the shape of the original: more array elements for JSON, more rows for a
// table, more lines for text, more content items for a list of items.
// Structured content that repeats a text item's text repeats the grown text.
// It also returns how many records the copy holds: Records times the
// number of copies of the body.
func (it Item) Large(minTokens int) (*mcp.CallToolResult, int, error) {
	for copies := 2; copies <= 1<<20; copies *= 2 {
		res, err := it.grown(copies)
		if err != nil {
			return nil, 0, fmt.Errorf("realshapes: %s: %w", it.Name, err)
		}
		if tokens(res) >= minTokens {
			return res, it.Records * copies, nil
		}
	}
	return nil, 0, fmt.Errorf("realshapes: %s: does not grow", it.Name)
}

// tokens estimates the size of a result: its texts, the JSON of its other
// content items, and its structured content.
func tokens(res *mcp.CallToolResult) int {
	n := 0
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			n += estimate.Tokens(tc.Text)
		} else if b, err := json.Marshal(c); err == nil {
			n += estimate.Heuristic{}.Tokens(b)
		}
	}
	if raw, ok := res.StructuredContent.(json.RawMessage); ok {
		n += estimate.Heuristic{}.Tokens(raw)
	}
	return n
}

// grown returns the result with its body repeated copies times.
func (it Item) grown(copies int) (*mcp.CallToolResult, error) {
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
			text, err = it.Grow.text(tc.Text, copies)
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

// text grows a text: the part after Prefix and the head lines and before
// Suffix is repeated, with Sep between copies.
func (g growth) text(s string, copies int) (string, error) {
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
	var best array
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

// array is an array of a JSON document: the offset of its bracket, the
// [start, end) offsets of its elements, and its size outside white space.
type array struct {
	open  int
	elems []int
	size  int
}

// find visits the value v, at offset base of the document, and its values
// after it, keeping in a the array with elements that is largest.
func (a *array) find(v jsontext.Value, base int) error {
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
		*a = array{open: base, elems: elems, size: len(compact)}
	}
	return nil
}
