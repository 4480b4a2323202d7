package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zircote/lro-go/internal/rawjson"
)

// ErrInvalidRecords is returned, wrapped, by [Inferrer.AddFields] when a
// record is not exactly one valid JSON value.
var ErrInvalidRecords = errors.New("descriptor: record is not one valid JSON value")

// maxInferDepth bounds how deep an [Inferrer] describes nested values; deeper
// values are described by their type alone.
const maxInferDepth = 6

// Inferrer infers the JSON Schema of a stream of records, one
// [Inferrer.AddFields] at a time: for object records, the union of their
// properties, each with the types seen, and as required the properties
// present in every record. Nested objects and array items are described the
// same way, down to six levels, below which by their type alone; the
// first 4096 properties of an object, and the first 16384 in all, are
// named, the others allowed ("additionalProperties": true). A number written with a fraction or an
// exponent is a number, any other an integer. The zero value is ready to
// use. An Inferrer is not safe for concurrent use.
//
// It reads a record once, in place, validating it as it describes it (see
// scan.go): the records are most of the bytes an offload reads.
type Inferrer struct {
	// Fields, if not nil, names the only top-level members that AddFields
	// and AddElements give to their field function. Set it before the
	// first record.
	Fields []string

	root node
	scanner
	field   func(key string, value []byte)
	name    []byte // a member name being unescaped
	objects int    // the objects open around the value being read, for jq 1.6's depth
	named   int    // properties named, of every object (maxNamed)
}

// AddFields describes one more record, rec, which must be exactly one JSON
// value as [json.Valid] says, or AddFields returns an error wrapping
// [ErrInvalidRecords]. The Inferrer stays usable then, but its schema may
// also describe the part of rec read before the error. It calls field, if
// not nil, with each top-level member of an object record (of those named
// in Fields, when set; not those whose name the schema cannot name, longer
// than maxNameBytes as written), in order, duplicates included: key is the
// member's name, decoded, and value its value as written, a slice of rec.
func (in *Inferrer) AddFields(rec []byte, field func(key string, value []byte)) error {
	in.reset(rec, field)
	defer in.reset(nil, nil)
	err := in.value(&in.root, 0)
	if err == nil {
		err = in.end() // exactly one value
	}
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInvalidRecords, err)
	}
	return nil
}

// AddElements describes each element of the JSON array arr as one record,
// as [Inferrer.AddFields] does, reading arr once, and then calls each, if
// not nil, with the element as written (a slice of arr). It returns the
// number of elements described, and stops at the first error of each,
// which it returns as is. When arr is not exactly one JSON array, it
// returns an error wrapping [ErrInvalidRecords], as Add does.
func (in *Inferrer) AddElements(arr []byte, field func(key string, value []byte), each func(elem []byte) error) (int, error) {
	in.reset(arr, field)
	defer in.reset(nil, nil)
	n := 0
	var eachErr error // returned as is
	var err error
	if in.peek() != '[' {
		err = in.errAt("not an array")
	} else {
		in.pos++
		err = in.elements(func() error {
			in.peek() // the element starts after the white space
			start := in.pos
			in.jq16 = 0
			if err := in.value(&in.root, 0); err != nil {
				return err
			}
			n++
			if each != nil {
				eachErr = each(arr[start:in.pos])
			}
			return eachErr
		})
		if err == nil {
			err = in.end()
		}
	}
	if err != nil && eachErr == nil {
		err = fmt.Errorf("%w: %v", ErrInvalidRecords, err)
	}
	return n, err
}

// Spaced reports whether the last record or array added held white space
// outside its strings (read up to its end or its first error).
func (in *Inferrer) Spaced() bool { return in.spaced }

// JQ16 returns why jq 1.6, the oldest jq in wide use, cannot parse the
// record last added (in AddElements, the element given to each), or "".
func (in *Inferrer) JQ16() string { return jq16Reasons[in.jq16] }

