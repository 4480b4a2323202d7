package offload

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/zircote/lro-go/lro/descriptor"
	"github.com/zircote/lro-go/recipes"
)

// The names of the extraction tools of package lro/extract and of their
// arguments, which the native guidance names: one definition for both.
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
// result kept in a store: ResultURIPrefix + handle, such as
// lro://results/atlatl-recall-01J...-0123abcd....jsonl. The offloader puts
// it in the resource_link of a descriptor, and the extraction tools serve
// it with resources/read: one definition for both.
const ResultURIPrefix = "lro://results/"

// NativeGuidance renders the guidance of a descriptor for a server that
// offers the extraction tools: the specification's native-tool template,
// which directs the model to lro_extract instead of shell commands. The
// descriptor keeps its jq_recipes for clients with a shell.
//
// The text is generated from the tools' real interface: the argument names
// are the ones the tools take, the examples use the file's own recipes with
// their parameter names and default values (taken from the file's records),
// and the recipe list gives each recipe's parameters. The file's path is
// written only in the template's four example calls; the other tools are
// named with their arguments.
func NativeGuidance(in descriptor.Input) string { return nativeGuidance(in, false) }

// HandleGuidance is [NativeGuidance] for a file kept in a bucket, which is
// not on the client's machine: the example calls pass in.Handle as the
// handle argument, and one sentence says where the file is and how the jq
// recipes can still run (on a copy saved from the file's resource to
// in.Path, the descriptor's file_path).
func HandleGuidance(in descriptor.Input) string { return nativeGuidance(in, true) }

// nativeGuidance is NativeGuidance, with the file named by its handle when
// byHandle is true.
func nativeGuidance(in descriptor.Input, byHandle bool) string {
	var b strings.Builder
	path := in.ToolPath
	if path == "" {
		path = in.Path
	}
	arg, file := ArgFilePath, ArgFilePath+"="+string(quote(path))
	if byHandle {
		arg, file = ArgHandle, ArgHandle+"="+string(quote(in.Handle))
	}
	b.WriteString(descriptor.Headline(in))
	b.WriteByte('\n')
	b.WriteString(descriptor.DetailLine(in))
	fmt.Fprintf(&b, "Use the `%s` tool to query this result set. Examples:\n", ToolExtract)
	if len(in.Recipes) > 0 {
		fmt.Fprintf(&b, "- Browse: %s(%s, %s=1)\n", ToolExtract, file, ArgRecipe)
	}
	shown := 0
	for _, r := range in.Recipes {
		if len(r.Params) == 0 || shown == 2 {
			continue
		}
		shown++
		params := make([]string, len(r.Params))
		for i, p := range r.Params {
			params[i] = string(quote(p.Name)) + ": " + string(quote(p.Value))
		}
		fmt.Fprintf(&b, "- %s: %s(%s, %s=%d, %s={%s})\n", r.Description, ToolExtract, file, ArgRecipe, r.Number, ArgParams, strings.Join(params, ", "))
	}
	fmt.Fprintf(&b, "- Custom filter: %s(%s, %s=%s)\n", ToolExtract, file, ArgQuery, quote(exampleFilter(in)))
	if w := whereExample(in); w != "" {
		fmt.Fprintf(&b, "- Filter without jq: %s(%s, %s=%s, %s=true)\n", ToolExtract, file, ArgWhere, w, ArgCount)
	}
	fmt.Fprintf(&b, "Add %s=true to run a %s on all records at once (count, group, sort).\n", ArgSlurp, ArgQuery)
	if len(in.Recipes) > 0 {
		entries := make([]string, len(in.Recipes))
		for i, r := range in.Recipes {
			entries[i] = fmt.Sprintf("%d=%s", r.Number, lowerFirst(strings.TrimSuffix(r.Description, ".")))
			if len(r.Params) > 0 {
				names := make([]string, len(r.Params))
				for j, p := range r.Params {
					names[j] = p.Name
				}
				entries[i] += " [" + strings.Join(names, ", ") + "]"
			}
		}
		fmt.Fprintf(&b, "Available recipes [params]: %s.\n", strings.Join(entries, "; "))
	}
	fmt.Fprintf(&b, "Also: %s shows lines as they are (%s, %s, %s); %s finds records by regular expression (%s, %s, such as %s).\n",
		ToolRead, arg, ArgLine, ArgLimit, ToolSearch, arg, ArgPattern, quote(searchExample(in)))
	if byHandle {
		fmt.Fprintf(&b, "The file is on the server, not this machine: for jq, first save resources/read of %s{handle} to %s.\n", ResultURIPrefix, in.Path)
	}
	noun := in.Noun
	if noun == "" {
		noun = "records"
	}
	fmt.Fprintf(&b, "Line 1 is a metadata header; %s start at line 2.", noun)
	return b.String()
}

