// Package outschema widens a tool's output schema so that it also accepts
// what offloading puts in the structured content: package lro does it for
// the tools of AddTool and Middleware, the proxy for the upstream's tools.
//
// Offloading puts one of three things there: a descriptor, which always
// holds "offloaded": true and "file_path"; when the file could not be
// written, the leading records in the tool's own shape; or, when no part of
// the tool's own output can stand for them, {"offloaded":false}. The second
// is valid under the tool's schema; a widened schema accepts the other two
// with a second anyOf branch, [Branch], that asks for no more than they
// always hold, so that it costs a tool's definition about a hundred bytes
// instead of the descriptor's whole schema.
package outschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"reflect"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zircote/lro-go/internal/rawjson"
)

// Branch is the second anyOf branch of a widened schema, as compact JSON:
// an object with a boolean "offloaded" and, if any, a string "file_path".
// It says "type": "object" when the top of the widened schema does not
// ([typedBranch]).
const Branch = `{"required":["offloaded"],"properties":{"offloaded":{"type":"boolean"},"file_path":{"type":"string"}}}`

// typedBranch is Branch for a schema that does not say "type": "object".
const typedBranch = `{"type":"object","required":["offloaded"],"properties":{"offloaded":{"type":"boolean"},"file_path":{"type":"string"}}}`

// hoisted are the members of a schema that move to the top of the widened
// schema, so that the references of the tool's own branch still resolve
// (or, for $schema, so that the dialect still applies to the whole).
var hoisted = map[string]bool{"$schema": true, "$defs": true, "definitions": true}

// Widen returns an output schema that accepts what schema accepts and also
// what offloading may put in the structured content; nil for nil. It is
// [WidenJSON] of schema's JSON, decoded.
func Widen(schema any) (any, error) {
	if schema == nil {
		return nil, nil
	}
	data, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	if data, err = WidenJSON(data); err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// WidenJSON returns the JSON of an output schema that accepts what the
// schema of JSON data (an object) accepts and also what offloading may put
// in the structured content:
//
//	{$schema, $defs, definitions of data, "type":"object","anyOf":[{the rest of data},Branch]}
//
// Every member keeps its bytes as written. The "type": "object" of data,
// if any, moves to the top, for both branches (Branch then need not say
// it), and so do its $schema, $defs and definitions, so that its
// references still resolve; but for $schema, they stay in the first branch
// of a schema with an $id, a resource of its own, against which its
// references resolve. Without an $id, a reference to another member of the
// top, which moves to the first branch, points there (see [rebased]). A
// schema of another type (a typed tool's slice
// output) keeps its own, and the second branch says "type": "object".
// A schema widened already is returned as it is, and one widened by an
// older version (whose second branch was the descriptor's whole schema) is
// widened again from its own branch, with Branch.
func WidenJSON(data []byte) ([]byte, error) {
	ms, err := members(data)
	if err != nil {
		return nil, err
	}
	if own, ok := widened(ms); ok {
		if own == nil {
			return data, nil
		}
		ms = own
	}
	var top, rest bytes.Buffer
	add := func(b *bytes.Buffer, m member) {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.Write(m.name)
		b.WriteByte(':')
		b.Write(m.value)
	}
	top.WriteByte('{')
	rest.WriteByte('{')
	branch := typedBranch
	// A schema with an $id is a resource of its own, against which its
	// references resolve: its $defs and definitions stay with it.
	resource := slices.ContainsFunc(ms, func(m member) bool { return m.key == "$id" })
	for _, m := range ms {
		switch {
		case hoisted[m.key] && !(resource && m.key != "$schema"):
			m.value = rebased(m.key, m.value)
			add(&top, m)
		case m.key == "type" && isString(m.value, "object"):
			branch = Branch
		default:
			if !resource {
				m.value = rebased(m.key, m.value)
			}
			add(&rest, m)
		}
	}
	rest.WriteByte('}')
	if branch == Branch {
		add(&top, member{name: []byte(`"type"`), value: []byte(`"object"`)})
	}
	add(&top, member{name: []byte(`"anyOf"`), value: append(append(append(append([]byte{'['}, rest.Bytes()...), ','), branch...), ']')})
	top.WriteByte('}')
	return top.Bytes(), nil
}

// widened tells whether ms, a schema's members, are a widened schema: an
// anyOf of two branches whose second has the properties "offloaded" and
// "file_path". It returns nil when the second branch is Branch (or
// typedBranch), and else
// the members to widen instead: the first branch's and the hoisted ones of
// the top, when the top holds nothing else; nil, true when it holds more,
// which an older version did not write.
func widened(ms []member) ([]member, bool) {
	var branches []json.RawMessage
	for _, m := range ms {
		if m.key == "anyOf" && json.Unmarshal(m.value, &branches) != nil {
			return nil, false
		}
	}
	if len(branches) != 2 {
		return nil, false
	}
	var second struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(branches[1], &second) != nil || second.Properties["offloaded"] == nil || second.Properties["file_path"] == nil {
		return nil, false
	}
	if sameJSON(branches[1], Branch) || sameJSON(branches[1], typedBranch) {
		return nil, true
	}
	own, err := members(branches[0])
	if err != nil {
		return nil, true
	}
	seen := map[string]bool{}
	for _, m := range own {
		seen[m.key] = true
	}
	for _, m := range ms {
		switch {
		case m.key == "anyOf":
		case (hoisted[m.key] || m.key == "type" && isString(m.value, "object")) && !seen[m.key]:
			own = append(own, m)
		case m.key == "type" && isString(m.value, "object"): // the branch's own, repeated
		default:
			return nil, true
		}
	}
	return own, true
}

// sameJSON reports whether the JSON values a and b are equal, as decoded.
func sameJSON(a []byte, b string) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}

