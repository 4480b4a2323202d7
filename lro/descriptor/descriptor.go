// Package descriptor builds the compact OffloadResponse that replaces a large
// tool result: a summary, the absolute file path, a JSON Schema of one line,
// exactly ten jq recipes and guidance for the model.
//
// The types serialize exactly as the LRO specification's OffloadResponse,
// OffloadSummary and JqRecipe. [Build] is a pure function of its [Input]:
// it neither reads nor writes files, so it is safe for concurrent use.
//
// The line schema is inferred from the records themselves by an [Inferrer],
// one record at a time or, with [Inferrer.AddElements], the elements of an
// array in one read, which also validates them, so that it lists exactly
// the fields the lines hold; [Annotate] adds what their Go type, reflected by
// [Reflect], knows besides (formats, number types, descriptions).
package descriptor

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/zircote/lro-go/internal/recipes"
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
	// Handle, when not empty, names the file in the store it was written
	// to: the extraction tools take it on any replica of the server, and
	// the MCP resource lro://results/{handle} serves it. Only offloaders
	// with a store give one, under every profile. Not part of the
	// specification's descriptor.
	Handle string `json:"handle,omitempty"`
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
	Path            string           // absolute path of the JSONL file, as the client sees it
	Handle          string           // the file's handle in a store; "" for none
	Operation       string           // operation name
	Detail          string           // detail level of the records
	Count           int              // records in the file
	EstimatedTokens int              // estimate of the whole result set
	TopNamespaces   []string         // up to five, most frequent first
	ScoreRange      *[2]float64      // nil when there are no scores
	LineSchema      any              // JSON Schema of one line
	Recipes         []recipes.Recipe // the ten recipes
	// Saved is the estimate of the tokens the descriptor saves: what the
	// client would have received inline, less the descriptor itself. The
	// guidance claims it ("~N tokens saved") only when it is positive;
	// otherwise it gives the size of the records (EstimatedTokens) and
	// claims no saving.
	Saved int
	// ToolPath is the file_path the extraction tools take, for a native
	// guidance. If empty, defaults to Path.
	ToolPath string
	// Noun names one record in the guidance: "memories" for memory records,
	// "records" otherwise. If empty, defaults to "records".
	Noun string
	// Guidance, when non-nil, replaces the specification's shell template,
	// for example with the native extraction tool's template.
	Guidance func(Input) string
}

// Build returns the descriptor for in under profile p.
func Build(in Input, p Profile) OffloadResponse {
	resp := OffloadResponse{Offloaded: true, FilePath: in.Path, Handle: in.Handle}
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
// with a shell, in few words. With withRecipes false (the no-recipes
// profile) it does not point at recipes the descriptor does not carry.
func shellGuidance(in Input, withRecipes bool) string {
	var b strings.Builder
	b.WriteString(Headline(in))
	fmt.Fprintf(&b, "\nFile: %s\n", in.Path)
	b.WriteString(DetailLine(in))
	switch {
	case !withRecipes || len(in.Recipes) == 0:
		b.WriteString("Query it with jq or grep; tail -n +2 skips the header.\n")
	case in.Noun == "memories":
		b.WriteString("Use the jq recipes above: browse with #1, filter with #2 or #3, count with #6.\n")
	default:
		b.WriteString("Use the jq recipes above to extract specific data.\n")
	}
	b.WriteString("Read the whole file only if you need the complete dataset.\n")
	fmt.Fprintf(&b, "Line 1 is a metadata header; %s start at line 2.", noun(in))
	return b.String()
}

// Headline returns the first line of a guidance: what was offloaded, how
// many records, and the tokens saved when there is a saving (in.Saved > 0),
// else the size of the records.
func Headline(in Input) string {
	if in.Saved > 0 {
		return fmt.Sprintf("Results offloaded to JSONL (%d %s, ~%d tokens saved).", in.Count, noun(in), in.Saved)
	}
	return fmt.Sprintf("Results offloaded to JSONL (%d %s, ~%d tokens).", in.Count, noun(in), in.EstimatedTokens)
}

// DetailLine returns the guidance's line on the detail level, newline
// included. Memory records are serialized at a detail level, and so are
// records below full detail: the line names it. Other records have no
// detail levels and are recorded as "full": the line says what that means.
func DetailLine(in Input) string {
	if in.Noun == "memories" || in.Detail != string(recipes.Full) {
		return "Detail level: " + in.Detail + "\n"
	}
	return "Detail level: full (whole records)\n"
}

func noun(in Input) string {
	if in.Noun == "" {
		return "records"
	}
	return in.Noun
}
