package proxy

import (
	"maps"
	"slices"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/zircote/lro-go/internal/rawjson"
)

// The relay edits JSON as written, with rawjson: the members it does not
// change keep their bytes (numbers such as 1e400, key order).

// member returns the value of the member key of the JSON object doc, the
// last of duplicate names, as the peers read them (encoding/json, go-sdk,
// JavaScript), a slice of doc; nil when there is none, or doc is no valid
// JSON object.
func member(doc []byte, key string) (found jsontext.Value) {
	if !rawjson.Members(doc, func(name, value jsontext.Value) bool {
		if rawjson.Unquote(name) == key {
			found = value
		}
		return true
	}) {
		return nil
	}
	return found
}

// stringMember returns the string value of the member key of doc, or "".
func stringMember(doc []byte, key string) string {
	if v := member(doc, key); v.Kind() == '"' {
		return rawjson.Unquote(v)
	}
	return ""
}

// A field is a member of a JSON object, as written.
type field struct{ name, value jsontext.Value }

// withPath returns the JSON object doc with value at the member path, each
// object on the way made, or replaced, when absent or not an object, and
// taken from the last of duplicate names (see [member]), which it replaces
// them all with; doc itself when it is no valid JSON object.
func withPath(doc, value []byte, path ...string) []byte {
	if len(path) > 1 {
		inner := member(doc, path[0])
		if inner.Kind() != '{' {
			inner = []byte("{}")
		}
		value = withPath(inner, value, path[1:]...)
	}
	var fields []field
	if !rawjson.Members(doc, func(name, v jsontext.Value) bool {
		fields = append(fields, field{name, v})
		return true
	}) {
		return doc
	}
	return join(fields, map[string][]byte{path[0]: value})
}

// join returns the JSON object of fields with the members of set: each
// replaces the members of its name where the first of them was (nil
// deletes them), and those fields lack come last, sorted.
func join(fields []field, set map[string][]byte) []byte {
	out := []byte{'{'}
	done := map[string]bool{}
	add := func(name, value []byte) {
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(append(append(out, name...), ':'), value...)
	}
	for _, f := range fields {
		key := rawjson.Unquote(f.name)
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
			q := rawjson.AppendQuote(nil, key)
			add(q, v)
		}
	}
	return append(out, '}')
}
