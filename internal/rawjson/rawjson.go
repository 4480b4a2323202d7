// Package rawjson reads and writes JSON as written, with jsontext: the
// members a caller does not change keep their bytes (numbers such as 1e400,
// key order, escapes). The proxy edits messages with it, outschema widens
// schemas, redact and jsonl read with its options, tabular and the
// descriptor quote with [AppendQuote]. Its Skip functions ([SkipString]
// and others, in scan.go) scan JSON by hand instead, for speed, for the
// decoder of lro/extract and the Inferrer of lro/internal/schema.
package rawjson

import (
	"bytes"
	"encoding/json"
	"io"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"
)

// DecodeOptions read JSON as a client (and encoding/json) does: duplicate
// names and invalid UTF-8 are the tool's business.
var DecodeOptions = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// NewDecoder returns a decoder of doc with [DecodeOptions] whose values are
// slices of doc (jsontext reads a [bytes.Buffer] without a copy).
func NewDecoder(doc []byte) *jsontext.Decoder {
	return jsontext.NewDecoder(bytes.NewBuffer(doc), DecodeOptions...)
}

// Members calls fn with the name (quoted, see [Unquote]) and the validated
// value of each member of the JSON object doc, in order, both slices of doc,
// until fn returns false. It reports false when doc is not a JSON object, or
// is not valid JSON up to where fn stopped.
func Members(doc []byte, fn func(name, value jsontext.Value) bool) bool {
	dec := NewDecoder(doc)
	stopped := false
	ok := Object(dec, func(name jsontext.Value) bool {
		value, err := dec.ReadValue()
		stopped = err == nil && !fn(name, value)
		return err == nil && !stopped
	})
	return stopped || ok && AtEnd(dec)
}

// Object reads the JSON object dec is at, calling fn with each member's
// name, dec at its value, which fn reads. It reports false when fn does, or
// when there is no valid JSON object.
func Object(dec *jsontext.Decoder, fn func(name jsontext.Value) bool) bool {
	return Elements(dec, '{', func() bool {
		name, err := dec.ReadValue()
		return err == nil && fn(name)
	})
}

// Elements reads the JSON array (open '[') or object (open '{') dec is at,
// calling fn with dec at each element or member name, as [Object] does.
func Elements(dec *jsontext.Decoder, open jsontext.Kind, fn func() bool) bool {
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

// AtEnd reports whether nothing but white space follows in dec.
func AtEnd(dec *jsontext.Decoder) bool {
	_, err := dec.ReadToken()
	return err == io.EOF
}

// Member returns the value of the first member key of the JSON object doc,
// a slice of doc, or nil.
func Member(doc []byte, key string) (found jsontext.Value) {
	Members(doc, func(name, value jsontext.Value) bool {
		if Unquote(name) == key {
			found = value
		}
		return found == nil
	})
	return found
}

// Unquote returns the string a valid JSON string stands for, without a
// second copy: s may be most of a result.
func Unquote(s jsontext.Value) string {
	b, _ := jsontext.AppendUnquote(make([]byte, 0, len(s)), s)
	return String(b)
}

// AppendQuote appends s as a JSON string to dst; invalid UTF-8 is
// replaced, as the wire would carry it.
func AppendQuote(dst []byte, s string) []byte {
	b, err := jsontext.AppendQuote(dst, s)
	if err != nil {
		m, _ := json.Marshal(s)
		b = append(dst, m...) // over what AppendQuote wrote before it failed
	}
	return b
}

// String returns b as a string without copying it; b must not change while
// the string is in use.
func String(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
