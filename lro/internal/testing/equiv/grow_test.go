package equiv

// The growth of a corpus item, copied from lro/grow_test.go so that the
// tool needs nothing of the module but its public API. Only the size
// measure differs: bytes/4, which is the same on every commit.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// largeResult returns a copy of the item's result with its body repeated
// a power of two times, the fewest that make it at least minTokens large
// by [size].
func largeResult(it item, minTokens int) (*mcp.CallToolResult, error) {
	for copies := 2; copies <= 1<<20; copies *= 2 {
		res, err := grown(it, copies)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", it.Name, err)
		}
		if size(res) >= minTokens {
			return res, nil
		}
	}
	return nil, fmt.Errorf("%s: does not grow", it.Name)
}

// size is a result's size in tokens, as bytes/4 of its texts, the JSON of
// its other content items and its structured content.
func size(res *mcp.CallToolResult) int {
	n := 0
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			n += len(tc.Text)
		} else if b, err := json.Marshal(c); err == nil {
			n += len(b)
		}
	}
	if raw, ok := res.StructuredContent.(json.RawMessage); ok {
		n += len(raw)
	}
	return n / 4
}

// grown returns the result with its body repeated copies times.
func grown(it item, copies int) (*mcp.CallToolResult, error) {
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
func growText(it item, s string, copies int) (string, error) {
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
