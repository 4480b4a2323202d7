package lrotest

import (
	"cmp"
	"context"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/zircote/lro-go/internal/jqcmd"
	"github.com/zircote/lro-go/internal/recipes"
)

// level2 are the requirements of Level 2, in report order.
var level2 = []requirement{
	{"L2.descriptor.fields", 2, must, scopeLarge, needCall, func(v *view) {
		for _, k := range []string{"line_schema", "jq_recipes", "guidance"} {
			if _, ok := v.desc[k]; !ok {
				v.fail("the descriptor lacks %s", k)
			}
		}
	}, "Implementations MUST include all fields per the struct definition."},
	{"L2.line_schema", 2, must, scopeLarge, needCall, func(v *view) {
		raw, ok := v.desc["line_schema"]
		if !ok {
			v.skip("no line_schema (see L2.descriptor.fields)")
			return
		}
		if _, isObj := raw.(map[string]any); !isObj {
			v.fail("line_schema is %s, not a JSON Schema object", jsonText(raw))
			return
		}
		resolved, err := resolveSchema(raw)
		switch {
		case err != nil:
			v.fail("line_schema is not a JSON Schema that resolves: %v", err)
		case v.file == nil:
			v.skip("%s", v.noFile)
		default:
			for i, r := range v.file.records {
				if err := resolved.Validate(r); err != nil {
					v.fail("line %d is not valid under line_schema: %s", v.file.lineOf[i], oneLine(err.Error(), 300))
					return
				}
			}
		}
	}, "line_schema: JSON Schema describing each memory line in the JSONL file."},
	{"L2.recipes.count", 2, must, scopeLarge, needCall, func(v *view) {
		raw, ok := v.desc["jq_recipes"]
		list, isList := raw.([]any)
		switch {
		case !ok:
			v.skip("%s", v.noRecipes)
		case !isList:
			v.fail("jq_recipes is %s, not an array", jsonText(raw))
		case len(list) != 10:
			v.fail("%d recipes, want exactly 10", len(list))
		}
	}, "Implementations MUST include exactly 10 recipes in every OffloadResponse."},
	{"L2.recipes.fields", 2, must, scopeLarge, needRecipes, func(v *view) {
		for i, e := range v.desc["jq_recipes"].([]any) {
			m, ok := e.(map[string]any)
			if !ok {
				v.fail("recipe %d is %s, not an object", i+1, jsonText(e))
				continue
			}
			for _, k := range []string{"description", "command"} {
				if s, _ := m[k].(string); strings.TrimSpace(s) == "" {
					v.fail("recipe %d has no %s", i+1, k)
				}
			}
		}
	}, "JqRecipe: description (what this recipe does) and command (the jq command to execute)."},
	{"L2.recipes.file", 2, must, scopeLarge, needRecipes | needFile, func(v *view) {
		p := v.file.path
		for _, r := range v.recipes {
			switch {
			case strings.Contains(r.command, "{file}"):
				v.fail("recipe %d still holds the {file} placeholder: %s", r.n, r.command)
			case r.parsed != nil && r.parsed.File != p:
				v.fail("recipe %d reads %q, not file_path %q", r.n, r.parsed.File, p)
			case r.parsed == nil && !strings.Contains(r.command, p) && !strings.Contains(r.command, recipes.ShellQuote(p)):
				v.fail("recipe %d does not name file_path %q: %s", r.n, p, r.command)
			}
		}
	}, "The {file} placeholder MUST be replaced with the actual file path from OffloadResponse.file_path."},
	{"L2.recipes.skip_header", 2, must, scopeLarge, needRecipes, func(v *view) {
		for _, r := range v.recipes {
			if r.parsed != nil && !r.parsed.SkipHeader {
				v.fail("recipe %d feeds jq the whole file, header line included: %s", r.n, r.command)
			} else if r.parsed == nil && !strings.Contains(r.command, "tail -n +2") {
				v.fail("recipe %d does not skip the header with tail -n +2: %s", r.n, r.command)
			}
		}
	}, "All recipes use tail -n +2 to skip the header line."},
	{"L2.recipes.run", 2, must, scopeLarge, needRecipes | needFile, func(v *view) {
		on := ""
		if v.file.fetched {
			on = " (run on the copy fetched with resources/read, in place of file_path)"
		}
		for _, r := range v.recipes {
			if r.err != nil {
				v.fail("recipe %d failed%s: %v; command: %s", r.n, on, oneLine(r.err.Error(), 300), r.command)
			}
		}
	}, "Ready-to-use jq recipes for common extraction patterns (recipes that run)."},
	{"L2.recipes.no_score", 2, must, scopeLarge, needRecipes, func(v *view) {
		for _, r := range v.recipes {
			if scoreRef.MatchString(r.command) || slices.ContainsFunc(r.refs.all, func(ref []string) bool { return slices.Contains(ref, "score") }) {
				v.fail("recipe %d references .score: %s", r.n, r.command)
			}
		}
	}, "Recipes MUST NOT reference .score (which is a SearchHit field, never serialized into JSONL)."},
	{"L2.recipes.fields_exist", 2, must, scopeLarge, needRecipes | needFile, func(v *view) {
		var unread []string
		for _, r := range v.recipes {
			if r.refsErr != nil {
				unread = append(unread, "recipe "+strconv.Itoa(r.n)+": "+r.refsErr.Error())
				continue
			}
			absent := slices.DeleteFunc(slices.Clone(r.refs.record), func(ref []string) bool {
				return hasPath(v.file.records, ref)
			})
			if len(absent) > 0 {
				v.fail("recipe %d references %s, which no record has", r.n, refsText(absent))
			}
		}
		if len(v.problems) == 0 && len(unread) == len(v.recipes) && len(unread) > 0 {
			v.skip("no filter could be read: %s", strings.Join(unread, "; "))
		}
	}, "Recipes MUST only reference fields that exist at the given detail level."},
	{"L2.recipes.detail", 2, must, scopeLarge, needRecipes | needFile, func(v *view) {
		rs, detail := v.recipes, strings.ToLower(cmp.Or(v.detail, str(v.file.header["detail"])))
		want, known := detailTable[detail]
		unread := slices.IndexFunc(rs, func(r *recipeView) bool { return r.refsErr != nil })
		switch {
		case !isMemory(v.file.records):
			v.skip("the records are not memory records (id, title, namespace, memory_type); the detail table applies to memories")
		case len(rs) != 10:
			v.skip("not exactly 10 recipes (see L2.recipes.count)")
		case !known:
			v.skip("detail level %q is not light, medium or full", detail)
		case unread >= 0:
			v.skip("recipe %d cannot be read: %v", rs[unread].n, rs[unread].refsErr)
		}
		if v.skipped != "" {
			return
		}
		var all [][]string
		for _, r := range rs {
			all = append(all, r.refs.all...)
			for _, ref := range r.refs.record {
				// A field no record has is L2.recipes.fields_exist's concern.
				if r.n <= 8 && !slices.Contains(lightFields, ref[0]) && hasPath(v.file.records, ref[:1]) {
					v.fail("recipe %d references .%s, which is not a Light field", r.n, strings.Join(ref, "."))
				}
			}
		}
		for i, path := range [][]string{want.r9, want.r10} {
			if refs := rs[8+i].refs.all; !hasRef(refs, path...) {
				v.fail("at %s detail recipe %d %s, but it uses %s", detail, 9+i, want.what[i], refsText(refs))
			}
		}
		if want.never != nil && hasRef(all, want.never...) {
			v.fail("at %s detail confidence MUST be accessed via .%s, but a recipe uses .%s", detail, strings.Join(want.r9, "."), strings.Join(want.never, "."))
		}
		if detail != "light" && rs[8].err == nil {
			v.sortedByConfidence(rs[8].stdout, want.r9, len(v.file.records))
		}
	}, "Recipes 1-8 use only Light-level fields; 9-10 adapt to the detail level. At Full detail, confidence MUST be accessed via .provenance.confidence; at Medium detail, via the flattened .confidence field."},
	{"L2.guidance", 2, must, scopeLarge, needCall, func(v *view) {
		raw, ok := v.desc["guidance"]
		if g, _ := raw.(string); !ok {
			v.skip("no guidance (see L2.descriptor.fields)")
		} else if strings.TrimSpace(g) == "" {
			v.fail("guidance is %s, want a non-empty instruction block", jsonText(raw))
		}
	}, "The guidance field MUST contain a brief instruction block for the AI assistant."},
	{"L2.guidance.template", 2, should, scopeLarge, needCall, func(v *view) {
		g := str(v.desc["guidance"])
		if _, present := v.desc["guidance"]; !present {
			v.skip("no guidance (see L2.descriptor.fields)")
			return
		}
		// The count: the summary's or the file's, whichever is right is
		// L1.summary.count's concern.
		var counts []int
		if n, ok := asInt(v.summary["count"]); ok {
			counts = append(counts, int(n))
		}
		detail := v.detail
		if v.file != nil {
			counts = append(counts, len(v.file.lines))
			detail = cmp.Or(detail, str(v.file.header["detail"]))
		}
		if len(counts) > 0 && !slices.ContainsFunc(counts, func(n int) bool {
			return regexp.MustCompile(`\b` + strconv.Itoa(n) + `\b`).MatchString(g)
		}) {
			v.fail("guidance does not name the count %d", counts[0])
		}
		if detail != "" && !strings.Contains(strings.ToLower(g), strings.ToLower(detail)) {
			v.fail("guidance does not name the detail level %q", detail)
		}
		// A result kept on the server is named by its handle, which the tools
		// that read it take.
		p, h := str(v.desc["file_path"]), str(v.desc["handle"])
		if p != "" && !strings.Contains(g, p) && (h == "" || !strings.Contains(g, h)) {
			v.fail("guidance does not name the file path (or the handle)")
		}
	}, "Implementations SHOULD use the template (count, tokens, path, detail level); the guidance prompt SHOULD note the active detail level."},
	{"L2.cleanup", 2, must, scopeOnce, 0, checkCleanup,
		"Offloaded JSONL files are ephemeral and MUST be cleaned up after their TTL expires."},
}

