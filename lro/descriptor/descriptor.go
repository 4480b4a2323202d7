// Package descriptor builds the compact OffloadResponse that replaces a large
// tool result: a summary, the absolute file path, a JSON Schema of one line,
// exactly ten jq recipes and guidance for the model.
//
// The types serialize exactly as the LRO specification's OffloadResponse,
// OffloadSummary and JqRecipe. [Build] is a pure function of its [Input]:
// it neither reads nor writes files, so it is safe for concurrent use.
//
// The line schema is inferred from the records themselves by an [Inferrer],
// one record at a time, which also validates each, or reflected from their
// Go type by [Reflect].
package descriptor

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/zircote/lro-go/recipes"
)

// Profile selects which fields a descriptor carries. The profiles match the
// descriptor ablations of the LRO paper: the paper found that a bare file
// pointer serves capable models as well as the full descriptor, while recipes
// help weaker ones. The zero value is [ProfileFull].
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

// ErrUnknownProfile is returned by [ParseProfile] for a name that is not one
// of the profiles.
var ErrUnknownProfile = errors.New("descriptor: unknown profile")

// ParseProfile parses a profile name as returned by [Profile.String]. Case and
// the separators '-' and ' ' are ignored ("bare-pointer" is accepted).
func ParseProfile(s string) (Profile, error) {
	norm := strings.NewReplacer("-", "_", " ", "_").Replace(strings.ToLower(strings.TrimSpace(s)))
	for i, name := range profileNames {
		if norm == name {
			return Profile(i), nil
		}
	}
	return 0, fmt.Errorf("%w %q (want one of %s)", ErrUnknownProfile, s, strings.Join(profileNames[:], ", "))
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

// Input is everything [Build] needs. The caller computes the statistics while
// it writes the file.
type Input struct {
	Path            string           // absolute path of the JSONL file
	Operation       string           // operation name
	Detail          string           // detail level of the records
	Count           int              // records in the file
	EstimatedTokens int              // estimate of the whole result set
	TopNamespaces   []string         // up to five, most frequent first
	ScoreRange      *[2]float64      // nil when there are no scores
	LineSchema      any              // JSON Schema of one line
	Recipes         []recipes.Recipe // the ten recipes
	// Noun names one record in the guidance: "memories" for memory records,
	// "records" otherwise. If empty, defaults to "records".
	Noun string
	// Guidance, when non-nil, replaces the specification's shell template,
	// for example with the native extraction tool's template.
	Guidance func(Input) string
}

// Build returns the descriptor for in under profile p.
func Build(in Input, p Profile) OffloadResponse {
	resp := OffloadResponse{Offloaded: true, FilePath: in.Path}
	if p == ProfileBarePointer {
		return resp
	}
	namespaces := in.TopNamespaces
	if namespaces == nil {
		namespaces = []string{}
	}
	resp.Summary = &Summary{
		Count:           in.Count,
		EstimatedTokens: in.EstimatedTokens,
		Operation:       in.Operation,
		TopNamespaces:   namespaces,
		ScoreRange:      in.ScoreRange,
		Detail:          in.Detail,
	}
	if p != ProfileNoSchema {
		resp.LineSchema = in.LineSchema
	}
	if p != ProfileNoRecipes {
		resp.JqRecipes = make([]JqRecipe, len(in.Recipes))
		for i, r := range in.Recipes {
			resp.JqRecipes[i] = JqRecipe{Description: r.Description, Command: r.Command(in.Path)}
		}
	}
	switch {
	case in.Guidance != nil:
		resp.Guidance = in.Guidance(in)
	default:
		resp.Guidance = shellGuidance(in, p != ProfileNoRecipes)
	}
	return resp
}

// shellGuidance renders the specification's guidance template for clients
// with a shell. With withRecipes false (the no-recipes profile) it does not
// point at recipes the descriptor does not carry.
func shellGuidance(in Input, withRecipes bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Results offloaded to JSONL (%d %s, ~%d tokens saved).\n", in.Count, noun(in), in.EstimatedTokens)
	fmt.Fprintf(&b, "File: %s\n", in.Path)
	fmt.Fprintf(&b, "Detail level: %s\n", in.Detail)
	if withRecipes && len(in.Recipes) >= 6 {
		b.WriteString("Use the jq recipes above to extract specific data. Common patterns:\n")
		if in.Noun == "memories" {
			b.WriteString("- Browse: recipe #1 (titles with namespaces)\n")
			b.WriteString("- Filter: recipe #2 (by namespace) or #3 (by keyword)\n")
			b.WriteString("- Analyze: recipe #6 (count by namespace)\n")
		} else {
			fmt.Fprintf(&b, "- Browse: recipe #1 (%s)\n", lowerFirst(in.Recipes[0].Description))
			fmt.Fprintf(&b, "- Filter: recipe #4 (%s) or #5 (%s)\n", lowerFirst(in.Recipes[3].Description), lowerFirst(in.Recipes[4].Description))
			fmt.Fprintf(&b, "- Analyze: recipe #6 (%s)\n", lowerFirst(in.Recipes[5].Description))
		}
	} else {
		b.WriteString("Query it with jq or grep, for example: tail -n +2 " + recipes.ShellQuote(in.Path) + " | jq -c '.'\n")
	}
	b.WriteString("Read the file directly only if you need the complete dataset.\n")
	fmt.Fprintf(&b, "The header line (line 1) contains metadata; %s start at line 2.", lineNoun(in))
	return b.String()
}

func noun(in Input) string {
	if in.Noun == "" {
		return "records"
	}
	return in.Noun
}

func lineNoun(in Input) string {
	if in.Noun == "memories" {
		return "memory objects"
	}
	return noun(in)
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
