package offload

import (
	"fmt"
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
func NativeGuidance(in descriptor.Input) string {
	var b strings.Builder
	path := in.ToolPath
	if path == "" {
		path = in.Path
	}
	file := ArgFilePath + "=" + string(quote(path))
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
		ToolRead, ArgFilePath, ArgLine, ArgLimit, ToolSearch, ArgFilePath, ArgPattern, quote(searchExample(in)))
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
