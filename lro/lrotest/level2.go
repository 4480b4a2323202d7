package lrotest

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// recipeView is one recipe as the kit understands it.
type recipeView struct {
	n           int // 1-based
	description string
	command     string
	parsed      *recipeCommand // nil when the command is outside the subset
	parseErr    error
	refs        filterRefs // field paths of the filter; zero with refsErr
	refsErr     error
	run         *recipeRun // nil when not run
}

func (c *checker) checkLevel2(ctx context.Context, lc largeCase, desc map[string]any, f *fileView) {
	var missing []string
	for _, k := range []string{"line_schema", "jq_recipes", "guidance"} {
		if _, ok := desc[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		c.fail("L2.descriptor.fields", "the descriptor lacks %s", strings.Join(missing, ", "))
	} else {
		c.pass("L2.descriptor.fields")
	}
	c.checkLineSchema(desc, f)
	recipes := c.checkRecipeList(desc)
	if recipes != nil {
		c.checkRecipes(ctx, lc, desc, f, recipes)
	}
	c.checkGuidance(lc, desc, f)
}

func (c *checker) checkLineSchema(desc map[string]any, f *fileView) {
	const id = "L2.line_schema"
	raw, ok := desc["line_schema"]
	if !ok {
		c.skip(id, "no line_schema (see L2.descriptor.fields)")
		return
	}
	if _, isObj := raw.(map[string]any); !isObj {
		c.fail(id, "line_schema is %s, not a JSON Schema object", jsonText(raw))
		return
	}
	resolved, err := resolveSchema(raw)
	if err != nil {
		c.fail(id, "line_schema is not a JSON Schema that resolves: %v", err)
		return
	}
	if f == nil {
		return
	}
	for i, r := range f.records {
		if !f.valid[i] {
			continue
		}
		if err := resolved.Validate(r); err != nil {
			c.fail(id, "line %d is not valid under line_schema: %s", i+2, oneLine(err.Error(), 300))
			return
		}
	}
	c.pass(id)
}

// checkRecipeList checks the jq_recipes array and returns its recipes, or nil
// when there is none to check further.
func (c *checker) checkRecipeList(desc map[string]any) []*recipeView {
	raw, ok := desc["jq_recipes"]
	if !ok {
		c.block("L2.descriptor.fields")
		return nil
	}
	list, ok := raw.([]any)
	if !ok {
		c.fail("L2.recipes.count", "jq_recipes is %s, not an array", jsonText(raw))
		c.block("L2.recipes.count")
		return nil
	}
	if len(list) == 10 {
		c.pass("L2.recipes.count")
	} else {
		c.fail("L2.recipes.count", "%d recipes, want exactly 10", len(list))
	}
	var problems []string
	var out []*recipeView
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			problems = append(problems, fmt.Sprintf("recipe %d is %s, not an object", i+1, jsonText(e)))
			continue
		}
		rv := &recipeView{n: i + 1}
		if d, ok := m["description"].(string); !ok || strings.TrimSpace(d) == "" {
			problems = append(problems, fmt.Sprintf("recipe %d has no description", i+1))
		} else {
			rv.description = d
		}
		cmd, ok := m["command"].(string)
		if !ok || strings.TrimSpace(cmd) == "" {
			problems = append(problems, fmt.Sprintf("recipe %d has no command", i+1))
			continue
		}
		rv.command = cmd
		rv.parsed, rv.parseErr = parseRecipe(cmd)
		if rv.parsed != nil {
			rv.refs, rv.refsErr = fieldRefs(rv.parsed.jq.filter)
		} else {
			rv.refsErr = rv.parseErr
		}
		out = append(out, rv)
	}
	c.check("L2.recipes.fields", problems)
	return out
}

var scoreRef = regexp.MustCompile(`\.\s*"?score"?\b|\[\s*"score"\s*\]`)

