package descriptor

import (
	"bytes"
	"encoding/json"
	"reflect"
	"sort"
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/zircote/lro-go/internal/jsonscan"
)

// SchemaDialect is the JSON Schema dialect of every schema this package makes.
const SchemaDialect = "https://json-schema.org/draft/2020-12/schema"

// maxInferDepth bounds how deep [Infer] describes nested values; deeper
// values are described by their type alone.
const maxInferDepth = 6

// Reflect returns the JSON Schema of one value of Go type t, reflected with
// github.com/invopop/jsonschema and inlined (no $ref), so that it stands alone
// as a line schema.
//
// Struct tags of both conventions are honoured: invopop's
// `jsonschema:"title=…,description=…"` and the go-sdk's plain
// `jsonschema:"a description"`, which the go-sdk uses for tool schemas. A tag
// that holds no key=value pair and no invopop keyword is taken as a go-sdk
// description, whole, commas included.
func Reflect(t reflect.Type) (map[string]any, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	r := &jsonschema.Reflector{
		DoNotReference: true,
		ExpandedStruct: true,
		LookupComment:  goSDKDescription,
	}
	s := r.ReflectFromType(t)
	data, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	delete(m, "$id")
	m["$schema"] = SchemaDialect
	return m, nil
}

// goSDKDescription is an invopop LookupComment hook that returns the go-sdk
// style description of a struct field (the whole `jsonschema` tag) when the tag
// is not in invopop's key=value syntax.
func goSDKDescription(t reflect.Type, fieldName string) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return ""
	}
	f, ok := t.FieldByName(fieldName)
	if !ok {
		return ""
	}
	tag, ok := f.Tag.Lookup("jsonschema")
	if !ok || tag == "" || tag == "-" || isInvopopTag(tag) {
		return ""
	}
	return tag
}

// invopopKeywords are the bare (valueless) keywords of invopop's tag syntax.
var invopopKeywords = map[string]bool{
	"required": true, "nullable": true, "uniqueItems": true, "readOnly": true, "writeOnly": true,
}

func isInvopopTag(tag string) bool {
	for _, part := range strings.Split(tag, ",") {
		part = strings.TrimSpace(part)
		if invopopKeywords[part] {
			return true
		}
		if k, _, ok := strings.Cut(part, "="); ok && !strings.ContainsAny(k, " \t") {
			return true
		}
	}
	return false
}

// Infer returns a JSON Schema that every record in sample satisfies; see
// [Inferrer]. Records that are not valid JSON are skipped. An empty sample
// gives the empty schema {}, which any line satisfies.
func Infer(sample []json.RawMessage) map[string]any {
	var in Inferrer
	for _, rec := range sample {
		if json.Valid(rec) {
			in.Add(rec)
		}
	}
	return in.Schema()
}

// Inferrer infers the JSON Schema of a stream of records, one [Inferrer.Add]
// at a time, without decoding them: for object records, the union of their
// properties, each with the types seen, and as required the properties present
// in every record. Nested objects and array items are described the same way,
// down to a bounded depth. The zero value is ready to use. An Inferrer is not
// safe for concurrent use.
type Inferrer struct {
	root node
}

// Add describes one more record, which must be valid JSON (the caller has
// validated it; Add does not validate again). On invalid input the schema may
// not describe the record, but Add does not panic.
func (in *Inferrer) Add(rec []byte) {
	in.root.add(bytes.TrimSpace(rec), 0, nil)
}

// AddFields is [Inferrer.Add] that also calls field with each top-level
// member of an object record, so a caller that needs a few fields of every
// record gets them from the same walk.
func (in *Inferrer) AddFields(rec []byte, field func(key, value []byte)) {
	in.root.add(bytes.TrimSpace(rec), 0, field)
}

// Schema returns the schema of every record added so far.
func (in *Inferrer) Schema() map[string]any {
	s := in.root.schema()
	s["$schema"] = SchemaDialect
	return s
}

// node accumulates what is seen at one place in the records.
type node struct {
	seen    int              // values added
	types   map[string]bool  // JSON Schema type names seen
	objects int              // object values added
	props   map[string]*node // properties of object values
	order   []string         // property names, first seen first
	items   *node            // elements of array values
}

