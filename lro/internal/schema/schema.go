package schema

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