func (c *checker) checkRecipes(ctx context.Context, lc largeCase, desc map[string]any, f *fileView, rs []*recipeView) {
	// No .score.
	var problems []string
	for _, r := range rs {
		uses := scoreRef.MatchString(r.command)
		for _, ref := range r.refs.all {
			uses = uses || slices.Contains(ref, "score")
		}
		if uses {
			problems = append(problems, fmt.Sprintf("recipe %d references .score: %s", r.n, r.command))
		}
	}
	c.check("L2.recipes.no_score", problems)

	// The header is skipped.
	problems = nil
	for _, r := range rs {
		switch {
		case r.parsed != nil && !r.parsed.skipHeader:
			problems = append(problems, fmt.Sprintf("recipe %d feeds jq the whole file, header line included: %s", r.n, r.command))
		case r.parsed == nil && !strings.Contains(r.command, "tail -n +2"):
			problems = append(problems, fmt.Sprintf("recipe %d does not skip the header with tail -n +2: %s", r.n, r.command))
		}
	}
	c.check("L2.recipes.skip_header", problems)

	if f == nil {
		return // the file-dependent checks are skipped with the blocker
	}

	// The file.
	problems = nil
	for _, r := range rs {
		switch {
		case strings.Contains(r.command, "{file}"):
			problems = append(problems, fmt.Sprintf("recipe %d still holds the {file} placeholder: %s", r.n, r.command))
		case r.parsed != nil && r.parsed.file != f.path:
			problems = append(problems, fmt.Sprintf("recipe %d reads %q, not file_path %q", r.n, r.parsed.file, f.path))
		case r.parsed == nil && !strings.Contains(r.command, f.path) && !strings.Contains(r.command, shellQuote(f.path)):
			problems = append(problems, fmt.Sprintf("recipe %d does not name file_path %q: %s", r.n, f.path, r.command))
		}
	}
	c.check("L2.recipes.file", problems)

	// They run.
	problems = nil
	for _, r := range rs {
		rctx, cancel := context.WithTimeout(ctx, c.cfg.RecipeTimeout)
		run := c.runner.run(rctx, r.command, f)
		cancel()
		r.run = &run
		if run.err != nil {
			on := ""
			if f.fetched {
				on = " (run on the copy fetched with resources/read, in place of file_path)"
			}
			problems = append(problems, fmt.Sprintf("recipe %d (%s) failed%s: %v; command: %s", r.n, r.description, on, oneLine(run.err.Error(), 300), r.command))
		}
	}
	c.check("L2.recipes.run", problems)

	// The fields they use exist.
	records := f.validRecords()
	problems = nil
	var unparsed []string
	checked := 0
	for _, r := range rs {
		if r.refsErr != nil {
			unparsed = append(unparsed, fmt.Sprintf("recipe %d: %v", r.n, r.refsErr))
			continue
		}
		checked++
		var absent []string
		for _, ref := range r.refs.record {
			if !anyHasPath(records, ref) {
				absent = append(absent, "."+strings.Join(ref, "."))
			}
		}
		if len(absent) > 0 {
			problems = append(problems, fmt.Sprintf("recipe %d references %s, which no record has", r.n, strings.Join(dedupe(absent), ", ")))
		}
	}
	switch {
	case len(problems) > 0:
		c.check("L2.recipes.fields_exist", problems)
	case checked == 0:
		c.skip("L2.recipes.fields_exist", "no filter could be read: %s", strings.Join(unparsed, "; "))
	default:
		c.pass("L2.recipes.fields_exist")
	}

	c.checkDetailRecipes(lc, f, records, rs)
}

func anyHasPath(records []any, path []string) bool {
	for _, r := range records {
		if pathExists(r, path) {
			return true
		}
	}
	return false
}

// shellQuote quotes s for a POSIX shell, as recipe commands commonly do.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// lightFields are the memory fields present at Light detail.
var lightFields = map[string]bool{
	"id": true, "memory_type": true, "content": true, "created": true, "modified": true,
	"namespace": true, "title": true, "tags": true, "status": true,
}

// isMemory reports whether most records are memory objects.
func isMemory(records []any) bool {
	n := 0
	for _, r := range records {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		if _, ok := m["id"]; !ok {
			continue
		}
		if _, ok := m["title"]; !ok {
			continue
		}
		if _, ok := m["namespace"]; !ok {
			continue
		}
		if _, ok := m["memory_type"]; ok {
			n++
		}
	}
	return n > 0 && 2*n > len(records)
}

func hasRef(refs [][]string, path ...string) bool {
	for _, r := range refs {
		if slices.Equal(r, path) {
			return true
		}
	}
	return false
}

func refsText(refs [][]string) string {
	if len(refs) == 0 {
		return "no field"
	}
	var s []string
	for _, r := range refs {
		s = append(s, "."+strings.Join(r, "."))
	}
	return strings.Join(dedupe(s), ", ")
}

