// Package outschema widens a tool's output schema so that it also accepts
// what offloading puts in the structured content: package lro does it for
// the tools of AddTool and Middleware, the proxy for the upstream's tools.
package outschema

import (
	"encoding/json"

	"github.com/zircote/lro-go/internal/describe"
)

// Widen returns an output schema that accepts what schema accepts and also
// what offloading may put in the structured content (see
// [describe.ResponseSchema]); nil for nil. The $defs of schema are hoisted
// to the top so that its references still resolve, and widening a widened
// schema changes nothing.
func Widen(schema any) (any, error) {
	if schema == nil {
		return nil, nil
	}
	var orig map[string]any
	data, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &orig); err != nil {
		return nil, err
	}
	if isWidened(orig) {
		return orig, nil
	}
	widened := map[string]any{}
	for _, k := range []string{"$defs", "definitions", "$schema"} {
		if v, ok := orig[k]; ok {
			widened[k] = v
			delete(orig, k)
		}
	}
	if orig["type"] == "object" {
		widened["type"] = "object"
	}
	widened["anyOf"] = []any{orig, describe.ResponseSchema()}
	// Round-tripped, to hold only JSON types: widening is idempotent.
	data, err = json.Marshal(widened)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, err
	}
	return out, nil
}

// isWidened reports whether s is a widened schema already: an anyOf whose
// second branch is the schema of a descriptor.
func isWidened(s map[string]any) bool {
	branches, ok := s["anyOf"].([]any)
	if !ok || len(branches) != 2 {
		return false
	}
	last, ok := branches[1].(map[string]any)
	if !ok {
		return false
	}
	props, _ := last["properties"].(map[string]any)
	_, hasPath := props["file_path"]
	_, hasFlag := props["offloaded"]
	return hasPath && hasFlag
}
