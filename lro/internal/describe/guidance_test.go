package describe

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/zircote/lro-go/lro/internal/schema"
	"github.com/zircote/lro-go/recipes"
)

// TestWhereExampleHolds checks that the where example of the guidance, for
// records that are not memories, is a condition that holds on at least one
// of the records it was made from: a model that runs it as written gets a
// non-zero count.
func TestWhereExampleHolds(t *testing.T) {
	shapes := map[string][]string{
		// server-memory's read_graph entities: the keyword of "search all"
		// comes from entityType, not from name.
		"entities": {
			`{"type":"entity","name":"John_Smith","entityType":"person","observations":["Speaks fluent Spanish","Graduated in 2019"]}`,
			`{"type":"entity","name":"Jane_Doe","entityType":"person","observations":["Works remotely"]}`,
			`{"type":"entity","name":"Ann_Lee","entityType":"person","observations":["Likes tea"]}`,
			`{"type":"entity","name":"Globex","entityType":"organization","observations":["Founded 1999"]}`,
		},
		"issues": {
			`{"number":1,"title":"Crash on start with empty config","state":"open","comments":3,"labels":[{"name":"bug"}]}`,
			`{"number":2,"title":"Document the proxy flags","state":"closed","comments":0,"labels":[{"name":"docs"}]}`,
			`{"number":3,"title":"Crash when the cache is full","state":"open","comments":7,"labels":[]}`,
		},
		"lines": {
			`{"line":1,"text":"2026-11-20T10:00:01Z INFO service started"}`,
			`{"line":2,"text":"2026-11-20T10:00:02Z ERROR service failed to bind"}`,
		},
	}
	for name, lines := range shapes {
		t.Run(name, func(t *testing.T) {
			sample := make([]json.RawMessage, len(lines))
			for i, l := range lines {
				sample[i] = json.RawMessage(l)
			}
			rs, _ := recipes.Select(recipes.Full, sample)
			inf := &schema.Inferrer{}
			for _, l := range sample {
				if err := inf.AddFields(l, nil); err != nil {
					t.Fatal(err)
				}
			}
			ls, err := json.Marshal(inf.Schema())
			if err != nil {
				t.Fatal(err)
			}
			w := whereExample(&Input{Recipes: Recipes(rs), LineSchema: json.RawMessage(ls)})
			t.Logf("where example: %s", w)
			if w == "" {
				return // no example is no false example
			}
			var conds map[string]any
			if err := json.Unmarshal([]byte(w), &conds); err != nil {
				t.Fatalf("where example %s: %v", w, err)
			}
			for _, l := range lines {
				var rec map[string]any
				if err := json.Unmarshal([]byte(l), &rec); err != nil {
					t.Fatal(err)
				}
				if holds(rec, conds) {
					return
				}
			}
			t.Errorf("where example %s holds on none of the records", w)
		})
	}
}

// holds reports whether every condition of conds (a field's value, or
// {"contains": keyword}) holds on rec's top-level fields.
func holds(rec, conds map[string]any) bool {
	for f, c := range conds {
		v := fmt.Sprint(rec[f])
		switch c := c.(type) {
		case map[string]any:
			kw, _ := c["contains"].(string)
			if !strings.Contains(strings.ToLower(v), strings.ToLower(kw)) {
				return false
			}
		default:
			if v != fmt.Sprint(c) {
				return false
			}
		}
	}
	return true
}
