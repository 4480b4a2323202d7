package recipes_test

import (
	"encoding/json"
	"testing"

	"github.com/tiktoken-go/tokenizer"

	"github.com/zircote/lro-go/recipes"
)

// recipeTokens returns what rs cost a model in a descriptor, in o200k_base
// tokens: the JSON of their descriptions and commands on a file of the
// default output folder, as a descriptor's jq_recipes holds them.
func recipeTokens(t *testing.T, codec tokenizer.Codec, rs []recipes.Data) int {
	t.Helper()
	type recipe struct {
		Description string `json:"description"`
		Command     string `json:"command"`
	}
	var out []recipe
	for _, r := range rs {
		out = append(out, recipe{r.Description, r.Command("/tmp/atlatl-list_issues-01KAGC9Q4ZJ2V8R1SX7M3N5B6T.jsonl")})
	}
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	n, err := codec.Count(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestGenericTokens bounds what the generic recipes cost in a descriptor,
// in o200k_base tokens: each library by what this version measures plus
// about 1% (guard), so that a change that makes recipes larger again fails
// here and is seen, and the libraries of objects by what the memory
// library costs at the light detail level (the specification's recipes)
// plus 120. Recipes of text lines cost more (grep's line format and the
// level patterns are in their filters), and the schema of a text line
// about 80 tokens less than a memory's, which the descriptor tokens of
// examples/memory (TestDescriptorTokens) count.
func TestGenericTokens(t *testing.T) {
	codec, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	memory := recipeTokens(t, codec, recipes.Memory(recipes.Light, sample(t, memories(recipes.Light, 50))))
	const objectMargin = 120
	for _, tc := range []struct {
		name    string
		records []any
		objects bool
		guard   int
	}{
		{"issue listing", issues(60), true, 775},
		{"issues as the REST API returns them", ghIssues(60), true, 800},
		{"pull requests", pullRequests(10), true, 815},
		{"orders", orders(30), true, 765},
		{"structured logs", logs(20), true, 720},
		{"log lines", logLines(120), false, 935},
		{"text lines", textLines(40), false, 905},
		{"no sample", nil, true, 760},
	} {
		n := recipeTokens(t, codec, recipes.Generic(sample(t, tc.records)))
		t.Logf("%-36s %4d o200k tokens (guard %d; memory library: %d)", tc.name, n, tc.guard, memory)
		if n > tc.guard {
			t.Errorf("%s: the recipes cost %d o200k tokens, more than %d", tc.name, n, tc.guard)
		}
		if tc.objects && n > memory+objectMargin {
			t.Errorf("%s: the recipes cost %d o200k tokens, more than the memory library's %d + %d", tc.name, n, memory, objectMargin)
		}
	}
}
