package realshapes

import (
	"encoding/json"
	"testing"
)

func TestItems(t *testing.T) {
	items, err := Items()
	if err != nil {
		t.Fatal(err)
	}
	if len(items) < 20 {
		t.Errorf("%d items, want the whole corpus", len(items))
	}
	seen := map[string]bool{}
	for _, it := range items {
		if seen[it.Name] {
			t.Errorf("%s: listed twice", it.Name)
		}
		seen[it.Name] = true
		if it.Source == "" || it.Version == "" || it.Command == "" {
			t.Errorf("%s: no source, version or command: %+v", it.Name, it)
		}
		if it.Result == nil || len(it.Result.Content) == 0 {
			t.Errorf("%s: no content", it.Name)
		}
	}
}

// TestAPIs loads the documents of testdata/apis: each one JSON value.
func TestAPIs(t *testing.T) {
	apis, err := APIs()
	if err != nil {
		t.Fatal(err)
	}
	if len(apis) < 6 {
		t.Fatalf("%d documents, want the 6 of testdata/apis/README.md", len(apis))
	}
	for _, a := range apis {
		if !json.Valid(a.Data) {
			t.Errorf("%s is not one JSON value", a.Name)
		}
	}
}
