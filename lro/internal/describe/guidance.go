package describe

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/zircote/lro-go/internal/rawjson"
	"github.com/zircote/lro-go/internal/spec"
	"github.com/zircote/lro-go/recipes"
)

// The names of the extraction tools of package lro/extract and of their
// arguments, which the native guidance names.
const (
	ToolExtract = "lro_extract"
	ToolRead    = "lro_read"
	ToolSearch  = "lro_search"

	ArgFilePath = "file_path"
	ArgHandle   = "handle"
	ArgRecipe   = "recipe"
	ArgQuery    = "query"
	ArgParams   = "params"
	ArgSlurp    = "slurp"
	ArgWhere    = "where"
	ArgCount    = "count"
	ArgLine     = "line"
	ArgLimit    = "limit"
	ArgPattern  = "pattern"
)

// ResultURIPrefix begins the URI of the MCP resource of an offloaded
// result kept in a store, ResultURIPrefix + handle, which the descriptor's
// resource_link gives and the extraction tools serve.
const ResultURIPrefix = "lro://results/"

// shell renders the specification's guidance template for clients with a
// shell, in few words. With withRecipes false (the no-recipes profile, or
// no recipes at all) it does not point at recipes the descriptor does not
// carry.
func shell(in *Input, withRecipes bool) string {
	var b strings.Builder
	b.WriteString(headline(in))
	fmt.Fprintf(&b, "\nFile: %s\n", in.Path)
	b.WriteString(detailLine(in, "full (whole records)"))
	switch {
	case !withRecipes:
		b.WriteString("Query it with jq or grep; tail -n +2 skips the header.\n")
	case in.Noun == "memories":
		b.WriteString("Use the jq recipes above: browse with #1, filter with #2 or #3, count with #6.\n")
	default:
		b.WriteString("Use the jq recipes above to extract specific data.\n")
	}
	b.WriteString("Read the whole file only if you need the complete dataset.\n")
	fmt.Fprintf(&b, "Line 1 is a metadata header; %s start at line 2.", cmp.Or(in.Noun, "records"))
	return b.String()
}

// headline returns the first line of a guidance: what was offloaded, how
// many records, and the tokens saved when there is a saving (in.Saved > 0),
// else the size of the records.
func headline(in *Input) string {
	redacted := ""
	switch {
	case in.Redacted == 1:
		redacted = "; 1 credential redacted"
	case in.Redacted > 1:
		redacted = fmt.Sprintf("; %d credentials redacted", in.Redacted)
	}
	if in.Saved > 0 {
		return fmt.Sprintf("Results offloaded to JSONL (%d %s, ~%d tokens saved%s).", in.Count, cmp.Or(in.Noun, "records"), in.Saved, redacted)
	}
	return fmt.Sprintf("Results offloaded to JSONL (%d %s, ~%d tokens%s).", in.Count, cmp.Or(in.Noun, "records"), in.EstimatedTokens, redacted)
}

// detailLine returns the guidance's line on the detail level, newline
// included. Memory records are serialized at a detail level, and so are
// records below full detail: the line names it. Other records have no
// detail levels and are recorded as "full": the line says full, in the
// caller's words.
func detailLine(in *Input, full string) string {
	if in.Noun == "memories" || in.Detail != string(recipes.Full) {
		return "Detail level: " + in.Detail + "\n"
	}
	return "Detail level: " + full + "\n"
}

