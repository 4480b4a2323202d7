package schema

import (
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// annotated is a record type with a field the records below never hold
// (Extra), a float field whose values happen to be whole (Price), a time and
// nested structs.
type annotated struct {
	ID      string    `json:"id" jsonschema:"the unique id"`
	Price   float64   `json:"price"`
	Created time.Time `json:"created"`
	Extra   string    `json:"extra,omitempty" jsonschema:"never in the records below"`
	Parts   []struct {
		At time.Time `json:"at"`
	} `json:"parts"`
}

func TestAnnotate(t *testing.T) {
	reflected, err := Reflect(reflect.TypeFor[annotated]())
	if err != nil {
		t.Fatal(err)
	}
	records := []string{
		`{"id":"a","price":3,"created":"2026-01-02T03:04:05Z","parts":[{"at":"2026-01-02T03:04:05Z"}]}`,
		`{"id":"b","price":4,"created":"2026-01-02T03:04:05Z","parts":[]}`,
	}
	tests := []struct {
		reason       string
		descriptions bool
		want         map[string]any
	}{{
		reason: "formats and the number type come from the Go type; the properties and required ones stay the records'",
		want: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"id":      map[string]any{"type": "string"},
				"price":   map[string]any{"type": "number"},
				"created": map[string]any{"type": "string", "format": "date-time"},
				"parts": map[string]any{"type": "array", "items": map[string]any{
					"type":       "object",
					"properties": map[string]any{"at": map[string]any{"type": "string", "format": "date-time"}},
					"required":   []string{"at"},
				}},
			},
			"required": []string{"created", "id", "parts", "price"},
		},
	}, {
		reason:       "descriptions only when asked for, and only of the properties the records hold",
		descriptions: true,
		want: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"id":      map[string]any{"type": "string", "description": "the unique id"},
				"price":   map[string]any{"type": "number"},
				"created": map[string]any{"type": "string", "format": "date-time"},
				"parts": map[string]any{"type": "array", "items": map[string]any{
					"type":       "object",
					"properties": map[string]any{"at": map[string]any{"type": "string", "format": "date-time"}},
					"required":   []string{"at"},
				}},
			},
			"required": []string{"created", "id", "parts", "price"},
		},
	}}
	for _, tt := range tests {
		var in Inferrer
		for _, r := range records {
			if err := in.Add([]byte(r)); err != nil {
				t.Fatal(err)
			}
		}
		got := in.Schema()
		Annotate(got, reflected, tt.descriptions)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.reason, diff)
		}
	}
	// The reflected schema, which callers cache, is left as it was.
	again, _ := Reflect(reflect.TypeFor[annotated]())
	if diff := cmp.Diff(again, reflected); diff != "" {
		t.Errorf("Annotate changed the reflected schema (-want +got):\n%s", diff)
	}
}