// reset makes in read rec, in place, and give its top-level members to
// field; reset(nil, nil) lets go of them.
func (in *Inferrer) reset(rec []byte, field func(key string, value []byte)) {
	if rec == nil {
		in.b, in.pos = nil, 0 // spaced and jq16 kept for Spaced and JQ16
	} else {
		in.scanner, in.objects = scanner{b: rec}, 0
	}
	in.field = field
}

// Schema returns the schema of every record added so far, a new map on
// each call, of the [SchemaDialect], which it does not name.
func (in *Inferrer) Schema() map[string]any {
	return in.root.schema()
}

// value reads the next value and describes it into n, depth levels into
// the record; with a nil n, it only reads it. A value is described once it
// is read, so that a value that is not valid is not described.
func (in *Inferrer) value(n *node, depth int) error {
	switch c := in.peek(); c {
	case '{', '[':
		if depth >= rawjson.MaxDepth {
			return in.errAt("nested too deep")
		}
		if depth+in.objects >= jq16MaxDepth {
			in.jq16 = max(in.jq16, jq16Depth)
		}
		in.pos++
		inner := n
		if depth >= maxInferDepth {
			inner = nil // described by its type alone, once read
		} else {
			n.add(jsontext.Kind(c))
		}
		var err error
		if c == '[' {
			err = in.array(inner, depth)
		} else {
			err = in.object(inner, depth)
		}
		if err == nil && inner == nil {
			n.add(jsontext.Kind(c))
		}
		return err
	default:
		kind, err := in.scalar(c)
		if err != nil {
			return err
		}
		n.add(kind)
		return nil
	}
}

// array describes the elements of an array whose '[' has been read.
func (in *Inferrer) array(n *node, depth int) error {
	var items *node
	if n != nil {
		if n.items == nil {
			n.items = &node{}
		}
		items = n.items
	}
	return in.elements(func() error { return in.value(items, depth+1) })
}

// elements reads the elements of an array whose '[' has been read, each
// with read.
func (in *Inferrer) elements(read func() error) error {
	if in.peek() == ']' {
		in.pos++
		return nil
	}
	for {
		if err := read(); err != nil {
			return err
		}
		switch in.peek() {
		case ',':
			in.pos++
		case ']':
			in.pos++
			return nil
		default:
			return in.errAt("after an array element")
		}
	}
}

// object describes the members of an object whose '{' has been read and
// calls in.field with those of the record itself.
func (in *Inferrer) object(n *node, depth int) error {
	if n != nil && n.props == nil {
		n.props = map[string]*node{}
	}
	if in.peek() == '}' {
		in.pos++
		return nil
	}
	in.objects++
	for member := 0; ; member++ {
		hint := "" // the name records mostly have here, tried as written
		if n != nil && member < len(n.order) && n.order[member].plain {
			hint = n.order[member].name
		}
		var p *node
		if end := in.pos + 1 + len(hint); hint != "" && end+1 < len(in.b) && in.b[in.pos] == '"' && in.b[end] == '"' && in.b[end+1] == ':' && string(in.b[in.pos+1:end]) == hint {
			// The hint and its colon, without white space: read at once.
			in.pos, p = end+2, n.order[member]
		} else {
			name, hinted, err := in.memberName(hint)
			switch {
			case err != nil:
				return err
			case hinted:
				p = n.order[member]
			case n != nil:
				p = n.prop(in, name, member)
			}
		}
		c := in.peek() // the value starts after the white space
		start := in.pos
		if c == '"' {
			// A string, the most common value, read here.
			if err := in.str(); err != nil {
				return err
			}
			p.add('"')
		} else if err := in.value(p, depth+1); err != nil {
			return err
		}
		if p != nil && p.lastObject != n.objects { // not a duplicate name
			p.lastObject = n.objects
			p.present++
		}
		if depth == 0 && in.field != nil && p != n.long && (in.Fields == nil || p.field) {
			in.field(p.name, in.b[start:in.pos])
		}
		switch in.peek() {
		case ',':
			in.pos++
		case '}':
			in.pos++
			in.objects--
			return nil
		default:
			return in.errAt("after an object member")
		}
	}
}

