package schema

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestInfer(t *testing.T) {
	sample := []json.RawMessage{
		json.RawMessage(`{"id":1,"name":"a","tags":["x"],"meta":{"ok":true}}`),
		json.RawMessage(`{"id":2.5,"name":null,"extra":"only here"}`),
		json.RawMessage(`not json`),
	}
	got := infer(sample)
	want := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"id":    map[string]any{"type": "number"},
			"name":  map[string]any{"type": []string{"null", "string"}},
			"tags":  map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			"meta":  map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}, "required": []string{"ok"}},
			"extra": map[string]any{"type": "string"},
		},
		"required": []string{"id", "name"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Infer (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]any{}, infer(nil)); diff != "" {
		t.Errorf("infer(nil) should accept anything (-want +got):\n%s", diff)
	}
}

type tagged struct {
	ID      string   `json:"id" jsonschema:"the unique id, a UUID"`
	Title   string   `json:"title" jsonschema:"title=Title,description=invopop style"`
	Score   float64  `json:"score,omitempty" jsonschema:"relevance in (0, 1]"`
	Tags    []string `json:"tags" jsonschema:"required"`
	Skipped string   `json:"-"`
}

func TestReflectHonoursBothTagStyles(t *testing.T) {
	got, err := Reflect(reflect.TypeFor[*tagged]())
	if err != nil {
		t.Fatal(err)
	}
	props := got["properties"].(map[string]any)
	descs := map[string]any{}
	for k, v := range props {
		descs[k] = v.(map[string]any)["description"]
	}
	want := map[string]any{"id": "the unique id, a UUID", "title": "invopop style", "score": "relevance in (0, 1]", "tags": nil}
	if diff := cmp.Diff(want, descs); diff != "" {
		t.Errorf("descriptions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"id", "title", "tags"}, got["required"]); diff != "" {
		t.Errorf("required (-want +got):\n%s", diff)
	}
	if got["$schema"] != SchemaDialect || got["$ref"] != nil {
		t.Errorf("schema is not standalone: %v", got)
	}
}

// infer returns a JSON Schema that every record in sample satisfies; see
// [Inferrer]. Records that are not valid JSON are skipped. An empty sample
// gives the empty schema {}, which any line satisfies.
func infer(sample []json.RawMessage) map[string]any {
	var in Inferrer
	for _, rec := range sample {
		if json.Valid(rec) {
			_ = in.Add(rec) // valid: no error
		}
	}
	return in.Schema()
}