// Native renders the guidance of a descriptor for a server that offers the
// extraction tools: the specification's native-tool template, which directs
// the model to lro_extract. Its examples use the tools' argument names and
// the file's own recipes and values; the first is a whole call, the others
// the arguments that go with the same file_path, written once. The
// template's list of recipes, which repeats their descriptions, is given for
// memories only. in.ByHandle is for a file kept in a bucket, not on the
// client's machine: the examples pass in.Handle, and one sentence says how
// the jq recipes can still run (on a copy saved to in.Path).
func Native(in *Input) string {
	var b strings.Builder
	byHandle := in.ByHandle
	arg, value := ArgFilePath, cmp.Or(in.ToolPath, in.Path)
	if byHandle {
		arg, value = ArgHandle, in.Handle
	}
	b.WriteString(headline(in))
	b.WriteByte('\n')
	b.WriteString(detailLine(in, "full")) // the line schema and the preview say what records hold
	if in.Noun == "memories" {
		fmt.Fprintf(&b, "Use the `%s` tool to query this result set. Examples:\n", ToolExtract)
	} else {
		fmt.Fprintf(&b, "Query it with the `%s` tool, for example:\n", ToolExtract)
	}
	first := true
	example := func(label, args string) {
		if first {
			fmt.Fprintf(&b, "- %s: %s(%s=%s, %s)\n", label, ToolExtract, arg, rawjson.AppendQuote(nil, value), args)
			fmt.Fprintf(&b, "and with the same %s:\n", arg)
			first = false
			return
		}
		fmt.Fprintf(&b, "- %s: %s\n", label, args)
	}
	if r, ok := browseRecipe(in); ok {
		label := "Browse"
		if in.Noun != "memories" {
			label = upperFirst(r.Label)
		}
		example(label, fmt.Sprintf("%s=%d", ArgRecipe, r.Number))
	}
	// Recipes with parameters, which take different ones: two for
	// memories, as the specification's template, one otherwise.
	shown, most := map[string]bool{}, 1
	if in.Noun == "memories" {
		most = 2
	}
	for _, r := range in.Recipes {
		if len(r.Params) == 0 || len(shown) == most || shown[r.Params[0].Name] {
			continue
		}
		shown[r.Params[0].Name] = true
		params := make([]string, len(r.Params))
		for i, p := range r.Params {
			params[i] = string(rawjson.AppendQuote(nil, p.Name)) + ": " + string(rawjson.AppendQuote(nil, p.Value))
		}
		example(upperFirst(r.Label), fmt.Sprintf("%s=%d, %s={%s}", ArgRecipe, r.Number, ArgParams, strings.Join(params, ", ")))
	}
	w := whereExample(in)
	switch {
	case in.Noun == "memories" || w == "":
		example("Custom filter", fmt.Sprintf("%s=%s", ArgQuery, rawjson.AppendQuote(nil, exampleFilter(in))))
		if w != "" {
			example("Filter without jq", fmt.Sprintf("%s=%s, %s=true", ArgWhere, w, ArgCount))
		}
	default:
		// The where filter's example searches as the custom filter's
		// would, and as a recipe does: the custom filter only picks a
		// field.
		example("Custom filter", fmt.Sprintf("%s=%s", ArgQuery, rawjson.AppendQuote(nil, fieldFilter(in))))
		example("Filter without jq", fmt.Sprintf("%s=%s, %s=true", ArgWhere, w, ArgCount))
	}
	if in.Noun != "memories" {
		// The recipes' descriptions say what each number does (the
		// specification's list of recipes is the memory library's), and
		// the tools' own what they take; by handle, the sentence below
		// says how to read a file that is not on the client's machine.
		if w == "" && !byHandle {
			fmt.Fprintf(&b, "Add %s=true to run a %s on all records at once.\n", ArgSlurp, ArgQuery)
		}
	} else if len(in.Recipes) > 0 {
		entries := make([]string, len(in.Recipes))
		for i, r := range in.Recipes {
			entries[i] = fmt.Sprintf("%d=%s", r.Number, r.Label)
			if len(r.Params) > 0 {
				names := make([]string, len(r.Params))
				for j, p := range r.Params {
					names[j] = p.Name
				}
				entries[i] += " [" + strings.Join(names, ", ") + "]"
			}
		}
		fmt.Fprintf(&b, "Available recipes [params]: %s.\n", strings.Join(entries, ", "))
	}
	if in.Noun == "memories" || byHandle {
		fmt.Fprintf(&b, "Add %s=true to run a %s on all records at once. %s (%s, %s, %s) shows lines as they are, %s (%s, %s) finds records by regular expression.\n",
			ArgSlurp, ArgQuery, ToolRead, arg, ArgLine, ArgLimit, ToolSearch, arg, ArgPattern)
	}
	if byHandle {
		fmt.Fprintf(&b, "The file is on the server, not this machine: for jq, first save resources/read of %s{handle} to %s.\n", ResultURIPrefix, in.Path)
	}
	fmt.Fprintf(&b, "Line 1 is a metadata header; %s start at line 2.", cmp.Or(in.Noun, "records"))
	return b.String()
}

// browseRecipe returns the recipe of the guidance's first example: for
// memories the specification's browse, recipe 1; for other records the
// first recipe without parameters that shows records one by one (not a
// count of them all).
func browseRecipe(in *Input) (Recipe, bool) {
	for _, r := range in.Recipes {
		if in.Noun == "memories" || len(r.Params) == 0 && !r.Slurp {
			return r, true
		}
	}
	return Recipe{}, false
}

