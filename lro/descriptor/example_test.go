package descriptor_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/zircote/lro-go/lro/descriptor"
)

// The guidance of a descriptor without recipes points to the file itself.
func ExampleBuild() {
	resp := descriptor.Build(descriptor.Input{
		Path: "/tmp/atlatl-recall-01KAKZ6Q3V4S0M8W9X7Y2B1C0D.jsonl", Detail: "light", Count: 200, EstimatedTokens: 31250,
		Saved: 30600, Noun: "memories",
	}, descriptor.ProfileNoRecipes)
	fmt.Println(resp.Guidance)
	// Output:
	// Results offloaded to JSONL (200 memories, ~30600 tokens saved).
	// File: /tmp/atlatl-recall-01KAKZ6Q3V4S0M8W9X7Y2B1C0D.jsonl
	// Detail level: light
	// Query it with jq or grep; tail -n +2 skips the header.
	// Read the whole file only if you need the complete dataset.
	// Line 1 is a metadata header; memories start at line 2.
}

func ExampleInferrer() {
	var in descriptor.Inferrer
	for _, rec := range []string{
		`{"id":1,"title":"Cache on write","tags":["cache"]}`,
		`{"id":2,"title":null,"score":0.5}`,
		`not JSON`,
	} {
		if err := in.Add([]byte(rec)); err != nil {
			fmt.Println(errors.Is(err, descriptor.ErrInvalidRecords))
		}
	}
	schema, _ := json.MarshalIndent(in.Schema(), "", "  ")
	fmt.Println(string(schema))
	// Output:
	// true
	// {
	//   "properties": {
	//     "id": {
	//       "type": "integer"
	//     },
	//     "score": {
	//       "type": "number"
	//     },
	//     "tags": {
	//       "items": {
	//         "type": "string"
	//       },
	//       "type": "array"
	//     },
	//     "title": {
	//       "type": [
	//         "null",
	//         "string"
	//       ]
	//     }
	//   },
	//   "required": [
	//     "id",
	//     "title"
	//   ],
	//   "type": "object"
	// }
}
