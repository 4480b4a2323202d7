package outschema_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/zircote/lro-go/internal/outschema"
)

// maxWidening is the most bytes of compact JSON that widening may add.
const maxWidening = 160

// schemas are output schemas of the shapes tools advertise, as compact JSON.
var schemas = []struct {
	name, schema string
}{
	{"records and a cursor, with $defs and $schema (jsonschema-go's and invopop's shape)",
		`{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"item":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}},"properties":{"items":{"type":"array","items":{"$ref":"#/$defs/item"}},"next":{"type":"integer"}},"required":["items"],"additionalProperties":false}`},
	{"server-filesystem's read_text_file (zod's shape, draft-07)",
		`{"type":"object","properties":{"content":{"type":"string"}},"required":["content"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}`},
	{"no type at the top", `{"properties":{"n":{"type":"number"}}}`},
	{"empty", `{}`},
	{"a typed tool's slice output", `{"type":"array","items":{"type":"string"}}`},
	{"definitions of draft-07, a reference at the top",
		`{"$ref":"#/definitions/out","definitions":{"out":{"type":"object","properties":{"rows":{"type":"array"}}}}}`},
}

// TestWidenSize: widening adds at most maxWidening bytes of compact JSON to
// a schema, through WidenJSON (the proxy's) and through Widen (the Go
// value that lro.AddTool and lro.Middleware advertise, as go-sdk encodes
// it).
func TestWidenSize(t *testing.T) {
	for _, s := range schemas {
		t.Run(s.name, func(t *testing.T) {
			w, err := outschema.WidenJSON([]byte(s.schema))
			if err != nil {
				t.Fatal(err)
			}
			if n := len(w) - len(s.schema); n > maxWidening {
				t.Errorf("WidenJSON adds %d bytes, want at most %d:\n%s", n, maxWidening, w)
			}
			var orig any
			if err := json.Unmarshal([]byte(s.schema), &orig); err != nil {
				t.Fatal(err)
			}
			before, _ := json.Marshal(orig)
			v, err := outschema.Widen(orig)
			if err != nil {
				t.Fatal(err)
			}
			after, _ := json.Marshal(v)
			if n := len(after) - len(before); n > maxWidening {
				t.Errorf("Widen adds %d bytes, want at most %d:\n%s", n, maxWidening, after)
			}
		})
	}
}