// A member is one member of a JSON object: its name as written and
// unquoted, and its value as written.
type member struct {
	name  jsontext.Value
	key   string
	value jsontext.Value
}

// errNotObject is returned for a schema that is valid JSON but not one
// JSON object (another value, or more than one).
var errNotObject = errors.New("outschema: the schema is not one JSON object")

// members returns the members of the JSON object data, in order, read
// strictly: a schema with duplicate names or invalid UTF-8 is refused.
func members(data []byte) ([]member, error) {
	var ms []member
	dec := jsontext.NewDecoder(bytes.NewBuffer(data))
	if !rawjson.Object(dec, func(name jsontext.Value) bool {
		value, err := dec.ReadValue()
		ms = append(ms, member{name: name, key: rawjson.Unquote(name), value: value})
		return err == nil
	}) || !rawjson.AtEnd(dec) {
		if _, err := jsontext.NewDecoder(bytes.NewReader(data)).ReadValue(); err != nil {
			return nil, err // why it is no valid JSON
		}
		return nil, errNotObject
	}
	return ms, nil
}

// isString reports whether v, a JSON value, is the string s.
func isString(v jsontext.Value, s string) bool {
	return v.Kind() == '"' && rawjson.Unquote(v) == s
}

// ownBranch is the pointer of the first branch of a widened schema, where
// a reference to a member of the schema's top that stays there now points.
const ownBranch = "/anyOf/0"

// rebased returns the value of the keyword key of a schema without an $id,
// whose other members move to the first branch of the widened schema, with
// each reference in it to such a member ("$ref": "#/properties/a", which
// zod-to-json-schema writes for a schema used twice) pointing into that
// branch; as it is when none does. A subschema with an $id is a resource
// of its own, against which its references resolve: it is left as it is.
// v is valid JSON, read strictly (see [members]); it is read once, so that
// the time taken grows with its size, not with its size times its depth.
func rebased(key string, v jsontext.Value) jsontext.Value {
	w := &rebaser{doc: v, dec: rawjson.NewDecoder(v)}
	if !w.keyword(key) || w.err != nil {
		return v
	}
	return bytes.Join(w.out, nil)
}

