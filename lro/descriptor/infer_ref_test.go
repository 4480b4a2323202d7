package descriptor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zircote/lro-go/internal/jsonscan"
)

// The reference inferrer: the straightforward implementation this package
// had before the single-walk one, kept as the oracle of FuzzInferrer. It
// describes a value with jsonscan.Fields and jsonscan.Elements, which find
// the end of every nested value again at each level.

// refNode accumulates what is seen at one place in the records.
type refNode struct {
	seen    int                 // values added
	types   map[string]bool     // JSON Schema type names seen
	objects int                 // object values added
	props   map[string]*refNode // properties of object values
	order   []string            // property names, first seen first
	items   *refNode            // elements of array values
}

// add describes the valid JSON value v. When v is an object, field, if not
// nil, is called with each of its members.
func (n *refNode) add(v []byte, depth int, field func(key, value []byte)) {
	n.seen++
	if n.types == nil {
		n.types = map[string]bool{}
	}
	switch jsonscan.Kind(v) {
	case 'n':
		n.types["null"] = true
	case 't', 'f':
		n.types["boolean"] = true
	case '"':
		n.types["string"] = true
	case '[':
		n.types["array"] = true
		if depth >= maxInferDepth {
			return
		}
		if n.items == nil {
			n.items = &refNode{}
		}
		_ = jsonscan.Elements(v, func(e []byte) error {
			n.items.add(e, depth+1, nil)
			return nil
		})
	case '{':
		n.types["object"] = true
		n.objects++
		if depth >= maxInferDepth {
			return
		}
		if n.props == nil {
			n.props = map[string]*refNode{}
		}
		_ = jsonscan.Fields(v, func(f jsonscan.Field) error {
			p, ok := n.props[string(f.Key)]
			if !ok {
				p = &refNode{}
				key := string(f.Key)
				n.props[key] = p
				n.order = append(n.order, key)
			}
			p.add(f.Value, depth+1, nil)
			if field != nil {
				field(f.Key, f.Value)
			}
			return nil
		})
	default:
		if bytes.ContainsAny(v, ".eE") {
			n.types["number"] = true
		} else {
			n.types["integer"] = true
		}
	}
}

func (n *refNode) schema() map[string]any {
	s := map[string]any{}
	if n.seen == 0 {
		return s
	}
	types := make([]string, 0, len(n.types))
	for t := range n.types {
		types = append(types, t)
	}
	if n.types["integer"] && n.types["number"] {
		// Every integer is a number: say number once.
		types = refRemoveString(types, "integer")
	}
	sort.Strings(types)
	if len(types) == 1 {
		s["type"] = types[0]
	} else if len(types) > 1 {
		s["type"] = types
	}
	if n.props != nil {
		props := make(map[string]any, len(n.props))
		var required []string
		for _, k := range n.order {
			p := n.props[k]
			props[k] = p.schema()
			if p.seen == n.objects {
				required = append(required, k)
			}
		}
		s["properties"] = props
		if len(required) > 0 {
			sort.Strings(required)
			s["required"] = required
		}
	}
	if n.items != nil && n.items.seen > 0 {
		s["items"] = n.items.schema()
	}
	return s
}

func refRemoveString(list []string, s string) []string {
	out := list[:0]
	for _, v := range list {
		if v != s {
			out = append(out, v)
		}
	}
	return out
}

func refSchema(records []json.RawMessage, field func(key, value []byte)) map[string]any {
	var root refNode
	for _, r := range records {
		root.add(bytes.TrimSpace(r), 0, field)
	}
	s := root.schema()
	s["$schema"] = SchemaDialect
	return s
}

type member struct{ Key, Value string }

