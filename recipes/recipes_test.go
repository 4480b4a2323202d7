package recipes_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	engine "github.com/zircote/lro-go/internal/recipes"
	"github.com/zircote/lro-go/recipes"
)

func TestParseDetail(t *testing.T) {
	tests := []struct {
		in      string
		reason  string
		want    recipes.Detail
		wantErr bool
	}{
		{"light", "canonical name", recipes.Light, false},
		{"medium", "canonical name", recipes.Medium, false},
		{"full", "canonical name", recipes.Full, false},
		{"FULL", "case does not matter", recipes.Full, false},
		{"  Medium\n", "surrounding space is trimmed", recipes.Medium, false},
		{"", "empty is an error, not a default", "", true},
		{"   ", "blank is empty", "", true},
		{"verbose", "unknown names are errors", "", true},
		{"lite", "no fuzzy matching", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := recipes.ParseDetail(tt.in)
			if got != tt.want || (err != nil) != tt.wantErr {
				t.Fatalf("%s: ParseDetail(%q) = %q, %v; want %q, error %v", tt.reason, tt.in, got, err, tt.want, tt.wantErr)
			}
			if err == nil {
				return
			}
			if !errors.Is(err, recipes.ErrUnknownDetail) {
				t.Errorf("%s: error %v does not wrap ErrUnknownDetail", tt.reason, err)
			}
			for _, s := range []string{"recipes:", `"` + tt.in + `"`, "light", "medium", "full"} {
				if !strings.Contains(err.Error(), strings.TrimSpace(s)) && !strings.Contains(err.Error(), s) {
					t.Errorf("%s: error %q does not mention %q", tt.reason, err, s)
				}
			}
		})
	}
}

// TestSelectIsTheEngines checks that Select gives the recipes of the engine
// that the offloader and lro_extract use, number for number: the same
// description, label, arguments and command, and the same verdict on memory
// records.
func TestSelectIsTheEngines(t *testing.T) {
	samples := []struct {
		reason string
		detail recipes.Detail
		sample []json.RawMessage
	}{
		{"memory records at full detail", recipes.Full, []json.RawMessage{
			json.RawMessage(`{"id":"01J1","title":"Use Redis for caching","namespace":"_semantic/decisions","memory_type":"semantic","tags":["cache"],"content":"hot sessions","provenance":{"confidence":0.9}}`),
		}},
		{"generic objects", recipes.Light, []json.RawMessage{
			json.RawMessage(`{"number":1,"title":"Crash on start","state":"open","labels":["bug"]}`),
			json.RawMessage(`{"number":2,"title":"Docs","state":"closed","labels":[]}`),
		}},
		{"no sample", recipes.Medium, nil},
	}
	const file = "/tmp/it's here.jsonl"
	for _, tc := range samples {
		rs, memory := recipes.Select(tc.detail, tc.sample)
		want, wantMemory := engine.Select(tc.detail, tc.sample)
		if memory != wantMemory || len(rs) != len(want) || len(rs) != engine.Count {
			t.Fatalf("%s: %d recipes, memory %v; want %d, %v", tc.reason, len(rs), memory, len(want), wantMemory)
		}
		for i, r := range rs {
			w := want[i]
			if w.Number != i+1 {
				t.Errorf("%s: the engine's recipe %d is numbered %d", tc.reason, i+1, w.Number)
			}
			got := []any{r.Description, r.Args(), r.Command(file)}
			if diff := cmp.Diff([]any{w.Description, w.Args(), w.Command(file)}, got); diff != "" {
				t.Errorf("%s: recipe %d (-want +got):\n%s", tc.reason, i+1, diff)
			}
		}
	}
}
