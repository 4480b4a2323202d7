// Package wire is, for tests, what an offload descriptor holds on the
// wire: the specification's OffloadResponse and the fields lro adds, to
// decode a descriptor's JSON into (package lro/descriptor exports none).
package wire

import "encoding/json"

// Descriptor is what tests read of a descriptor.
type Descriptor struct {
	Offloaded bool `json:"offloaded"`
	Summary   *struct {
		Count           int         `json:"count"`
		EstimatedTokens int         `json:"estimated_tokens"`
		Operation       string      `json:"operation"`
		TopNamespaces   []string    `json:"top_namespaces"`
		ScoreRange      *[2]float64 `json:"score_range"`
		Detail          string      `json:"detail"`
	} `json:"summary,omitempty"`
	FilePath   string     `json:"file_path"`
	Handle     string     `json:"handle,omitempty"`
	ExpiresAt  string     `json:"expires_at,omitempty"`
	LineSchema any        `json:"line_schema,omitempty"`
	JqRecipes  []JqRecipe `json:"jq_recipes,omitempty"`
	Guidance   string     `json:"guidance,omitempty"`
	Beside     *struct {
		Values  json.RawMessage `json:"values,omitempty"`
		Other   []string        `json:"other,omitempty"`
		Command string          `json:"command"`
	} `json:"beside,omitempty"`
	Preview *struct {
		Records []json.RawMessage `json:"records"`
		Note    string            `json:"note"`
	} `json:"preview,omitempty"`
}

// JqRecipe is one recipe of a descriptor.
type JqRecipe struct {
	Description string `json:"description"`
	Command     string `json:"command"`
}
