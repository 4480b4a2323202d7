package describe

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zircote/lro-go/recipes"
)

// build returns the descriptor of in under p, decoded, and its JSON.
func build(t *testing.T, in Input, p Profile) (map[string]any, []byte) {
	t.Helper()
	data, err := Build(&in, p)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	return got, data
}

// TestBuildSerializesLikeTheSpecification: a descriptor of the
// pipeline, with the shell guidance, serializes as the specification's.
func TestBuildSerializesLikeTheSpecification(t *testing.T) {
	in := Input{Path: "/tmp/atlatl-recall-01.jsonl", Summary: Summary{Operation: "recall", Detail: "light", Count: 3, EstimatedTokens: 2000,
		TopNamespaces: []string{"_semantic/decisions"}, ScoreRange: &[2]float64{0.25, 1}}, LineSchema: map[string]any{"type": "object"}, Noun: "memories",
		Recipes: lightRecipes()}
	got, _ := build(t, in, Full)
	keys := func(m map[string]any) []string {
		var k []string
		for key := range m {
			k = append(k, key)
		}
		return sortStrings(k)
	}
	if diff := cmp.Diff([]string{"file_path", "guidance", "jq_recipes", "line_schema", "offloaded", "summary"}, keys(got)); diff != "" {
		t.Errorf("descriptor fields (-want +got):\n%s", diff)
	}
	sum := got["summary"].(map[string]any)
	if diff := cmp.Diff([]string{"count", "detail", "estimated_tokens", "operation", "score_range", "top_namespaces"}, keys(sum)); diff != "" {
		t.Errorf("summary fields (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{0.25, 1.0}, sum["score_range"]); diff != "" {
		t.Errorf("score_range is not [min, max] (-want +got):\n%s", diff)
	}
	wantGuidance := "Results offloaded to JSONL (3 memories, ~2000 tokens).\n" +
		"File: /tmp/atlatl-recall-01.jsonl\nDetail level: light\n"
	if !strings.HasPrefix(got["guidance"].(string), wantGuidance) {
		t.Errorf("guidance does not follow the template:\n%s", got["guidance"])
	}
	// A saving is claimed only when the caller measured one.
	in.Saved = 1500
	if got, _ := build(t, in, Full); !strings.HasPrefix(got["guidance"].(string), "Results offloaded to JSONL (3 memories, ~1500 tokens saved).\n") {
		t.Errorf("guidance with Saved 1500:\n%s", got["guidance"])
	}
	in.Saved = 0

	in.ScoreRange, in.TopNamespaces = nil, nil
	_, data := build(t, in, Full)
	if !strings.Contains(string(data), `"score_range":null`) || !strings.Contains(string(data), `"top_namespaces":[]`) {
		t.Errorf("absent scores must serialize as null and no namespaces as []: %s", data)
	}
}

// lightRecipes returns the memory library at the light detail level.
func lightRecipes() []Recipe {
	rs, _ := recipes.Select(recipes.Light, []json.RawMessage{
		json.RawMessage(`{"id":"01J1","title":"Go","namespace":"_semantic","memory_type":"semantic"}`),
	})
	return Recipes(rs)
}

// TestBuildHandle checks that a handle, when given, is in the descriptor
// under every profile, right after file_path; without one there is no
// "handle" at all.
func TestBuildHandle(t *testing.T) {
	const h = "atlatl-recall-01KAKZ0000000000000000000000-0123456789abcdef0123456789abcdef.jsonl"
	in := Input{Path: "/tmp/" + h, Handle: h, Summary: Summary{Operation: "recall", Detail: "light", Count: 1}, Recipes: lightRecipes()}
	for _, p := range []Profile{Full, NoRecipes, NoSchema, BarePointer} {
		_, data := build(t, in, p)
		if want := `"file_path":"/tmp/` + h + `","handle":"` + h + `"`; !strings.Contains(string(data), want) {
			t.Errorf("%v: descriptor %.300s does not hold %s", p, data, want)
		}
	}
	in.Handle = ""
	if _, data := build(t, in, BarePointer); string(data) != `{"offloaded":true,"file_path":"/tmp/`+h+`"}` {
		t.Errorf("bare pointer without a handle = %s", data)
	}
}

func sortStrings(s []string) []string {
	sort.Strings(s)
	return s
}
