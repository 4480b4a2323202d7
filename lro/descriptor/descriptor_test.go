package descriptor

import (
	"encoding/json"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zircote/lro-go/recipes"
)

// TestBuild: the descriptor Build makes serializes as the specification's
// OffloadResponse, with the shell template's guidance.
func TestBuild(t *testing.T) {
	const path = "/tmp/atlatl-recall-01.jsonl"
	s := Summary{Operation: "recall", Detail: "light", Count: 3, EstimatedTokens: 2000,
		TopNamespaces: []string{"_semantic/decisions"}, ScoreRange: &[2]float64{0.25, 1}}
	data, err := Build(path, s, map[string]any{"type": "object"}, lightRecipes(), ProfileFull)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	_ = json.Unmarshal(data, &got)
	keys := func(m map[string]any) []string {
		var k []string
		for key := range m {
			k = append(k, key)
		}
		sort.Strings(k)
		return k
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
	wantGuidance := "Results offloaded to JSONL (3 records, ~2000 tokens).\n" +
		"File: /tmp/atlatl-recall-01.jsonl\nDetail level: light\nUse the jq recipes above to extract specific data.\n"
	if !strings.HasPrefix(got["guidance"].(string), wantGuidance) {
		t.Errorf("guidance does not follow the template:\n%s", got["guidance"])
	}
	recs := got["jq_recipes"].([]any)
	if len(recs) != 10 || !strings.Contains(recs[0].(map[string]any)["command"].(string), path) {
		t.Errorf("jq_recipes = %v, want the ten recipes run on the file", recs)
	}

	s.ScoreRange, s.TopNamespaces = nil, nil
	data, _ = Build(path, s, nil, nil, ProfileFull)
	if !strings.Contains(string(data), `"score_range":null`) || !strings.Contains(string(data), `"top_namespaces":[]`) {
		t.Errorf("absent scores must serialize as null and no namespaces as []: %s", data)
	}
	for p, want := range map[Profile]string{
		ProfileNoRecipes:   `"jq_recipes"`,
		ProfileNoSchema:    `"line_schema"`,
		ProfileBarePointer: `"summary"`,
	} {
		data, _ := Build(path, s, map[string]any{"type": "object"}, lightRecipes(), p)
		if strings.Contains(string(data), want) {
			t.Errorf("%v: %s holds %s", p, data, want)
		}
	}
	if data, _ := Build(path, s, nil, nil, ProfileBarePointer); string(data) != `{"offloaded":true,"file_path":"`+path+`"}` {
		t.Errorf("bare pointer = %s", data)
	}
	if _, err := Build(path, s, map[string]any{"bad": func() {}}, nil, ProfileFull); err == nil {
		t.Error("Build of a line schema that cannot be encoded succeeded")
	}
}

// lightRecipes returns the memory library at the light detail level.
func lightRecipes() []recipes.Recipe {
	rs, _ := recipes.Select(recipes.Light, []json.RawMessage{
		json.RawMessage(`{"id":"01J1","title":"Go","namespace":"_semantic","memory_type":"semantic"}`),
	})
	return rs
}

// TestBuildNonFiniteScores: a score range with an end JSON cannot hold is
// written as null, as for records without scores: Build failed, though it
// fails only for a line schema that cannot be encoded.
func TestBuildNonFiniteScores(t *testing.T) {
	for _, r := range [][2]float64{{math.NaN(), 1}, {0, math.Inf(1)}, {math.Inf(-1), math.NaN()}} {
		s := Summary{Operation: "recall", Detail: "light", Count: 3, EstimatedTokens: 2000, ScoreRange: &r}
		data, err := Build("/tmp/atlatl-recall-01.jsonl", s, nil, lightRecipes(), ProfileFull)
		if err != nil {
			t.Fatalf("%v: %v", r, err)
		}
		var got struct {
			Summary map[string]json.RawMessage `json:"summary"`
		}
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatal(err)
		}
		if sr := string(got.Summary["score_range"]); sr != "null" {
			t.Errorf("%v: score_range %s, want null", r, sr)
		}
	}
}