func (c *checker) checkDetailRecipes(lc largeCase, f *fileView, records []any, rs []*recipeView) {
	const id = "L2.recipes.detail"
	detail := lc.detail
	if detail == "" && f.header != nil {
		detail, _ = f.header["detail"].(string)
	}
	detail = strings.ToLower(detail)
	switch {
	case !isMemory(records):
		c.skip(id, "the records are not memory records (id, title, namespace, memory_type); the detail table applies to memories")
		return
	case len(rs) != 10:
		c.skip(id, "not exactly 10 recipes (see L2.recipes.count)")
		return
	case detail != "light" && detail != "medium" && detail != "full":
		c.skip(id, "detail level %q is not light, medium or full", detail)
		return
	}
	for _, r := range rs {
		if r.refsErr != nil {
			c.skip(id, "recipe %d cannot be read: %v", r.n, r.refsErr)
			return
		}
	}
	var problems []string
	for _, r := range rs[:8] {
		for _, ref := range r.refs.record {
			// A field no record has is L2.recipes.fields_exist's concern.
			if !lightFields[ref[0]] && anyHasPath(records, ref[:1]) {
				problems = append(problems, fmt.Sprintf("recipe %d references .%s, which is not a Light field", r.n, strings.Join(ref, ".")))
			}
		}
	}
	r9, r10 := rs[8].refs.all, rs[9].refs.all
	var all [][]string
	for _, r := range rs {
		all = append(all, r.refs.all...)
	}
	switch detail {
	case "light":
		if !hasRef(r9, "namespace") {
			problems = append(problems, fmt.Sprintf("at light detail recipe 9 lists unique namespaces, but it uses %s", refsText(r9)))
		}
		if !hasRef(r10, "memory_type") {
			problems = append(problems, fmt.Sprintf("at light detail recipe 10 counts by memory_type, but it uses %s", refsText(r10)))
		}
	case "medium":
		if !hasRef(r9, "confidence") {
			problems = append(problems, fmt.Sprintf("at medium detail recipe 9 sorts by the flattened .confidence, but it uses %s", refsText(r9)))
		}
		if hasRef(all, "provenance", "confidence") {
			problems = append(problems, "at medium detail confidence is the flattened .confidence, but a recipe uses .provenance.confidence")
		}
		if !hasRef(r10, "content") {
			problems = append(problems, fmt.Sprintf("at medium detail recipe 10 searches .content, but it uses %s", refsText(r10)))
		}
	case "full":
		if !hasRef(r9, "provenance", "confidence") {
			problems = append(problems, fmt.Sprintf("at full detail recipe 9 sorts by .provenance.confidence, but it uses %s", refsText(r9)))
		}
		if hasRef(all, "confidence") {
			problems = append(problems, "at full detail confidence MUST be accessed via .provenance.confidence, but a recipe uses .confidence")
		}
		if !hasRef(r10, "content") {
			problems = append(problems, fmt.Sprintf("at full detail recipe 10 searches .content, but it uses %s", refsText(r10)))
		}
	}
	if run := rs[8].run; detail != "light" && run != nil && run.err == nil {
		path := []string{"confidence"}
		if detail == "full" {
			path = []string{"provenance", "confidence"}
		}
		problems = append(problems, sortedByConfidence(run, path, len(records))...)
	}
	c.check(id, problems)
}

// sortedByConfidence checks that recipe 9 printed every record, by
// confidence descending.
func sortedByConfidence(run *recipeRun, path []string, want int) []string {
	vals, ok := run.values()
	if !ok {
		return []string{"recipe 9's output is not a stream of JSON records"}
	}
	// A recipe may print one array instead of a stream.
	if len(vals) == 1 {
		if a, ok := vals[0].([]any); ok {
			vals = a
		}
	}
	var problems []string
	if len(vals) != want {
		problems = append(problems, fmt.Sprintf("recipe 9 printed %d values, want all %d records", len(vals), want))
	}
	prev, seen := math.Inf(1), false
	for i, v := range vals {
		x := v
		for _, k := range path {
			m, _ := x.(map[string]any)
			x = m[k]
		}
		f, ok := x.(float64)
		if !ok {
			continue // records without a confidence sort last
		}
		if seen && f > prev {
			problems = append(problems, fmt.Sprintf("recipe 9 is not sorted by .%s descending: %v follows %v at output %d", strings.Join(path, "."), f, prev, i+1))
			break
		}
		prev, seen = f, true
	}
	return problems
}

func (c *checker) checkGuidance(lc largeCase, desc map[string]any, f *fileView) {
	raw, ok := desc["guidance"]
	if !ok {
		c.skip("L2.guidance", "no guidance (see L2.descriptor.fields)")
		c.skip("L2.guidance.template", "no guidance (see L2.descriptor.fields)")
		return
	}
	g, ok := raw.(string)
	if !ok || strings.TrimSpace(g) == "" {
		c.fail("L2.guidance", "guidance is %s, want a non-empty instruction block", jsonText(raw))
	} else {
		c.pass("L2.guidance")
	}
	var missing []string
	// The count: the summary's or the file's, whichever is right is
	// L1.summary.count's concern.
	var counts []int
	if s, ok := desc["summary"].(map[string]any); ok {
		if n, ok := asInt(s["count"]); ok {
			counts = append(counts, int(n))
		}
	}
	if f != nil {
		counts = append(counts, len(f.lines))
	}
	named := len(counts) == 0
	for _, n := range counts {
		named = named || regexp.MustCompile(`\b`+strconv.Itoa(n)+`\b`).MatchString(g)
	}
	if !named {
		missing = append(missing, fmt.Sprintf("the count %d", counts[0]))
	}
	detail := lc.detail
	if detail == "" && f != nil && f.header != nil {
		detail, _ = f.header["detail"].(string)
	}
	if detail != "" && !strings.Contains(strings.ToLower(g), strings.ToLower(detail)) {
		missing = append(missing, fmt.Sprintf("the detail level %q", detail))
	}
	if p, ok := desc["file_path"].(string); ok && p != "" && !strings.Contains(g, p) {
		// A result kept on the server is named by its handle, which the
		// tools that read it take.
		if h, _ := desc["handle"].(string); h == "" {
			missing = append(missing, "the file path")
		} else if !strings.Contains(g, h) {
			missing = append(missing, "the file path or the handle")
		}
	}
	if len(missing) > 0 {
		c.fail("L2.guidance.template", "guidance does not name %s", strings.Join(missing, ", "))
		return
	}
	c.pass("L2.guidance.template")
}
