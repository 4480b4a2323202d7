// Package descriptor builds the descriptor that replaces a large tool
// result, the LRO specification's OffloadResponse: a summary, the absolute
// file path, a JSON Schema of one line, exactly ten jq recipes and guidance
// for the model. Package lro's descriptors carry, beyond the
// specification, the file's handle in a store, when it expires, what the
// result held besides its records and a preview of them.
//
// [Build], a pure function safe for concurrent use, returns the JSON of a
// descriptor from what a writer of a file knows, encoded as package lro
// encodes its own (made by the same code). A client decodes a descriptor
// into a type of its own with the fields it reads, such as
//
//	var d struct {
//		FilePath  string `json:"file_path"`
//		JqRecipes []struct {
//			Description string `json:"description"`
//			Command     string `json:"command"`
//		} `json:"jq_recipes"`
//	}
package descriptor

import (
	"encoding/json"
	"math"

	"github.com/zircote/lro-go/lro/internal/describe"
	"github.com/zircote/lro-go/recipes"
)

// Profile selects which fields a descriptor carries, as in the descriptor
// ablations of the LRO paper (a bare file pointer serves capable models as
// well as the full descriptor; recipes help weaker ones). The zero value is
// [ProfileFull].
type Profile int

const (
	// ProfileFull carries every field of the specification. It is the default
	// and the only profile that conforms to Levels 2 and 3.
	ProfileFull Profile = iota
	// ProfileNoRecipes leaves out jq_recipes; guidance does not mention them.
	ProfileNoRecipes
	// ProfileNoSchema leaves out line_schema.
	ProfileNoSchema
	// ProfileBarePointer carries only offloaded and file_path.
	ProfileBarePointer
)

// Summary is the specification's OffloadSummary.
type Summary struct {
	// Count is the number of records in the file.
	Count int `json:"count"`
	// EstimatedTokens is the estimated size of the result set, which the
	// descriptor saved from the context.
	EstimatedTokens int `json:"estimated_tokens"`
	// Operation is the operation that produced the records.
	Operation string `json:"operation"`
	// TopNamespaces are up to five namespaces, most frequent first; empty when
	// the records carry none.
	TopNamespaces []string `json:"top_namespaces"`
	// ScoreRange is [min, max] of the result's scores, or nil when the
	// records carry none.
	ScoreRange *[2]float64 `json:"score_range"`
	// Detail is the detail level of the records.
	Detail string `json:"detail"`
}

// Build returns the JSON of the descriptor, under profile p, of the offload
// file at path (its absolute path, as the client sees it), whose records s
// sums up and lineSchema (a JSON Schema of one line; nil for none)
// describes, with the recipes rs, each run on path. Its guidance is the
// specification's template for a client with a shell. A nil
// s.TopNamespaces is written as [], as the specification wants, and a
// s.ScoreRange with an end that JSON cannot hold (NaN, an infinity) as null,
// as for records without scores. It fails only when lineSchema cannot be
// encoded as JSON.
func Build(path string, s Summary, lineSchema any, rs []recipes.Recipe, p Profile) (json.RawMessage, error) {
	if r := s.ScoreRange; r != nil && !(finite(r[0]) && finite(r[1])) {
		s.ScoreRange = nil
	}
	in := describe.Input{Path: path, Summary: describe.Summary(s), LineSchema: lineSchema, JqRecipes: make([]describe.JqRecipe, len(rs))}
	for i, r := range rs {
		in.JqRecipes[i] = describe.JqRecipe{Description: r.Description, Command: r.Command(path)}
	}
	return describe.Build(&in, describe.Profile(p))
}

// finite reports whether JSON can hold f.
func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }
