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
		Path: "/tmp/atlatl-recall-01KAKZ6Q3V4S0M8W9X7Y2B1C0D.jsonl", Detail: "light", Count: 200, EstimatedTokens: 31250, Noun: "memories",
	}, descriptor.ProfileNoRecipes)
	fmt.Println(resp.Guidance)
	// Output:
	// Results offloaded to JSONL (200 memories, ~31250 tokens saved).
	// File: /tmp/atlatl-recall-01KAKZ6Q3V4S0M8W9X7Y2B1C0D.jsonl
	// Detail level: light
	// Query it with jq or grep, for example: tail -n +2 '/tmp/atlatl-recall-01KAKZ6Q3V4S0M8W9X7Y2B1C0D.jsonl' | jq -c '.'
	// Read the file directly only if you need the complete dataset.
	// The header line (line 1) contains metadata; memory objects start at line 2.
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
	//   "$schema": "https://json-schema.org/draft/2020-12/schema",
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
