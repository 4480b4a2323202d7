package describe

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/zircote/lro-go/recipes"
)

// TestRecipes checks that a recipe taken apart holds what its Args say, in
// the order they say it, with its place and the fields of its parameters.
func TestRecipes(t *testing.T) {
	tests := []struct {
		name   string
		sample []json.RawMessage
		want   Recipe // the recipe at index n
		n      int
	}{
		{"memory search", []json.RawMessage{
			json.RawMessage(`{"id":"1","title":"Rotate OAuth keys","namespace":"_procedural/x","memory_type":"procedural","tags":["security"]}`),
		}, Recipe{Number: 3, Filter: `select(.title | strings | test($keyword; "i"))`,
			Params: []Param{{"keyword", "keys", "title"}}}, 2},
		{"memory count, slurped", []json.RawMessage{
			json.RawMessage(`{"id":"1","title":"Rotate OAuth keys","namespace":"_procedural/x","memory_type":"procedural","tags":["security"]}`),
		}, Recipe{Number: 6, Filter: `group_by(.namespace) | map({namespace: .[0].namespace, count: length}) | .[]`, Slurp: true}, 5},
		{"lines, raw, two params", []json.RawMessage{
			json.RawMessage(`{"line":1,"text":"alpha"}`), json.RawMessage(`{"line":2,"text":"beta"}`),
		}, Recipe{Number: 5, Filter: `objects | select(.line | numbers | . >= ($first | tonumber) and . <= ($last | tonumber)) | "\(.line): \(.text)"`, Raw: true,
			Params: []Param{{"first", "1", ""}, {"last", "20", ""}}}, 4},
	}
	for _, tt := range tests {
		rs, _ := recipes.Select(recipes.Light, tt.sample)
		got := Recipes(rs)[tt.n]
		if got.Recipe.Description != rs[tt.n].Description {
			t.Errorf("%s: holds recipe %q, want %q", tt.name, got.Recipe.Description, rs[tt.n].Description)
		}
		if diff := cmp.Diff(tt.want, got, cmpopts.IgnoreFields(Recipe{}, "Recipe"), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tt.name, diff)
		}
	}
}
