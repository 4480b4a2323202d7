// Package descriptor builds the compact OffloadResponse that replaces a large
// tool result: a summary, the absolute file path, a JSON Schema of one line,
// exactly ten jq recipes and guidance for the model; and, beyond the
// specification, when the file expires and a preview of its records.
//
// The types serialize exactly as the LRO specification's OffloadResponse,
// OffloadSummary and JqRecipe: a client decodes a descriptor into an
// [OffloadResponse]. [Build], a pure function safe for concurrent use,
// makes one from what a writer of a file knows.
package descriptor

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

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

var profileNames = [...]string{"full", "no_recipes", "no_schema", "bare_pointer"}

// String returns the profile's name: "full", "no_recipes", "no_schema" or
// "bare_pointer".
func (p Profile) String() string {
	if p >= 0 && int(p) < len(profileNames) {
		return profileNames[p]
	}
	return fmt.Sprintf("Profile(%d)", int(p))
}

// ParseProfile parses a profile name as returned by [Profile.String]. Case and
// the separators '-' and ' ' are ignored ("bare-pointer" is accepted). For
// another name, it returns an error that names it and the profiles.
func ParseProfile(s string) (Profile, error) {
	norm := strings.NewReplacer("-", "_", " ", "_").Replace(strings.ToLower(strings.TrimSpace(s)))
	if i := slices.Index(profileNames[:], norm); i >= 0 {
		return Profile(i), nil
	}
	return 0, fmt.Errorf("descriptor: unknown profile %q (want one of %s)", s, strings.Join(profileNames[:], ", "))
}

// OffloadResponse is the descriptor returned in place of an offloaded result.
// Under [ProfileFull] every field is present; the other profiles omit the
// fields they leave out.
type OffloadResponse struct {
	// Offloaded is always true: it tells a descriptor from an inline result.
	Offloaded bool `json:"offloaded"`
	// Summary describes the result set.
	Summary *Summary `json:"summary,omitempty"`
	// FilePath is the absolute path of the JSONL file.
	FilePath string `json:"file_path"`
	// Handle names the file in the store it was written to (offloaders
	// with a store set it under every profile), for the extraction tools
	// on any replica and the resource lro://results/{handle}. Not part of
	// the specification's descriptor.
	Handle string `json:"handle,omitempty"`
	// ExpiresAt is when the file expires, in RFC 3339 (UTC, to the
	// second): from then on, custodial cleanup may delete it. Not part of
	// the specification's descriptor.
	ExpiresAt string `json:"expires_at,omitempty"`
	// LineSchema is a JSON Schema of one record line (line 2 onwards).
	LineSchema any `json:"line_schema,omitempty"`
	// JqRecipes are exactly ten ready-to-run jq commands.
	JqRecipes []JqRecipe `json:"jq_recipes,omitempty"`
	// Guidance is advisory text for the model.
	Guidance string `json:"guidance,omitempty"`
	// Beside, when not nil, tells what the result held besides its records
	// (a total, a cursor, other arrays or texts), all of which the file's
	// header keeps. Not part of the specification's descriptor.
	Beside *Beside `json:"beside,omitempty"`
	// Preview, when not nil, shows a few of the file's records. Not part
	// of the specification's descriptor.
	Preview *Preview `json:"preview,omitempty"`
}

// Preview shows the first records of a file and its last one, cut down,
// and says so.
type Preview struct {
	// Records are the records shown, in the file's order, each cut down to
	// the fields that identify and describe it, its long strings cut with
	// "…", and numbers that a float64 cannot hold written as strings.
	Records []json.RawMessage `json:"records"`
	// Note says how many records of how many are shown, which ones and how
	// they are cut, for example "3 of 3000 records shown (the first 2 and
	// the last), projected; count and filter on the file".
	Note string `json:"note"`
}

// Beside tells what a result held besides the records of its file. Every
// part of it is in the file's header line, under "result".
type Beside struct {
	// Values are the small scalars among those parts, as written, keyed by
	// their jq path below the header's "result", for example
	// {".structuredContent.total": 987654}.
	Values json.RawMessage `json:"values,omitempty"`
	// Other names the larger parts, with their jq path below "result", for
	// example ".structuredContent.relations: array of 400".
	Other []string `json:"other,omitempty"`
	// Command prints them all: the header's "result".
	Command string `json:"command"`
}

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

// JqRecipe is one ready-to-run extraction command.
type JqRecipe struct {
	// Description says what the recipe does.
	Description string `json:"description"`
	// Command is a complete shell command, the file path already in place.
	Command string `json:"command"`
}

// Build returns the descriptor, under profile p, of the JSONL file at path
// (its absolute path, as the client sees it), whose records s sums up and
// lineSchema (a JSON Schema of one line; nil for none) describes, with the
// recipes rs, each run on path. Its guidance is the specification's
// template for a client with a shell. A nil s.TopNamespaces is written as
// [], as the specification wants.
func Build(path string, s Summary, lineSchema any, rs []recipes.Recipe, p Profile) OffloadResponse {
	resp := OffloadResponse{Offloaded: true, FilePath: path}
	if p == ProfileBarePointer {
		return resp
	}
	if s.TopNamespaces == nil {
		s.TopNamespaces = []string{}
	}
	resp.Summary = &s
	if p != ProfileNoSchema {
		resp.LineSchema = lineSchema
	}
	if p != ProfileNoRecipes {
		resp.JqRecipes = make([]JqRecipe, len(rs))
		for i, r := range rs {
			resp.JqRecipes[i] = JqRecipe{Description: r.Description, Command: r.Command(path)}
		}
	}
	resp.Guidance = describe.Shell(describe.Input{
		Path: path, Operation: s.Operation, Detail: s.Detail, Count: s.Count, EstimatedTokens: s.EstimatedTokens,
	}, p != ProfileNoRecipes && len(rs) > 0)
	return resp
}