// exampleFilter returns a per-record filter that fits the file's records.
func exampleFilter(in descriptor.Input) string {
	if in.Noun == "memories" {
		switch recipes.Detail(in.Detail) {
		case recipes.Full:
			return "select(.provenance.confidence > 0.8) | {id, title}"
		case recipes.Medium:
			return "select(.confidence > 0.8) | {id, title}"
		}
		return "select(.memory_type == " + string(quote(paramValue(in, recipes.ParamMemoryType, "semantic"))) + ") | {id, title}"
	}
	return "select(type == \"object\") | keys"
}

// whereExample returns a where filter that fits the file's records, or ""
// when they have no string field to show one on (lines of text).
func whereExample(in descriptor.Input) string {
	if in.Noun == "memories" {
		ns := `{"namespace": {"prefix": ` + string(quote(paramValue(in, recipes.ParamNamespace, "_semantic"))) + `}, `
		switch recipes.Detail(in.Detail) {
		case recipes.Full:
			return ns + `"provenance.confidence": {"gte": 0.8}}`
		case recipes.Medium:
			return ns + `"confidence": {"gte": 0.8}}`
		}
		return ns + `"memory_type": ` + string(quote(paramValue(in, recipes.ParamMemoryType, "semantic"))) + `}`
	}
	var schema struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	}
	raw, ok := in.LineSchema.(json.RawMessage)
	if !ok || json.Unmarshal(raw, &schema) != nil {
		return ""
	}
	names := make([]string, 0, len(schema.Properties))
	for name, p := range schema.Properties {
		if t, _ := p.Type.(string); t == "string" && !strings.Contains(name, ".") && name != "" {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return ""
	}
	// A field of text, where the keyword is likeliest, else the first.
	slices.SortFunc(names, func(x, y string) int {
		return cmp.Or(cmp.Compare(textRank(x), textRank(y)), cmp.Compare(x, y))
	})
	return `{` + string(quote(names[0])) + `: {"contains": ` + string(quote(searchExample(in))) + `}}`
}

// textRank orders field names by how likely they hold text: the usual
// names of a record's text first.
func textRank(name string) int {
	if i := slices.Index([]string{"title", "name", "message", "msg", "text", "content", "summary", "description"}, strings.ToLower(name)); i >= 0 {
		return i
	}
	return 100
}

// searchExample returns a word the records contain: the default keyword of
// the recipes, which is taken from them.
func searchExample(in descriptor.Input) string {
	return paramValue(in, recipes.ParamKeyword, "your term")
}

// paramValue returns the default value of the first recipe parameter named
// name, or def.
func paramValue(in descriptor.Input, name, def string) string {
	for _, r := range in.Recipes {
		for _, p := range r.Params {
			if p.Name == name && p.Value != "" {
				return p.Value
			}
		}
	}
	return def
}

func lowerFirst(s string) string {
	if s == "" {
		return s
	}
	return strings.ToLower(s[:1]) + s[1:]
}
