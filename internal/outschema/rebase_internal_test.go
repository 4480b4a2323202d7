package outschema

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zircote/lro-go/internal/rawjson"
)

// The rebasing of an earlier version, which read each subschema again at
// each level above it: the reference of TestRebasedAsBefore.

func oldRebased(key string, v jsontext.Value) jsontext.Value {
	switch key {
	case "$ref":
		if ref, ok := rebasedRef(v); ok {
			return ref
		}
	case "items":
		if v.Kind() == '[' {
			return oldRebasedEach(v, oldRebasedSchema)
		}
		return oldRebasedSchema(v)
	case "additionalItems", "additionalProperties", "contains", "not", "if", "then", "else",
		"propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema":
		return oldRebasedSchema(v)
	case "allOf", "anyOf", "oneOf", "prefixItems":
		return oldRebasedEach(v, oldRebasedSchema)
	case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies":
		return oldRebasedMembers(v, func(_ string, s jsontext.Value) jsontext.Value { return oldRebasedSchema(s) })
	}
	return v
}

// oldRebasedSchema is rebased of each keyword of the schema v.
func oldRebasedSchema(v jsontext.Value) jsontext.Value {
	if v.Kind() != '{' {
		return v // a boolean schema, or what is no schema
	}
	ms, err := members(v)
	if err != nil || slices.ContainsFunc(ms, func(m member) bool { return m.key == "$id" }) {
		return v
	}
	return oldRebasedMembers(v, oldRebased)
}

// oldRebasedMembers returns the object v with fn of each member's value, as
// it is when fn changes none.
func oldRebasedMembers(v jsontext.Value, fn func(key string, v jsontext.Value) jsontext.Value) jsontext.Value {
	ms, err := members(v)
	if err != nil {
		return v
	}
	changed := false
	for i, m := range ms {
		if w := fn(m.key, m.value); !bytes.Equal(w, m.value) {
			ms[i].value, changed = w, true
		}
	}
	if !changed {
		return v
	}
	out := []byte{'{'}
	for i, m := range ms {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(append(append(out, m.name...), ':'), m.value...)
	}
	return append(out, '}')
}

// oldRebasedEach returns the array v with fn of each element, as it is when
// fn changes none.
func oldRebasedEach(v jsontext.Value, fn func(jsontext.Value) jsontext.Value) jsontext.Value {
	if v.Kind() != '[' {
		return v
	}
	var elems []jsontext.Value
	changed := false
	dec := rawjson.NewDecoder(v)
	if !rawjson.Elements(dec, '[', func() bool {
		e, err := dec.ReadValue()
		if err != nil {
			return false
		}
		w := fn(e)
		changed = changed || !bytes.Equal(w, e)
		elems = append(elems, w)
		return true
	}) || !changed {
		return v
	}
	out := []byte{'['}
	for i, e := range elems {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, e...)
	}
	return append(out, ']')
}

// randomSchema writes a schema of the keywords rebased knows and others,
// with white space, references that move and some that do not, $id here
// and there, and values that are no schemas where schemas go.
func randomSchema(r *rand.Rand, b *bytes.Buffer, depth int) {
	ws := func() {
		if r.IntN(4) == 0 {
			b.WriteString([]string{" ", "\n  ", "\t", "\r\n"}[r.IntN(4)])
		}
	}
	if depth == 0 || r.IntN(6) == 0 {
		b.WriteString([]string{`true`, `{}`, `{"type":"string"}`, `{"$ref":"#/properties/a"}`, `{ "$ref" : "#/$defs/x" }`, `1e400`, `"#/properties/a"`, `[]`}[r.IntN(8)])
		return
	}
	keywords := []string{"$ref", "items", "not", "additionalProperties", "if", "then", "anyOf", "allOf", "prefixItems",
		"properties", "$defs", "definitions", "patternProperties", "$id", "type", "const", "enum", "default", "x-\u00e9"}
	r.Shuffle(len(keywords), func(i, j int) { keywords[i], keywords[j] = keywords[j], keywords[i] })
	n := r.IntN(5)
	if r.IntN(10) != 0 {
		keywords = slices.DeleteFunc(keywords, func(k string) bool { return k == "$id" && n > 0 })
	}
	b.WriteByte('{')
	for i, k := range keywords[:min(n, len(keywords))] {
		if i > 0 {
			b.WriteByte(',')
		}
		ws()
		b.Write(rawjson.AppendQuote(nil, k))
		ws()
		b.WriteByte(':')
		ws()
		switch k {
		case "$ref":
			b.WriteString([]string{`"#/properties/a"`, `"#/$defs/x"`, `"#"`, `"#/anyOf/0"`, `"other.json#/a"`, `"#/%24defs/x"`, `"#/definitions~1x"`, `1`, `"#/prop\u0065rties/a"`}[r.IntN(9)])
		case "items", "anyOf", "allOf", "prefixItems":
			if k == "items" && r.IntN(2) == 0 {
				randomSchema(r, b, depth-1)
				break
			}
			b.WriteByte('[')
			for j := range r.IntN(4) {
				if j > 0 {
					b.WriteString(",")
					ws()
				}
				randomSchema(r, b, depth-1)
			}
			b.WriteByte(']')
		case "properties", "$defs", "definitions", "patternProperties":
			if r.IntN(8) == 0 {
				b.WriteString(`[{"$ref":"#/properties/a"}]`)
				break
			}
			b.WriteByte('{')
			for j := range r.IntN(4) {
				if j > 0 {
					b.WriteString(",")
				}
				ws()
				fmt.Fprintf(b, `"%c"`, 'a'+j)
				b.WriteString(":")
				randomSchema(r, b, depth-1)
			}
			ws()
			b.WriteByte('}')
		case "$id":
			b.WriteString(`"https://example.com/s"`)
		case "const", "default", "enum":
			b.WriteString(`{"$ref":"#/properties/a","n":1.50}`)
		default:
			randomSchema(r, b, depth-1)
		}
		ws()
	}
	b.WriteByte('}')
}

// TestRebasedAsBefore: rebased, which reads a value once, writes the bytes
// that the rebasing of an earlier version wrote, for every keyword.
func TestRebasedAsBefore(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	changed := 0
	for i := range 3000 {
		var b bytes.Buffer
		randomSchema(r, &b, 1+i%7)
		ms, err := members(b.Bytes())
		if err != nil {
			continue
		}
		for _, m := range ms {
			want, got := oldRebased(m.key, m.value), rebased(m.key, m.value)
			if !bytes.Equal(want, got) {
				t.Fatalf("rebased(%q, %s)\n got %s\nwant %s", m.key, m.value, got, want)
			}
			if !bytes.Equal(want, m.value) {
				changed++
			}
		}
	}
	if changed < 100 {
		t.Errorf("only %d values rebased: the schemas test too little", changed)
	}
}