// add describes the valid JSON value v. When v is an object, field, if not
// nil, is called with each of its members.
func (n *node) add(v []byte, depth int, field func(key, value []byte)) {
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
			n.items = &node{}
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
			n.props = map[string]*node{}
		}
		_ = jsonscan.Fields(v, func(f jsonscan.Field) error {
			p, ok := n.props[string(f.Key)]
			if !ok {
				p = &node{}
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

func (n *node) schema() map[string]any {
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
		types = removeString(types, "integer")
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

func removeString(list []string, s string) []string {
	out := list[:0]
	for _, v := range list {
		if v != s {
			out = append(out, v)
		}
	}
	return out
}

// ResponseSchema returns the JSON Schema of an [OffloadResponse] as any
// profile serializes it: offloaded and file_path are required, the other
// fields optional. Tools that may return a descriptor advertise it in their
// output schema (see [WidenOutputSchema]). Each call returns a fresh value.
func ResponseSchema() map[string]any {
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	integer := func(desc string) map[string]any {
		return map[string]any{"type": "integer", "minimum": 0, "description": desc}
	}
	return map[string]any{
		"type":        "object",
		"description": "Large Result Offloading descriptor: the full result set was written to a JSONL file (line 1 a header, then one record per line).",
		"required":    []any{"offloaded", "file_path"},
		"properties": map[string]any{
			"offloaded": map[string]any{"type": "boolean", "const": true, "description": "Always true: the result was offloaded to file_path."},
			"summary": map[string]any{
				"type":     "object",
				"required": []any{"count", "estimated_tokens", "operation", "top_namespaces", "detail"},
				"properties": map[string]any{
					"count":            integer("Records in the file."),
					"estimated_tokens": integer("Estimated tokens of the full result set."),
					"operation":        str("Operation that produced the records."),
					"top_namespaces":   map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "maxItems": 5},
					"score_range": map[string]any{
						"type": []any{"array", "null"}, "items": map[string]any{"type": "number"}, "minItems": 2, "maxItems": 2,
					},
					"detail": str("Detail level of the records."),
				},
			},
			"file_path":   str("Absolute path of the JSONL file."),
			"line_schema": map[string]any{"type": "object", "description": "JSON Schema of one record line."},
			"jq_recipes": map[string]any{
				"type": "array",
				"items": map[string]any{
					"type":     "object",
					"required": []any{"description", "command"},
					"properties": map[string]any{
						"description": str("What the recipe does."),
						"command":     str("Shell command to run."),
					},
				},
			},
			"guidance": str("Advisory instructions for the assistant."),
		},
	}
}

// WidenOutputSchema returns an output schema that accepts both what schema
// accepts and an [OffloadResponse], so that clients validating structured
// content against a tool's advertised schema accept an offloaded result. A
// nil schema gives nil: a tool without an output schema needs none. $defs of
// schema are hoisted to the top so that its references still resolve.
func WidenOutputSchema(schema any) (map[string]any, error) {
	if schema == nil {
		return nil, nil
	}
	var orig map[string]any
	data, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &orig); err != nil {
		return nil, err
	}
	if isWidened(orig) {
		return orig, nil
	}
	widened := map[string]any{}
	for _, k := range []string{"$defs", "definitions"} {
		if v, ok := orig[k]; ok {
			widened[k] = v
			delete(orig, k)
		}
	}
	if d, ok := orig["$schema"]; ok {
		widened["$schema"] = d
		delete(orig, "$schema")
	}
	if orig["type"] == "object" {
		widened["type"] = "object"
	}
	widened["anyOf"] = []any{orig, ResponseSchema()}
	// Round-trip once more so the result holds only JSON types (float64,
	// []any), whatever the input held: widening is idempotent.
	data, err = json.Marshal(widened)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	return out, nil
}

func isWidened(s map[string]any) bool {
	branches, ok := s["anyOf"].([]any)
	if !ok || len(branches) != 2 {
		return false
	}
	last, ok := branches[1].(map[string]any)
	if !ok {
		return false
	}
	props, _ := last["properties"].(map[string]any)
	_, hasPath := props["file_path"]
	_, hasFlag := props["offloaded"]
	return hasPath && hasFlag
}
