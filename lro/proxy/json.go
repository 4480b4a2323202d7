package proxy

import (
	"bytes"
	"io"
	"maps"
	"slices"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"
)

// The relay edits JSON as written, with jsontext: the members it does not
// change keep their bytes (numbers such as 1e400, key order).

// members calls fn with the name (quoted, see [unquote]) and the validated
// value of each member of the JSON object doc, in order, both slices of doc,
// until fn returns false. It reports false when doc is not a JSON object, or
// is not valid JSON up to where fn stopped.
func members(doc []byte, fn func(name, value jsontext.Value) bool) bool {
	dec := newDecoder(doc)
	stopped := false
	ok := object(dec, func(name jsontext.Value) bool {
		value, err := dec.ReadValue()
		stopped = err == nil && !fn(name, value)
		return err == nil && !stopped
	})
	return stopped || ok && atEnd(dec)
}

// object reads the JSON object dec is at, calling fn with each member's
// name, dec at its value, which fn reads. It reports false when fn does, or
// when there is no valid JSON object.
func object(dec *jsontext.Decoder, fn func(name jsontext.Value) bool) bool {
	return elements(dec, '{', func() bool {
		name, err := dec.ReadValue()
		return err == nil && fn(name)
	})
}

// elements reads the JSON array (open '[') or object (open '{') dec is at,
// calling fn with dec at each element or member name, as [object] does.
func elements(dec *jsontext.Decoder, open jsontext.Kind, fn func() bool) bool {
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != open {
		return false
	}
	for dec.PeekKind() != open+2 { // ']' or '}'
		if !fn() {
			return false
		}
	}
	_, err := dec.ReadToken()
	return err == nil
}

// atEnd reports whether nothing but white space follows in dec.
func atEnd(dec *jsontext.Decoder) bool {
	_, err := dec.ReadToken()
	return err == io.EOF
}

// member returns the value of the first member key of the JSON object doc,
// a slice of doc, or nil.
func member(doc []byte, key string) (found jsontext.Value) {
	members(doc, func(name, value jsontext.Value) bool {
		if unquote(name) == key {
			found = value
		}
		return found == nil
	})
	return found
}

// stringMember returns the string value of the member key of doc, or "".
func stringMember(doc []byte, key string) string {
	if v := member(doc, key); v.Kind() == '"' {
		return unquote(v)
	}
	return ""
}

// unquote returns the string a valid JSON string stands for, without a
// copy: s may be most of a result.
func unquote(s jsontext.Value) string {
	b, _ := jsontext.AppendUnquote(make([]byte, 0, len(s)), s)
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// A field is a member of a JSON object, as written.
type field struct{ name, value jsontext.Value }

// withMembers returns the JSON object doc with the members of set: each
// replaces the members of its name where the first of them was (nil
// deletes them), and those doc lacks come last, sorted. It returns doc and
// false when doc is no valid JSON object.
func withMembers(doc []byte, set map[string][]byte) ([]byte, bool) {
	var fields []field
	if !members(doc, func(name, value jsontext.Value) bool {
		fields = append(fields, field{name, value})
		return true
	}) {
		return doc, false
	}
	return join(fields, set), true
}

// withPath returns the JSON object doc with value at the member path, each
// object on the way made, or replaced, when absent or not an object; doc
// itself when it is no valid JSON object.
func withPath(doc, value []byte, path ...string) []byte {
	if len(path) > 1 {
		inner := member(doc, path[0])
		if inner.Kind() != '{' {
			inner = []byte("{}")
		}
		value = withPath(inner, value, path[1:]...)
	}
	out, _ := withMembers(doc, map[string][]byte{path[0]: value})
	return out
}

// join returns the JSON object of fields with the members of set, as
// [withMembers] does.
func join(fields []field, set map[string][]byte) []byte {
	size := 2
	for _, f := range fields {
		size += len(f.name) + len(f.value) + 2
	}
	for key, v := range set {
		size += len(key) + len(v) + 4
	}
	out := append(make([]byte, 0, size), '{')
	done := map[string]bool{}
	add := func(name, value []byte) {
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(append(append(out, name...), ':'), value...)
	}
	for _, f := range fields {
		key := unquote(f.name)
		v, replaced := set[key]
		switch {
		case !replaced:
			add(f.name, f.value)
		case !done[key]:
			done[key] = true
			if v != nil {
				add(f.name, v)
			}
		}
	}
	for _, key := range slices.Sorted(maps.Keys(set)) {
		if v := set[key]; !done[key] && v != nil {
			q, _ := jsontext.AppendQuote(nil, key)
			add(q, v)
		}
	}
	return append(out, '}')
}

// newDecoder returns a decoder of doc whose values are slices of doc,
// accepting duplicate names and invalid UTF-8, as encoding/json does.
func newDecoder(doc []byte) *jsontext.Decoder {
	return jsontext.NewDecoder(bytes.NewBuffer(doc), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
}
