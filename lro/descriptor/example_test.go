package descriptor_test

import (
	"encoding/json"
	"fmt"

	"github.com/zircote/lro-go/lro/descriptor"
)

// The descriptor of a file of 200 records, without recipes: its guidance
// points to the file itself.
func ExampleBuild() {
	data, err := descriptor.Build("/tmp/atlatl-recall-01KAKZ6Q3V4S0M8W9X7Y2B1C0D.jsonl",
		descriptor.Summary{Operation: "recall", Detail: "light", Count: 200, EstimatedTokens: 31250},
		map[string]any{"type": "object"}, nil, descriptor.ProfileNoRecipes)
	if err != nil {
		panic(err)
	}
	// A client reads the fields it needs.
	var d struct {
		Summary  json.RawMessage `json:"summary"`
		Guidance string          `json:"guidance"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		panic(err)
	}
	fmt.Println(string(d.Summary))
	fmt.Println(d.Guidance)
	// Output:
	// {"count":200,"estimated_tokens":31250,"operation":"recall","top_namespaces":[],"score_range":null,"detail":"light"}
	// Results offloaded to JSONL (200 records, ~31250 tokens).
	// File: /tmp/atlatl-recall-01KAKZ6Q3V4S0M8W9X7Y2B1C0D.jsonl
	// Detail level: light
	// Query it with jq or grep; tail -n +2 skips the header.
	// Read the whole file only if you need the complete dataset.
	// Line 1 is a metadata header; records start at line 2.
}