// exampleFilter returns a per-record filter that fits the file's records.
func exampleFilter(in *Input) string {
	if in.Noun == "memories" {
		switch recipes.Detail(in.Detail) {
		case recipes.Full:
			return "select(.provenance.confidence > 0.8) | {id, title}"
		case recipes.Medium:
			return "select(.confidence > 0.8) | {id, title}"
		}
		return "select(.memory_type == " + string(rawjson.AppendQuote(nil, paramValue(in, spec.ParamMemoryType, "semantic"))) + ") | {id, title}"
	}
	f := textField(in)
	if f == "" {
		return "select(type == \"object\") | keys"
	}
	p := "." + strings.TrimPrefix(JQKey(f), ".")
	match := "select(" + p + " | strings | test(" + string(rawjson.AppendQuote(nil, paramValue(in, spec.ParamKeyword, "your term"))) + "; \"i\"))"
	if f == "text" && hasLineNumbers(in) {
		return match + " | .line" // lines of text: where they are
	}
	return match + " | " + p
}

// fieldFilter returns a per-record filter that picks the records' text
// field, or exampleFilter's when they have none.
func fieldFilter(in *Input) string {
	f := textField(in)
	if f == "" {
		return exampleFilter(in)
	}
	return "." + strings.TrimPrefix(JQKey(f), ".")
}

// whereExample returns a where filter that fits the file's records, or ""
// when they have no string field to show one on (lines of text).
func whereExample(in *Input) string {
	if in.Noun == "memories" {
		ns := `{"namespace": {"prefix": ` + string(rawjson.AppendQuote(nil, paramValue(in, spec.ParamNamespace, "_semantic"))) + `}, `
		switch recipes.Detail(in.Detail) {
		case recipes.Full:
			return ns + `"provenance.confidence": {"gte": 0.8}}`
		case recipes.Medium:
			return ns + `"confidence": {"gte": 0.8}}`
		}
		return ns + `"memory_type": ` + string(rawjson.AppendQuote(nil, paramValue(in, spec.ParamMemoryType, "semantic"))) + `}`
	}
	// A condition that holds on the records: a keyword a recipe found in
	// one field, else a value one of their string fields has.
	for _, name := range []string{spec.ParamKeyword, spec.ParamValue} {
		for _, r := range in.Recipes {
			for _, p := range r.Params {
				switch {
				case p.Name != name || p.Field == "":
				case name == spec.ParamKeyword:
					return `{` + string(rawjson.AppendQuote(nil, p.Field)) + `: {"contains": ` + string(rawjson.AppendQuote(nil, p.Value)) + `}}`
				default:
					return `{` + string(rawjson.AppendQuote(nil, p.Field)) + `: ` + string(rawjson.AppendQuote(nil, p.Value)) + `}`
				}
			}
		}
	}
	return ""
}

// lineProperties returns the top-level properties of the line schema of
// in, or nil when it has none.
func lineProperties(in *Input) map[string]struct {
	Type any `json:"type"`
} {
	var schema struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	}
	raw, ok := in.LineSchema.(json.RawMessage)
	if !ok || json.Unmarshal(raw, &schema) != nil {
		return nil
	}
	return schema.Properties
}

// textField returns the top-level string field of the records where a
// keyword is likeliest (a field of text, by its name, else the first by
// name), or "" when the line schema names none.
func textField(in *Input) string {
	var names []string
	for name, p := range lineProperties(in) {
		if t, _ := p.Type.(string); t == "string" && !strings.Contains(name, ".") && name != "" {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	slices.SortFunc(names, func(x, y string) int {
		return cmp.Or(cmp.Compare(textRank(x), textRank(y)), cmp.Compare(x, y))
	})
	return names[0]
}

// hasLineNumbers reports whether the records are lines of text, with
// their numbers in .line.
func hasLineNumbers(in *Input) bool {
	p, ok := lineProperties(in)["line"]
	return ok && p.Type == "integer"
}

// textRank orders field names by how likely they hold text: the usual
// names of a record's text first.
func textRank(name string) int {
	if i := slices.Index([]string{"title", "name", "message", "msg", "text", "content", "summary", "description"}, strings.ToLower(name)); i >= 0 {
		return i
	}
	return 100
}

// paramValue returns the default value of the first recipe parameter named
// name, or def.
func paramValue(in *Input, name, def string) string {
	for _, r := range in.Recipes {
		for _, p := range r.Params {
			if p.Name == name && p.Value != "" {
				return p.Value
			}
		}
	}
	return def
}

func upperFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