// TestWidenValidates checks, with the validator go-sdk validates a typed
// tool's output with, that a widened schema accepts what the tool's own
// schema accepts and everything offloading puts in the structured content
// (a descriptor of any profile, and a fallback's {"offloaded":false}), and
// still rejects what is neither.
func TestWidenValidates(t *testing.T) {
	const schema = `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","$defs":{"item":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}},"properties":{"items":{"type":"array","items":{"$ref":"#/$defs/item"}},"next":{"type":"integer"}},"required":["items"],"additionalProperties":false}`
	tests := []struct {
		name, instance string
		valid          bool
	}{
		{"the tool's own output", `{"items":[{"id":"a"},{"id":"b"}],"next":2}`, true},
		{"a fallback's leading records, in the tool's own shape", `{"items":[{"id":"a"}],"next":2}`, true},
		{"a full descriptor", `{"offloaded":true,"summary":{"count":3000,"estimated_tokens":90000,"operation":"list","top_namespaces":[],"score_range":null,"detail":"full"},"file_path":"/tmp/lro/list-01K.jsonl","handle":"list-01K.jsonl","line_schema":{"type":"object"},"jq_recipes":[{"description":"count","command":"jq -c . /tmp/lro/list-01K.jsonl"}],"guidance":"Query the file.","beside":{"values":{"/next":2},"command":"jq '.result' /tmp/lro/list-01K.jsonl"}}`, true},
		{"a bare pointer", `{"offloaded":true,"file_path":"/tmp/lro/list-01K.jsonl"}`, true},
		{"a fallback's notice", `{"offloaded":false}`, true},
		{"neither: the tool's required member missing", `{"next":2}`, false},
		{"neither: an item of the wrong shape", `{"items":[{"id":1}]}`, false},
		{"neither: offloaded not a boolean", `{"offloaded":"yes","file_path":"/tmp/x"}`, false},
		{"neither: file_path not a string", `{"offloaded":true,"file_path":7}`, false},
		{"not an object", `[1]`, false},
	}
	check := func(t *testing.T, schema, instance string, valid bool) {
		t.Helper()
		w, err := outschema.WidenJSON([]byte(schema))
		if err != nil {
			t.Fatal(err)
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(w, &s); err != nil {
			t.Fatal(err)
		}
		resolved, err := s.Resolve(nil)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal([]byte(instance), &v); err != nil {
			t.Fatal(err)
		}
		if err := resolved.Validate(v); (err == nil) != valid {
			t.Errorf("Validate(%s) = %v, want valid %v", instance, err, valid)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { check(t, schema, tt.instance, tt.valid) })
	}
	// A typed tool's slice output: its schema keeps its own type, and the
	// second branch says "type": "object" itself.
	const slice = `{"type":"array","items":{"type":"string"}}`
	for _, tt := range []struct {
		name, instance string
		valid          bool
	}{
		{"slice: the tool's own output", `["a","b"]`, true},
		{"slice: a bare pointer", `{"offloaded":true,"file_path":"/tmp/lro/list-01K.jsonl"}`, true},
		{"slice: a fallback's notice", `{"offloaded":false}`, true},
		{"slice: neither, a string", `"a"`, false},
		{"slice: neither, an object without offloaded", `{"file_path":"/tmp/x"}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) { check(t, slice, tt.instance, tt.valid) })
	}
}

// TestWidenOnce: widening a widened schema changes nothing, and a schema
// widened by an older version (testdata/widened-v0.json: its second branch
// is the descriptor's whole schema, 2,231 bytes) is widened again from its
// own branch, as its original would be, rather than wrapped once more or
// kept that large.
func TestWidenOnce(t *testing.T) {
	for _, s := range schemas {
		t.Run(s.name, func(t *testing.T) {
			once, err := outschema.WidenJSON([]byte(s.schema))
			if err != nil {
				t.Fatal(err)
			}
			twice, err := outschema.WidenJSON(once)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(string(once), string(twice)); diff != "" {
				t.Errorf("widening twice changed the schema (-once +twice):\n%s", diff)
			}
			v, err := outschema.Widen(json.RawMessage(s.schema))
			if err != nil {
				t.Fatal(err)
			}
			again, err := outschema.Widen(v)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(v, again); diff != "" {
				t.Errorf("Widen twice changed the schema (-once +twice):\n%s", diff)
			}
		})
	}
	t.Run("widened by an older version", func(t *testing.T) {
		old, err := os.ReadFile("testdata/widened-v0.json")
		if err != nil {
			t.Fatal(err)
		}
		got, err := outschema.Widen(json.RawMessage(old))
		if err != nil {
			t.Fatal(err)
		}
		want, err := outschema.Widen(json.RawMessage(schemas[0].schema))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-widened from the original +widened from the old form):\n%s", diff)
		}
	})
}

// TestWidenJSONKeepsBytes: the proxy's widening keeps every member as the
// server wrote it (order, escapes, numbers beyond float64), hoists $defs,
// definitions and $schema and moves "type": "object" to the top.
func TestWidenJSONKeepsBytes(t *testing.T) {
	in := `{"type":"object","description":"a \u003c b","properties":{"n":{"type":"integer","maximum":18446744073709551615}},"$defs":{"x":{"type":"string"}},"$schema":"https://json-schema.org/draft/2020-12/schema"}`
	want := `{"$defs":{"x":{"type":"string"}},"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","anyOf":[{"description":"a \u003c b","properties":{"n":{"type":"integer","maximum":18446744073709551615}}},` + outschema.Branch + `]}`
	got, err := outschema.WidenJSON([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestWidenErrors: nil stays nil (an untyped nil, so that a tool keeps no
// output schema), and what is not one JSON object is an error.
func TestWidenErrors(t *testing.T) {
	if n, err := outschema.Widen(nil); n != nil || err != nil {
		t.Errorf("Widen(nil) = %v, %v; want nil, nil", n, err)
	}
	for _, in := range []string{`true`, `[]`, `{"a":1,"a":2}`, `{"a":1} {}`, `{"a":`, "{\"\xff\":1}"} {
		if w, err := outschema.WidenJSON([]byte(in)); err == nil {
			t.Errorf("WidenJSON(%q) = %s, want an error", in, w)
		}
	}
}

// TestWidenErrorSaysWhy: the error of a schema that is no valid JSON says
// why (the proxy logs it when it leaves a tool's schema as it is).
func TestWidenErrorSaysWhy(t *testing.T) {
	for in, want := range map[string]string{`{"a":1,"a":2}`: "duplicate", `{"a":`: "EOF", `[]`: "not one JSON object"} {
		if _, err := outschema.WidenJSON([]byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("WidenJSON(%q) fails with %v; want an error saying %q", in, err, want)
		}
	}
}

// TestWidenRebasesReferences: a reference to a member of the schema's top
// other than $defs and definitions, which moves into the first branch,
// points into that branch: zod-to-json-schema (the TypeScript SDK's, for
// servers behind the proxy) writes "#/properties/a" for a schema used twice.
// The widened schema resolved no more. References into $defs, within a
// subschema with an $id of its own, and in data (const) are left as
// written.
func TestWidenRebasesReferences(t *testing.T) {
	const schema = `{"type":"object","properties":{"a":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]},"b":{"$ref":"#/properties/a"},"list":{"type":"array","items":[{"$ref":"#/properties/a"}]},"d":{"$ref":"#/$defs/d"},"own":{"$id":"https://example.com/own","properties":{"x":{"$ref":"#/properties/y"},"y":{"type":"string"}}},"c":{"const":{"$ref":"#/properties/a"}}},"required":["b"],"$defs":{"d":{"anyOf":[{"$ref":"#/properties/a"}]}}}`
	const want = `{"$defs":{"d":{"anyOf":[{"$ref":"#/anyOf/0/properties/a"}]}},"type":"object","anyOf":[{"properties":{"a":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]},"b":{"$ref":"#/anyOf/0/properties/a"},"list":{"type":"array","items":[{"$ref":"#/anyOf/0/properties/a"}]},"d":{"$ref":"#/$defs/d"},"own":{"$id":"https://example.com/own","properties":{"x":{"$ref":"#/properties/y"},"y":{"type":"string"}}},"c":{"const":{"$ref":"#/properties/a"}}},"required":["b"]},` + outschema.Branch + `]}`
	w, err := outschema.WidenJSON([]byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(w)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(w, &s); err != nil {
		t.Fatal(err)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("the widened schema does not resolve: %v", err)
	}
	for instance, valid := range map[string]bool{
		`{"b":{"id":"x"},"list":[{"id":"y"}],"d":{"id":"z"}}`:      true,
		`{"offloaded":true,"file_path":"/tmp/lro/list-01K.jsonl"}`: true,
		`{"b":{"id":1}}`:          false,
		`{"b":{"id":"x"},"d":{}}`: false,
	} {
		var v any
		if err := json.Unmarshal([]byte(instance), &v); err != nil {
			t.Fatal(err)
		}
		if err := resolved.Validate(v); (err == nil) != valid {
			t.Errorf("Validate(%s) = %v, want valid %v", instance, err, valid)
		}
	}
}

// TestWidenKeepsResource: the references of a schema with an $id resolve
// against it, not against the top of the widened schema: its $defs and
// definitions stay with it, in the first branch, so that the widened schema
// still resolves (go-sdk resolves a typed tool's at registration, and
// panicked) and accepts the tool's own output and the descriptor.
func TestWidenKeepsResource(t *testing.T) {
	for _, s := range []struct{ name, schema string }{
		{"a pointer into $defs", `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://example.com/out","type":"object","$defs":{"item":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}},"properties":{"items":{"type":"array","items":{"$ref":"#/$defs/item"}}},"required":["items"]}`},
		{"an $id relative to the schema's", `{"$id":"https://example.com/out","type":"object","$defs":{"item":{"$id":"item","type":"object","properties":{"id":{"type":"string"}},"required":["id"]}},"properties":{"items":{"type":"array","items":{"$ref":"item"}}},"required":["items"]}`},
		{"draft-07 definitions", `{"$id":"https://example.com/out","type":"object","definitions":{"item":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]}},"properties":{"items":{"type":"array","items":{"$ref":"#/definitions/item"}}},"required":["items"]}`},
	} {
		t.Run(s.name, func(t *testing.T) {
			w, err := outschema.WidenJSON([]byte(s.schema))
			if err != nil {
				t.Fatal(err)
			}
			var schema jsonschema.Schema
			if err := json.Unmarshal(w, &schema); err != nil {
				t.Fatal(err)
			}
			resolved, err := schema.Resolve(nil)
			if err != nil {
				t.Fatalf("the widened schema does not resolve: %v\n%s", err, w)
			}
			for instance, valid := range map[string]bool{
				`{"items":[{"id":"a"}]}`: true,
				`{"offloaded":true,"file_path":"/tmp/lro/list-01K.jsonl","summary":{"count":3}}`: true,
				`{"offloaded":false}`:  true,
				`{"items":[{"id":1}]}`: false,
			} {
				var v any
				if err := json.Unmarshal([]byte(instance), &v); err != nil {
					t.Fatal(err)
				}
				if err := resolved.Validate(v); (err == nil) != valid {
					t.Errorf("Validate(%s) = %v, want valid %v", instance, err, valid)
				}
			}
			twice, err := outschema.WidenJSON(w)
			if err != nil || string(twice) != string(w) {
				t.Errorf("widened again: %s, %v", twice, err)
			}
		})
	}
}