// unquote returns the name of a member from its JSON string as written.
func (in *Inferrer) unquote(quoted []byte) []byte {
	s := quoted[1 : len(quoted)-1]
	if bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) {
		return s // its own decoding: the common case, without a copy
	}
	// The error only reports bytes that are not UTF-8, replaced by U+FFFD,
	// as encoding/json does: quoted is a valid JSON string.
	in.name, _ = jsontext.AppendUnquote(in.name[:0], quoted)
	return in.name
}

// node accumulates what is seen at one place in the records.
type node struct {
	name    string           // the property name of the node, if any
	plain   bool             // name holds no backslash, quote or control character: it is its own JSON string
	field   bool             // name is one of the Inferrer's Fields
	seen    int              // values added
	types   typeSet          // JSON Schema types seen
	objects int              // object values added
	props   map[string]*node // properties of object values
	order   []*node          // the nodes of props, first seen first
	items   *node            // elements of array values
	long    *node            // the values of properties not named: names too long, or beyond maxProps
	more    bool             // some property is not named for maxProps
	// present is the number of objects that have the property, each
	// counted once however many times it lists it; lastObject is the
	// number of the last (the count of its parent's objects then).
	present, lastObject int
}

// maxNameBytes is the longest property name, as written, that a schema
// names.
const maxNameBytes = 200

// maxProps is how many properties of an object a schema names (see
// Inferrer), so that records of very many properties cost a bounded memory:
// a property named costs a few hundred bytes; its text may be a few.
const maxProps = 4096

// maxNamed is how many properties a schema names in all, of objects at every
// depth, so that records of very many objects of very many properties cost
// a bounded memory too.
const maxNamed = 4 * maxProps

// typeSet is a set of JSON Schema type names, one bit each.
type typeSet uint8

const (
	typeArray typeSet = 1 << iota
	typeBoolean
	typeInteger
	typeNull
	typeNumber
	typeObject
	typeString
)

// typeNames are the names of the bits of a typeSet, in bit order, which is
// alphabetical order.
var typeNames = [...]string{"array", "boolean", "integer", "null", "number", "object", "string"}

// kindTypes maps the kind of a value (a jsontext.Kind, with 'i' for an
// integer and '0' for any other number) to its JSON Schema type.
var kindTypes = [256]typeSet{
	'[': typeArray, 't': typeBoolean, 'f': typeBoolean, 'i': typeInteger,
	'n': typeNull, '0': typeNumber, '{': typeObject, '"': typeString,
}

// add counts a value of the given kind, if n is not nil.
func (n *node) add(kind jsontext.Kind) {
	if n == nil {
		return
	}
	n.seen++
	n.types |= kindTypes[kind]
	if kind == '{' {
		n.objects++
	}
}

// prop returns the node of the property whose name is the JSON string
// quoted, the i-th member of an object. Records mostly list the same
// properties in the same order: the i-th property seen first is tried
// first (as written by object, before the name is even scanned).
func (n *node) prop(in *Inferrer, quoted []byte, i int) *node {
	if len(quoted) > 2+maxNameBytes {
		return n.unnamed() // so that a descriptor stays small whatever the names
	}
	key := in.unquote(quoted)
	if i < len(n.order) && n.order[i].name == string(key) {
		return n.order[i]
	}
	if p, ok := n.props[string(key)]; ok {
		return p
	}
	if len(n.order) == maxProps || in.named == maxNamed {
		n.more = true
		return n.unnamed()
	}
	in.named++
	p := &node{name: string(key)}
	p.plain = !strings.ContainsFunc(p.name, func(r rune) bool { return r == '\\' || r == '"' || r < ' ' })
	p.field = slices.Contains(in.Fields, p.name)
	n.props[p.name] = p
	n.order = append(n.order, p)
	return p
}

