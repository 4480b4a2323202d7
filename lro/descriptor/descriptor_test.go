package descriptor

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zircote/lro-go/internal/recipes"
)

func TestParseProfile(t *testing.T) {
	tests := []struct {
		in      string
		want    Profile
		wantErr bool
	}{
		{"full", ProfileFull, false},
		{"no_recipes", ProfileNoRecipes, false},
		{"No-Schema", ProfileNoSchema, false},
		{" bare pointer ", ProfileBarePointer, false},
		{"", 0, true},
		{"rich", 0, true},
	}
	for _, tt := range tests {
		got, err := ParseProfile(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseProfile(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
		if err == nil && got.String() != strings.NewReplacer("-", "_", " ", "_").Replace(strings.ToLower(strings.TrimSpace(tt.in))) {
			t.Errorf("String() = %q does not round-trip %q", got.String(), tt.in)
		}
	}
}

func TestBuildSerializesLikeTheSpecification(t *testing.T) {
	in := Input{Path: "/tmp/atlatl-recall-01.jsonl", Operation: "recall", Detail: "light", Count: 3, EstimatedTokens: 2000,
		TopNamespaces: []string{"_semantic/decisions"}, ScoreRange: &[2]float64{0.25, 1}, LineSchema: map[string]any{"type": "object"}, Noun: "memories",
		Recipes: lightRecipes()}
	data, err := json.Marshal(Build(in, ProfileFull))
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
	if g := Build(in, ProfileFull).Guidance; !strings.HasPrefix(g, "Results offloaded to JSONL (3 memories, ~1500 tokens saved).\n") {
		t.Errorf("guidance with Saved 1500:\n%s", g)
	}
	in.Saved = 0

	in.ScoreRange, in.TopNamespaces = nil, nil
	data, _ = json.Marshal(Build(in, ProfileFull))
	if !strings.Contains(string(data), `"score_range":null`) || !strings.Contains(string(data), `"top_namespaces":[]`) {
		t.Errorf("absent scores must serialize as null and no namespaces as []: %s", data)
	}
}

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

func sortStrings(s []string) []string {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
	return s
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

// lightRecipes returns the memory library at the light detail level.
func lightRecipes() []recipes.Recipe {
	rs, _ := recipes.Select(recipes.Light, []json.RawMessage{
		json.RawMessage(`{"id":"01J1","title":"Go","namespace":"_semantic","memory_type":"semantic"}`),
	})
	return rs
}

// TestBuildHandle checks that a handle, when given, is in the descriptor
// under every profile, right after file_path, and advertised by the
// response schema; without one there is no "handle" at all.
func TestBuildHandle(t *testing.T) {
	const h = "atlatl-recall-01KAKZ0000000000000000000000-0123456789abcdef0123456789abcdef.jsonl"
	in := Input{Path: "/tmp/" + h, Handle: h, Operation: "recall", Detail: "light", Count: 1, Recipes: lightRecipes()}
	for _, p := range []Profile{ProfileFull, ProfileNoRecipes, ProfileNoSchema, ProfileBarePointer} {
		data, err := json.Marshal(Build(in, p))
		if err != nil {
			t.Fatal(err)
		}
		if want := `"file_path":"/tmp/` + h + `","handle":"` + h + `"`; !strings.Contains(string(data), want) {
			t.Errorf("%v: descriptor %.300s does not hold %s", p, data, want)
		}
	}
	in.Handle = ""
	if data, _ := json.Marshal(Build(in, ProfileBarePointer)); string(data) != `{"offloaded":true,"file_path":"/tmp/`+h+`"}` {
		t.Errorf("bare pointer without a handle = %s", data)
	}
	props := ResponseSchema()["properties"].(map[string]any)
	if hs, ok := props["handle"].(map[string]any); !ok || hs["type"] != "string" {
		t.Errorf("response schema's handle = %v, want a string property", props["handle"])
	}
}