// recipeView is one recipe with a command, as the kit understands it.
type recipeView struct {
	n       int // 1-based
	command string
	parsed  *jqcmd.Command // nil when the command is outside the subset
	refs    filterRefs     // field paths of the filter; zero with refsErr
	refsErr error
	err     error // why the run failed
	stdout  []byte
}

// readRecipes reads the recipes of the descriptor and, when the kit has
// the file, runs them.
func (c *checker) readRecipes(v *view) {
	list, isList := v.desc["jq_recipes"].([]any)
	if !isList {
		v.noRecipes = "depends on L2.recipes.count"
		if _, ok := v.desc["jq_recipes"]; !ok {
			v.noRecipes = "depends on L2.descriptor.fields"
		}
		return
	}
	v.recipes = []*recipeView{}
	for i, e := range list {
		m, _ := e.(map[string]any)
		r := &recipeView{n: i + 1, command: str(m["command"])}
		if strings.TrimSpace(r.command) == "" {
			continue
		}
		if r.parsed, r.refsErr = jqcmd.Parse(r.command); r.parsed != nil {
			r.refs, r.refsErr = fieldRefs(r.parsed.JQ.Filter)
		}
		v.recipes = append(v.recipes, r)
	}
	if v.file == nil {
		return
	}
	for _, r := range v.recipes {
		ctx, cancel := context.WithTimeout(v.ctx, c.cfg.RecipeTimeout)
		r.stdout, r.err = c.runRecipe(ctx, r.command, v.file)
		cancel()
	}
}