// A rebaser writes a value rebased, in pieces: slices of the value as
// written, and what it changes. An object or array in which nothing
// changes is one piece, as written; one in which something changes is
// written anew, its members or elements apart from one another by a
// comma alone.
type rebaser struct {
	doc []byte
	dec *jsontext.Decoder // at the value being read
	out [][]byte
	err error
}

// keyword writes the value of the keyword key, the next value of w.dec,
// rebased as its keyword says, and reports whether it changed.
func (w *rebaser) keyword(key string) bool {
	schema := func(string) bool { return w.schema() }
	switch key {
	case "$ref":
		v := w.value()
		if ref, ok := rebasedRef(v); ok {
			w.out[len(w.out)-1] = ref
			return true
		}
	case "items":
		if w.dec.PeekKind() == '[' {
			return w.container('[', schema)
		}
		return w.schema()
	case "additionalItems", "additionalProperties", "contains", "not", "if", "then", "else",
		"propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema":
		return w.schema()
	case "allOf", "anyOf", "oneOf", "prefixItems":
		return w.container('[', schema)
	case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies":
		return w.container('{', schema)
	default:
		w.value()
	}
	return false
}

// schema writes the next value of w.dec, a schema, rebased: each of its
// keywords, but for a schema with an $id, left as it is.
func (w *rebaser) schema() bool {
	mark, start, id := len(w.out), w.start(), false
	changed := w.container('{', func(key string) bool {
		id = id || key == "$id"
		return w.keyword(key)
	})
	if changed && id {
		w.out = append(w.out[:mark], w.doc[start:w.dec.InputOffset()])
		return false
	}
	return changed
}

// container writes the next value of w.dec with fn writing each element of
// an array (open '['), or the value of each member of an object (open
// '{'), given its name; a value of another kind as it is. It reports
// whether fn changed any.
func (w *rebaser) container(open jsontext.Kind, fn func(key string) bool) bool {
	if w.dec.PeekKind() != open {
		w.value()
		return false
	}
	mark, start := len(w.out), w.start()
	if _, err := w.dec.ReadToken(); err != nil {
		w.err = err
		return false
	}
	w.out = append(w.out, []byte{byte(open)})
	changed := false
	for first := true; w.err == nil; first = false {
		if k := w.dec.PeekKind(); k == open+2 || k == 0 {
			break
		}
		if !first {
			w.out = append(w.out, []byte{','})
		}
		key := ""
		if open == '{' {
			key = rawjson.Unquote(w.value())
			w.out = append(w.out, []byte{':'})
		}
		changed = fn(key) || changed
	}
	if _, err := w.dec.ReadToken(); err != nil && w.err == nil {
		w.err = err
	}
	if !changed {
		w.out = append(w.out[:mark], w.doc[start:w.dec.InputOffset()])
		return false
	}
	w.out = append(w.out, []byte{byte(open + 2)})
	return true
}

// value writes the next value of w.dec as it is, and returns it.
func (w *rebaser) value() jsontext.Value {
	v, err := w.dec.ReadValue()
	if err != nil && w.err == nil {
		w.err = err
	}
	w.out = append(w.out, v)
	return v
}

// start returns the offset in w.doc of the next value of w.dec.
func (w *rebaser) start() int {
	rest := w.doc[w.dec.InputOffset():]
	return len(w.doc) - len(bytes.TrimLeft(rest, " \t\r\n,:"))
}

// rebasedRef returns the reference v pointing into the first branch, when
// it is a JSON Pointer to a member of the top that moves there.
func rebasedRef(v jsontext.Value) (jsontext.Value, bool) {
	if v.Kind() != '"' {
		return nil, false
	}
	ref := rawjson.Unquote(v)
	ptr, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil, false
	}
	first, _, _ := strings.Cut(ptr, "/")
	if name, err := url.PathUnescape(first); err == nil {
		first = name
	}
	if hoisted[strings.NewReplacer("~1", "/", "~0", "~").Replace(first)] {
		return nil, false
	}
	return rawjson.AppendQuote(nil, "#"+ownBranch+"/"+ptr), true
}
