package describe

import (
	"fmt"
	"strings"

	"github.com/zircote/lro-go/recipes"
)

// Input is what the guidance of a descriptor is made from. The caller
// computes the statistics while it writes the file.
type Input struct {
	Path            string      // absolute path of the JSONL file, as the client sees it
	Handle          string      // the file's handle in a store; "" for none
	Operation       string      // operation name
	Detail          string      // detail level of the records
	Count           int         // records in the file
	EstimatedTokens int         // estimate of the whole result set
	TopNamespaces   []string    // up to five, most frequent first
	ScoreRange      *[2]float64 // nil when there are no scores
	LineSchema      any         // JSON Schema of one line
	Recipes         []Recipe    // the ten recipes
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
	// Redacted is how many credentials were replaced by markers in the
	// file; the headline says so when it is not zero.
	Redacted int
}

// Shell renders the specification's guidance template for clients with a
// shell, in few words. With withRecipes false (the no-recipes profile, or
// no recipes at all) it does not point at recipes the descriptor does not
// carry.
func Shell(in Input, withRecipes bool) string {
	var b strings.Builder
	b.WriteString(Headline(in))
	fmt.Fprintf(&b, "\nFile: %s\n", in.Path)
	b.WriteString(DetailLine(in))
	switch {
	case !withRecipes:
		b.WriteString("Query it with jq or grep; tail -n +2 skips the header.\n")
	case in.Noun == "memories":
		b.WriteString("Use the jq recipes above: browse with #1, filter with #2 or #3, count with #6.\n")
	default:
		b.WriteString("Use the jq recipes above to extract specific data.\n")
	}
	b.WriteString("Read the whole file only if you need the complete dataset.\n")
	fmt.Fprintf(&b, "Line 1 is a metadata header; %s start at line 2.", Noun(in))
	return b.String()
}

// Headline returns the first line of a guidance: what was offloaded, how
// many records, and the tokens saved when there is a saving (in.Saved > 0),
// else the size of the records.
func Headline(in Input) string {
	redacted := ""
	switch {
	case in.Redacted == 1:
		redacted = "; 1 credential redacted"
	case in.Redacted > 1:
		redacted = fmt.Sprintf("; %d credentials redacted", in.Redacted)
	}
	if in.Saved > 0 {
		return fmt.Sprintf("Results offloaded to JSONL (%d %s, ~%d tokens saved%s).", in.Count, Noun(in), in.Saved, redacted)
	}
	return fmt.Sprintf("Results offloaded to JSONL (%d %s, ~%d tokens%s).", in.Count, Noun(in), in.EstimatedTokens, redacted)
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

// Noun returns in.Noun, or "records" when it is empty.
func Noun(in Input) string {
	if in.Noun == "" {
		return "records"
	}
	return in.Noun
}
