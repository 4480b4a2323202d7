package offload

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zircote/lro-go/internal/rawjson"
	"github.com/zircote/lro-go/internal/tabular"
)

// Rebuild puts an offloaded file back together from its header and record
// lines: the JSON of the tool result they came from, or, for a set handed over
// with Provide, the array of its records. Everything comes back byte for
// byte, but the structured content and JSON texts no spacing gives back,
// which come back compact.
func Rebuild(h FileHeader, lines [][]byte) ([]byte, error) {
	root := &node{kind: '['}
	if h.Result != nil {
		var err error
		if root, err = parseNode(h.Result); err != nil {
			return nil, fmt.Errorf("offload: header result: %w", err)
		}
	}
	for _, pl := range h.RecordsAt {
		if pl.Count > len(lines) {
			return nil, errors.New("offload: fewer record lines than the header places")
		}
		recs := lines[:pl.Count]
		lines = lines[pl.Count:]
		var v *node
		switch pl.As {
		case asArray:
			v = &node{kind: '['}
			for _, rec := range recs {
				e, err := parseNode(rec)
				if err != nil {
					return nil, err
				}
				v.elems = append(v.elems, e)
			}
		case asValue:
			if len(recs) != 1 {
				return nil, errors.New("offload: a value placement without one record")
			}
			var err error
			if v, err = parseNode(recs[0]); err != nil {
				return nil, err
			}
		case asLines:
			var b strings.Builder
			for i, rec := range recs {
				var l struct{ Text string }
				if err := json.Unmarshal(rec, &l); err != nil {
					return nil, err
				}
				if i > 0 {
					b.WriteByte('\n')
				}
				b.WriteString(l.Text)
			}
			if pl.FinalNewline {
				b.WriteByte('\n')
			}
			v = &node{raw: rawjson.AppendQuote(nil, b.String())}
		default:
			// Rows printed as text, in the format As names.
			text, err := tabular.Print(nil, pl.As, pl.Layout, recs)
			if err != nil {
				return nil, fmt.Errorf("offload: placement %q: %w", pl.As, err)
			}
			v = &node{raw: rawjson.AppendQuote(nil, string(text))}
		}
		var err error
		if root, err = root.set(pl.At, v); err != nil {
			return nil, err
		}
	}
	if len(lines) > 0 {
		return nil, errors.New("offload: more record lines than the header places")
	}
	// A text's JSON document goes back into its text first: copies may
	// repeat the text.
	var copies []Copy
	for _, pl := range h.RecordsAt {
		if pl.InText != "" {
			copies = append(copies, Copy{At: pl.InText, Of: pl.InText, Layout: pl.Layout})
		}
	}
	for _, cp := range append(copies, h.Copies...) {
		of, err := root.get(cp.Of)
		if err != nil {
			return nil, err
		}
		var v *node
		switch cp.As {
		case "":
			// The text of the JSON value at Of, printed in its layout.
			l, err := parseSpacing(cp.Layout)
			var b bytes.Buffer
			if err == nil {
				err = l.print(&b, of.encode(nil))
			}
			if err != nil {
				return nil, fmt.Errorf("offload: copy at %q: %w", cp.At, err)
			}
			v = &node{raw: rawjson.AppendQuote(nil, b.String())}
		case "string":
			if cp.Layout != "" || of.kind != 0 || len(of.raw) == 0 || of.raw[0] != '"' {
				return nil, fmt.Errorf("offload: copy of %q, which is not a string", cp.Of)
			}
			v = &node{raw: of.raw}
		default:
			return nil, fmt.Errorf("offload: unknown copy %q", cp.As)
		}
		if root, err = root.set(cp.At, v); err != nil {
			return nil, err
		}
	}
	return root.encode(nil), nil
}

// node is a JSON value whose objects and arrays are parsed, its scalars kept
// as written.
type node struct {
	kind  byte // '{', '[' or 0 for a raw scalar
	raw   []byte
	names [][]byte // the names of an object's members, as written
	elems []*node
}

func parseNode(v []byte) (*node, error) {
	return readNode(rawjson.NewDecoder(v))
}

func readNode(dec *jsontext.Decoder) (*node, error) {
	kind := dec.PeekKind()
	if kind != '{' && kind != '[' {
		v, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		return &node{raw: bytes.Clone(v)}, nil
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, err
	}
	n := &node{kind: byte(kind)}
	for dec.PeekKind() != jsontext.Kind(closing(n.kind)) {
		if kind == '{' {
			// The name is kept as written; a pointer reads it (see child).
			raw, err := dec.ReadValue()
			if err != nil {
				return nil, err
			}
			n.names = append(n.names, bytes.Clone(raw))
		}
		e, err := readNode(dec)
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, e)
	}
	_, err := dec.ReadToken()
	return n, err
}

// closing returns the end of an object or array: '}' and ']' follow '{' and
// '[' by two in ASCII.
func closing(kind byte) byte { return kind + 2 }

// encode appends the compact JSON of n to b.
func (n *node) encode(b []byte) []byte {
	if n.kind == 0 {
		return append(b, n.raw...)
	}
	b = append(b, n.kind)
	for i, e := range n.elems {
		if i > 0 {
			b = append(b, ',')
		}
		if n.kind == '{' {
			b = append(append(b, n.names[i]...), ':')
		}
		b = e.encode(b)
	}
	return append(b, closing(n.kind))
}

// get returns the value at the JSON Pointer ptr.
func (n *node) get(ptr string) (*node, error) {
	if ptr == "" {
		return n, nil
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, fmt.Errorf("offload: bad pointer %q", ptr)
	}
	cur := n
	for _, tok := range strings.Split(ptr[1:], "/") {
		tok = pointerUnescapes.Replace(tok)
		next, err := cur.child(tok)
		if err != nil {
			return nil, fmt.Errorf("offload: pointer %q: %w", ptr, err)
		}
		cur = next
	}
	return cur, nil
}

// child returns the element or the last member tok of n, as a decoder that
// keeps the last duplicate would.
func (n *node) child(tok string) (*node, error) {
	switch n.kind {
	case '{':
		for i := len(n.names) - 1; i >= 0; i-- {
			// Valid but for its UTF-8, which is replaced.
			if name, _ := jsontext.AppendUnquote(nil, n.names[i]); string(name) == tok {
				return n.elems[i], nil
			}
		}
	case '[':
		if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(n.elems) {
			return n.elems[i], nil
		}
	}
	return nil, fmt.Errorf("no %q", tok)
}

// set puts v at the existing JSON Pointer ptr and returns the new root.
func (n *node) set(ptr string, v *node) (*node, error) {
	if ptr == "" {
		return v, nil
	}
	old, err := n.get(ptr)
	if err != nil {
		return nil, err
	}
	*old = *v
	return n, nil
}
