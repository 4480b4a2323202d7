package describe

import (
	"encoding/json"
	"reflect"
	"strings"

	"github.com/invopop/jsonschema"
)

// SchemaDialect is the JSON Schema dialect of every schema this package makes.
const SchemaDialect = "https://json-schema.org/draft/2020-12/schema"

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

// ResponseSchema returns the JSON Schema of what offloading may put in a
// tool's structured content: a descriptor.OffloadResponse as any profile serializes
// it (offloaded is true and file_path is set), or, when the file could not
// be written and the tool's own structured content cannot be shown in part,
// {"offloaded": false}. Tools that may return a descriptor advertise it in
// their output schema (lro.AddTool and lro.Middleware widen a schema with it). Each
// call returns a fresh value.
func ResponseSchema() map[string]any {
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	integer := func(desc string) map[string]any {
		return map[string]any{"type": "integer", "minimum": 0, "description": desc}
	}
	return map[string]any{
		"type":        "object",
		"description": "Large Result Offloading descriptor: the full result set was written to a JSONL file (line 1 a header, then one record per line).",
		"required":    []any{"offloaded"},
		"properties": map[string]any{
			"offloaded": map[string]any{"type": "boolean", "description": "True: the result was offloaded to file_path. False: writing the file failed and the text content holds a truncated result."},
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
			"handle":      str("Handle of the result kept in the server's store, for the handle argument of lro_extract, lro_read and lro_search, and the resource lro://results/{handle}; valid for a bounded time."),
			"line_schema": map[string]any{"type": "object", "description": "JSON Schema (draft 2020-12) of one record line: the fields the lines hold."},
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
			"beside": map[string]any{
				"type":        "object",
				"description": "What the result held besides its records, all of it kept in the file's header under \"result\".",
				"properties": map[string]any{
					"values":  map[string]any{"type": "object", "description": "Small values, by their jq path below the header's result."},
					"other":   map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
					"command": str("Prints them all."),
				},
			},
		},
		"if":   map[string]any{"properties": map[string]any{"offloaded": map[string]any{"const": true}}},
		"then": map[string]any{"required": []any{"file_path"}},
	}
}