var scoreRef = regexp.MustCompile(`\.\s*"?score"?\b|\[\s*"score"\s*\]`)

// hasPath reports whether path leads somewhere in v, looking through
// arrays (the records among them) at every step.
func hasPath(v any, path []string) bool {
	if len(path) == 0 {
		return true
	}
	switch x := v.(type) {
	case map[string]any:
		child, ok := x[path[0]]
		return ok && hasPath(child, path[1:])
	case []any:
		return slices.ContainsFunc(x, func(e any) bool { return hasPath(e, path) })
	}
	return false
}

// lightFields are the memory fields present at Light detail.
var lightFields = []string{"id", "memory_type", "content", "created", "modified", "namespace", "title", "tags", "status"}

// isMemory reports whether most records are memory objects.
func isMemory(records []any) bool {
	n := 0
	for _, r := range records {
		m, _ := r.(map[string]any)
		if !slices.ContainsFunc([]string{"id", "title", "namespace", "memory_type"}, func(k string) bool { _, ok := m[k]; return !ok }) {
			n++
		}
	}
	return n > 0 && 2*n > len(records)
}

func hasRef(refs [][]string, path ...string) bool {
	return slices.ContainsFunc(refs, func(r []string) bool { return slices.Equal(r, path) })
}

// detailTable is what recipes 9 and 10 must use at each detail level, what
// they then do, and what no recipe may use.
var detailTable = map[string]struct {
	r9, r10 []string
	what    [2]string
	never   []string
}{
	"light":  {[]string{"namespace"}, []string{"memory_type"}, [2]string{"lists unique namespaces", "counts by memory_type"}, nil},
	"medium": {[]string{"confidence"}, []string{"content"}, [2]string{"sorts by the flattened .confidence", "searches .content"}, []string{"provenance", "confidence"}},
	"full":   {[]string{"provenance", "confidence"}, []string{"content"}, [2]string{"sorts by .provenance.confidence", "searches .content"}, []string{"confidence"}},
}

func refsText(refs [][]string) string {
	if len(refs) == 0 {
		return "no field"
	}
	var s []string
	for _, r := range refs {
		s = append(s, "."+strings.Join(r, "."))
	}
	slices.Sort(s)
	return strings.Join(slices.Compact(s), ", ")
}

// sortedByConfidence checks that recipe 9 printed every record, by
// confidence descending.
func (v *view) sortedByConfidence(stdout []byte, path []string, want int) {
	vals, err := jqcmd.Inputs(stdout)
	if err != nil {
		v.fail("recipe 9's output is not a stream of JSON records")
		return
	}
	if len(vals) == 1 {
		if a, ok := vals[0].([]any); ok {
			vals = a // one array instead of a stream
		}
	}
	if len(vals) != want {
		v.fail("recipe 9 printed %d values, want all %d records", len(vals), want)
	}
	prev, seen := math.Inf(1), false
	for i, x := range vals {
		for _, k := range path {
			m, _ := x.(map[string]any)
			x = m[k]
		}
		f, ok := x.(float64)
		if !ok {
			continue // records without a confidence sort last
		}
		if seen && f > prev {
			v.fail("recipe 9 is not sorted by .%s descending: %v follows %v at output %d", strings.Join(path, "."), f, prev, i+1)
			return
		}
		prev, seen = f, true
	}
}
