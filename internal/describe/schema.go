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
	var m map[string]any
	if err := json.Unmarshal([]byte(responseSchema), &m); err != nil {
		panic(err) // a constant
	}
	return m
}

const responseSchema = `{
  "type": "object",
  "description": "Large Result Offloading descriptor: the full result set was written to a JSONL file (line 1 a header, then one record per line).",
  "required": ["offloaded"],
  "properties": {
    "offloaded": {"type": "boolean", "description": "True: the result was offloaded to file_path. False: writing the file failed and the text content holds a truncated result."},
    "summary": {
      "type": "object",
      "required": ["count", "estimated_tokens", "operation", "top_namespaces", "detail"],
      "properties": {
        "count": {"type": "integer", "minimum": 0, "description": "Records in the file."},
        "estimated_tokens": {"type": "integer", "minimum": 0, "description": "Estimated tokens of the full result set."},
        "operation": {"type": "string", "description": "Operation that produced the records."},
        "top_namespaces": {"type": "array", "items": {"type": "string"}, "maxItems": 5},
        "score_range": {"type": ["array", "null"], "items": {"type": "number"}, "minItems": 2, "maxItems": 2},
        "detail": {"type": "string", "description": "Detail level of the records."}
      }
    },
    "file_path": {"type": "string", "description": "Absolute path of the JSONL file."},
    "handle": {"type": "string", "description": "Handle of the result kept in the server's store, for the handle argument of lro_extract, lro_read and lro_search, and the resource lro://results/{handle}; valid for a bounded time."},
    "line_schema": {"type": "object", "description": "JSON Schema (draft 2020-12) of one record line: the fields the lines hold."},
    "jq_recipes": {
      "type": "array",
      "items": {
        "type": "object",
        "required": ["description", "command"],
        "properties": {
          "description": {"type": "string", "description": "What the recipe does."},
          "command": {"type": "string", "description": "Shell command to run."}
        }
      }
    },
    "guidance": {"type": "string", "description": "Advisory instructions for the assistant."},
    "beside": {
      "type": "object",
      "description": "What the result held besides its records, all of it kept in the file's header under \"result\".",
      "properties": {
        "values": {"type": "object", "description": "Small values, by their jq path below the header's result."},
        "other": {"type": "array", "items": {"type": "string"}},
        "command": {"type": "string", "description": "Prints them all."}
      }
    }
  },
  "if": {"properties": {"offloaded": {"const": true}}},
  "then": {"required": ["file_path"]}
}`
