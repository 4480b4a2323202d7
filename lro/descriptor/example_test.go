package descriptor_test

import (
	"fmt"

	"github.com/zircote/lro-go/lro/descriptor"
)

func ExampleShellGuidance() {
	fmt.Println(descriptor.ShellGuidance(descriptor.Input{
		Path: "/tmp/atlatl-recall-01KAKZ6Q3V4S0M8W9X7Y2B1C0D.jsonl", Detail: "light", Count: 200, EstimatedTokens: 31250, Noun: "memories",
	}, false))
	// Output:
	// Results offloaded to JSONL (200 memories, ~31250 tokens saved).
	// File: /tmp/atlatl-recall-01KAKZ6Q3V4S0M8W9X7Y2B1C0D.jsonl
	// Detail level: light
	// Query it with jq or grep, for example: tail -n +2 '/tmp/atlatl-recall-01KAKZ6Q3V4S0M8W9X7Y2B1C0D.jsonl' | jq -c '.'
	// Read the file directly only if you need the complete dataset.
	// The header line (line 1) contains metadata; memory objects start at line 2.
}
