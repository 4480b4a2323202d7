package proxy

import (
	"bytes"
	"io"

	"github.com/go-json-experiment/json/jsontext"
)

// members calls fn with the name and the value of each member of the JSON
// object doc, in order, until fn returns false. Both are slices of doc, as
// written: the name with its quotes and escapes (see [unquote]), the value
// validated, with its numbers and strings untouched. It reports false when
// doc is not a JSON object, or is not valid JSON up to where fn stopped.
func members(doc []byte, fn func(name, value jsontext.Value) bool) bool {
	// Read from a bytes.Buffer, a jsontext.Decoder parses in place: the
	// values it returns are slices of doc, not copies. It accepts what
	// encoding/json accepts (and go-sdk's decoding lets through): duplicate
	// names, and bytes that are not UTF-8 in strings.
	dec := jsontext.NewDecoder(bytes.NewBuffer(doc), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	if dec.PeekKind() != '{' {
		return false
	}
	if _, err := dec.ReadToken(); err != nil {
		return false
	}
	for dec.PeekKind() != '}' {
		name, err := dec.ReadValue()
		if err != nil {
			return false
		}
		value, err := dec.ReadValue()
		if err != nil {
			return false
		}
		if !fn(name, value) {
			return true
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return false
	}
	_, err := dec.ReadToken() // nothing but white space after the object
	return err == io.EOF
}

// member returns the value of the first member key of the JSON object doc,
// as written (a slice of doc), or nil when doc is no JSON object or has no
// such member, or when the object is not valid JSON up to that member's end.
func member(doc []byte, key string) jsontext.Value {
	var found jsontext.Value
	members(doc, func(name, value jsontext.Value) bool {
		if unquote(name) == key {
			found = value
			return false
		}
		return true
	})
	return found
}

// unquote returns the string a valid JSON string stands for.
func unquote(s jsontext.Value) string {
	b, _ := jsontext.AppendUnquote(nil, s)
	return string(b)
}

// withoutMember returns the JSON object doc without its members named key,
// the others as written, and whether it had any.
func withoutMember(doc []byte, key string) ([]byte, bool) {
	out := []byte{'{'}
	found := false
	ok := members(doc, func(name, value jsontext.Value) bool {
		if unquote(name) == key {
			found = true
			return true
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, name...)
		out = append(out, ':')
		out = append(out, value...)
		return true
	})
	if !ok || !found {
		return doc, false
	}
	return append(out, '}'), true
}
