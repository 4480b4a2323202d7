package outschema_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zircote/lro-go/internal/outschema"
)

// TestWiden widens a schema with $defs: they move to the top,
// the result accepts an object, widening it again changes nothing, and a nil
// schema stays nil (an untyped nil, so that a tool keeps no output schema).
func TestWiden(t *testing.T) {
	orig := map[string]any{"type": "object", "$defs": map[string]any{"x": map[string]any{"type": "string"}},
		"properties": map[string]any{"a": map[string]any{"$ref": "#/$defs/x"}}}
	got, err := outschema.Widen(orig)
	if err != nil {
		t.Fatal(err)
	}
	w, ok := got.(map[string]any)
	if !ok || w["type"] != "object" || w["$defs"] == nil || len(w["anyOf"].([]any)) != 2 {
		t.Errorf("widened = %v", got)
	}
	again, err := outschema.Widen(got)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, again); diff != "" {
		t.Errorf("widening twice changed the schema (-first +second):\n%s", diff)
	}
	if n, err := outschema.Widen(nil); n != nil || err != nil {
		t.Errorf("Widen(nil) = %v, %v; want nil, nil", n, err)
	}
}