// unnamed returns the node of the values of n's properties not named.
func (n *node) unnamed() *node {
	if n.long == nil {
		n.long = &node{}
	}
	return n.long
}

// AppendJSON appends the JSON of Schema's map as an encoding/json Encoder
// without HTML escaping writes it (members sorted by name), without
// making the map.
func (in *Inferrer) AppendJSON(b []byte) []byte { return in.root.appendJSON(b) }

func (n *node) appendJSON(b []byte) []byte {
	if n.seen == 0 {
		return append(b, "{}"...)
	}
	b = append(b, '{')
	// The members in the order of their names.
	if n.props != nil && n.more {
		b = append(b, `"additionalProperties":true,`...)
	}
	if n.items != nil && n.items.seen > 0 {
		b = append(n.items.appendJSON(append(b, `"items":`...)), ',')
	}
	if n.props != nil {
		b = append(b, `"properties":{`...)
		for i, p := range slices.SortedFunc(slices.Values(n.order), func(a, b *node) int { return strings.Compare(a.name, b.name) }) {
			if i > 0 {
				b = append(b, ',')
			}
			b = p.appendJSON(append(appendString(b, p.name), ':'))
		}
		b = append(b, "},"...)
		if required := n.required(); len(required) > 0 {
			b = append(appendStrings(append(b, `"required":`...), required), ',')
		}
	}
	if names := n.typeNames(); len(names) == 1 {
		b = append(appendString(append(b, `"type":`...), names[0]), ',')
	} else if len(names) > 1 {
		b = append(appendStrings(append(b, `"type":`...), names), ',')
	}
	if b[len(b)-1] == ',' {
		b = b[:len(b)-1]
	}
	return append(b, '}')
}

// appendStrings appends the JSON array of ss, which is not empty.
func appendStrings(b []byte, ss []string) []byte {
	for i, s := range ss {
		b = appendString(append(b, "[,"[min(i, 1)]), s) // '[' before the first
	}
	return append(b, ']')
}

// appendString appends the JSON string of s as an encoding/json Encoder
// without HTML escaping writes it.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			var w bytes.Buffer
			enc := json.NewEncoder(&w)
			enc.SetEscapeHTML(false)
			_ = enc.Encode(s) // a string
			return append(b, bytes.TrimSuffix(w.Bytes(), []byte{'\n'})...)
		}
	}
	return append(append(append(b, '"'), s...), '"')
}

func (n *node) schema() map[string]any {
	s := map[string]any{}
	if n.seen == 0 {
		return s
	}
	if names := n.typeNames(); len(names) == 1 {
		s["type"] = names[0]
	} else if len(names) > 1 {
		s["type"] = names
	}
	if n.props != nil {
		props := make(map[string]any, len(n.props))
		for _, p := range n.order {
			props[p.name] = p.schema()
		}
		s["properties"] = props
		if n.more {
			s["additionalProperties"] = true
		}
		if required := n.required(); len(required) > 0 {
			s["required"] = required
		}
	}
	if n.items != nil && n.items.seen > 0 {
		s["items"] = n.items.schema()
	}
	return s
}

// typeNames returns the names of the types seen, in alphabetical order:
// number alone for integers and other numbers, as every integer is a number.
func (n *node) typeNames() []string {
	types := n.types
	if types&typeInteger != 0 && types&typeNumber != 0 {
		types &^= typeInteger
	}
	var names []string
	for i, name := range typeNames {
		if types&(1<<i) != 0 {
			names = append(names, name)
		}
	}
	return names
}

// required returns the names of the properties present in every object, sorted.
func (n *node) required() []string {
	var names []string
	for _, p := range n.order {
		if p.present == n.objects {
			names = append(names, p.name)
		}
	}
	slices.Sort(names)
	return names
}