// FuzzInferrer checks that AddElements accepts exactly the arrays
// json.Valid accepts; that on those it and AddFields infer exactly the
// reference inferrer's schema, report the same top-level members and hand
// over the same records with exact Multiline and ASCII flags; and that on
// any input they do not panic.
func FuzzInferrer(f *testing.F) {
	for _, s := range []string{
		`[{"a":1,"b":"x"},{"a":2.5,"c":[1,{"d":null}]},{"b":"y","a":-1e3}]`,
		`[1,"a",true,null,[],{}]`,
		`[{"k\u0065y":1,"key":2}]`,
		`[[[[[[[[1]]]]]]]]`,
		`[{"a":{"b":{"c":{"d":{"e":{"f":{"g":1}}}}}}}]`,
		` [ { "a" : [ 1 , 2 ] } , { } ] `,
		`[{"a":1,"a":"dup"}]`,
		`[{"x":"esc\"aped\\"}]`,
		`{"a":1}`,
		`[1,`,
		"[{\"a\":\n1},\r\n\"caf\u00e9\",\"café\"]",
		`[01]`,
		`null`,
		`[1] x`,
		`[{"a":[[[[[[[[{"b":tru}]]]]]]]]}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<14 {
			return
		}
		var (
			in   Inferrer
			got  []member
			recs []string
		)
		field := func(k, v []byte) { got = append(got, member{string(k), string(v)}) }
		err := in.AddElements(data, field, func(e Element) error {
			recs = append(recs, string(e.Value))
			ascii := true
			for _, c := range e.Value {
				ascii = ascii && c < 0x80
			}
			if multiline := bytes.ContainsAny(e.Value, "\r\n"); e.Multiline != multiline || e.ASCII != ascii {
				t.Fatalf("record %q: Multiline %v, ASCII %v; want %v, %v", e.Value, e.Multiline, e.ASCII, multiline, ascii)
			}
			return nil
		})
		var one Inferrer
		one.AddFields(data, nil) // any input: must not panic
		var records []json.RawMessage
		isArray := json.Valid(data) && jsonscan.Kind(data) == '['
		if isArray && json.Unmarshal(data, &records) != nil {
			t.Fatalf("json.Unmarshal(%q): not an array", data)
		}
		if (err == nil) != isArray {
			t.Fatalf("AddElements(%q) = %v; encoding/json: valid array %v", data, err, isArray)
		}
		if !isArray {
			return
		}
		var want []member
		wantSchema := refSchema(records, func(k, v []byte) { want = append(want, member{string(k), string(v)}) })
		if diff := cmp.Diff(wantSchema, in.Schema()); diff != "" {
			t.Fatalf("AddElements(%q) schema (-reference +got):\n%s", data, diff)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("AddElements(%q) members (-reference +got):\n%s", data, diff)
		}
		for i, r := range records {
			if recs[i] != string(r) {
				t.Fatalf("record %d = %q, want %q", i, recs[i], r)
			}
		}
		var each Inferrer
		for _, r := range records {
			each.AddFields(r, nil)
		}
		if diff := cmp.Diff(wantSchema, each.Schema()); diff != "" {
			t.Fatalf("AddFields on the records of %q (-reference +got):\n%s", data, diff)
		}
	})
}

func TestAddElementsValidates(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	deepObject := func(n int) string {
		return "[" + strings.Repeat(`{"a":`, n-1) + "1" + strings.Repeat("}", n-1) + "]"
	}
	tests := []struct {
		in     string
		reason string
	}{
		{deep(jsonscan.MaxDepth), "arrays nested as deep as encoding/json accepts"},
		{deep(jsonscan.MaxDepth + 1), "one level deeper than encoding/json accepts"},
		{deepObject(jsonscan.MaxDepth), "objects nested as deep as encoding/json accepts"},
		{deepObject(jsonscan.MaxDepth + 1), "one object deeper than encoding/json accepts"},
		{`[{"a":[[[[[[[["x\q"]]]]]]]]}]`, "a bad escape below the described depth"},
		{`[{"a":[[[[[[[["x"]]]]]]]]}]`, "a valid value below the described depth"},
		{`[1,2]]`, "a bracket after the array"},
		{` [ ] `, "an empty array with white space"},
		{`[]x`, "junk after an empty array"},
		{`[{"a":1}{"b":2}]`, "a missing comma between records"},
		{`[{"a" 1}]`, "a missing colon"},
		{`[{"a":1,}]`, "a trailing comma in a record"},
		{`[{a:1}]`, "an unquoted key"},
		{`[nul]`, "a literal cut short"},
		{`[-]`, "a minus sign alone"},
		{"[\"a\tb\"]", "a raw tab in a string"},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			var in Inferrer
			err := in.AddElements([]byte(tt.in), nil, func(Element) error { return nil })
			if want := json.Valid([]byte(tt.in)); (err == nil) != want {
				t.Errorf("AddElements(%.40q) = %v, json.Valid = %v", tt.in, err, want)
			}
		})
	}
}

func BenchmarkAddElements(b *testing.B) {
	type rec struct {
		ID, Title, Content, Namespace string
		Tags                          []string
		Provenance                    map[string]any
	}
	recs := make([]rec, 500)
	for i := range recs {
		recs[i] = rec{
			ID:         fmt.Sprintf("0b7c%04x-1f2e-4d3c-8b9a-%012x", i%65536, i),
			Title:      fmt.Sprintf("Decision %d: cache invalidation strategy for the read path", i),
			Content:    "We decided to invalidate cache entries on write rather than on a timer, because stale reads were observed in the session logs after deploys; the change keeps p99 latency flat and removes a class of consistency bugs.",
			Namespace:  "_semantic/decisions",
			Tags:       []string{"cache", "architecture", fmt.Sprintf("team-%d", i%5)},
			Provenance: map[string]any{"confidence": 0.5 + float64(i%50)/100, "trust_level": "verified"},
		}
	}
	data, _ := json.Marshal(recs)
	b.Run("validate_infer", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			var in Inferrer
			if err := in.AddElements(data, nil, func(Element) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("validate", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			if !jsonscan.Valid(data) {
				b.Fatal("invalid")
			}
		}
	})
}
