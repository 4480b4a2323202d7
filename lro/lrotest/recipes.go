package lrotest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/itchyny/gojq"

	"github.com/zircote/lro-go/internal/jqcmd"
)

// recipeView is one recipe as the kit understands it.
type recipeView struct {
	n           int // 1-based
	description string
	command     string
	parsed      *jqcmd.Command // nil when the command is outside the subset
	refs        filterRefs     // field paths of the filter; zero with refsErr
	refsErr     error
	ran         bool // run without error
	stdout      []byte
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
	if rs := c.checkRecipeList(desc); rs != nil {
		c.checkRecipes(ctx, lc, f, rs)
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
		if err := resolved.Validate(r); err != nil {
			c.fail(id, "line %d is not valid under line_schema: %s", f.lineOf(i), oneLine(err.Error(), 300))
			return
		}
	}
	c.pass(id)
}

// lineOf returns the line number in the file of record i.
func (f *fileView) lineOf(i int) int {
	for _, b := range f.bad {
		if b <= i {
			i++
		}
	}
	return i + 2
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
		rv.description, _ = m["description"].(string)
		if strings.TrimSpace(rv.description) == "" {
			problems = append(problems, fmt.Sprintf("recipe %d has no description", i+1))
		}
		if rv.command, _ = m["command"].(string); strings.TrimSpace(rv.command) == "" {
			problems = append(problems, fmt.Sprintf("recipe %d has no command", i+1))
			continue
		}
		if rv.parsed, rv.refsErr = jqcmd.Parse(rv.command); rv.parsed != nil {
			rv.refs, rv.refsErr = fieldRefs(rv.parsed.JQ.Filter)
		}
		out = append(out, rv)
	}
	c.check("L2.recipes.fields", problems)
	return out
}

var scoreRef = regexp.MustCompile(`\.\s*"?score"?\b|\[\s*"score"\s*\]`)

// recipeProblems returns what problem says of each recipe, skipping "".
func recipeProblems(rs []*recipeView, problem func(r *recipeView) string) []string {
	var problems []string
	for _, r := range rs {
		if p := problem(r); p != "" {
			problems = append(problems, p)
		}
	}
	return problems
}

func (c *checker) checkRecipes(ctx context.Context, lc largeCase, f *fileView, rs []*recipeView) {
	c.check("L2.recipes.no_score", recipeProblems(rs, func(r *recipeView) string {
		if scoreRef.MatchString(r.command) || slices.ContainsFunc(r.refs.all, func(ref []string) bool { return slices.Contains(ref, "score") }) {
			return fmt.Sprintf("recipe %d references .score: %s", r.n, r.command)
		}
		return ""
	}))
	c.check("L2.recipes.skip_header", recipeProblems(rs, func(r *recipeView) string {
		switch {
		case r.parsed != nil && !r.parsed.SkipHeader:
			return fmt.Sprintf("recipe %d feeds jq the whole file, header line included: %s", r.n, r.command)
		case r.parsed == nil && !strings.Contains(r.command, "tail -n +2"):
			return fmt.Sprintf("recipe %d does not skip the header with tail -n +2: %s", r.n, r.command)
		}
		return ""
	}))
	if f == nil {
		return // the file-dependent checks are skipped with the blocker
	}
	c.check("L2.recipes.file", recipeProblems(rs, func(r *recipeView) string {
		switch {
		case strings.Contains(r.command, "{file}"):
			return fmt.Sprintf("recipe %d still holds the {file} placeholder: %s", r.n, r.command)
		case r.parsed != nil && r.parsed.File != f.path:
			return fmt.Sprintf("recipe %d reads %q, not file_path %q", r.n, r.parsed.File, f.path)
		case r.parsed == nil && !strings.Contains(r.command, f.path) && !strings.Contains(r.command, jqcmd.Quote(f.path)):
			return fmt.Sprintf("recipe %d does not name file_path %q: %s", r.n, f.path, r.command)
		}
		return ""
	}))
	cache := &inputCache{}
	c.check("L2.recipes.run", recipeProblems(rs, func(r *recipeView) string {
		rctx, cancel := context.WithTimeout(ctx, c.cfg.RecipeTimeout)
		defer cancel()
		var err error
		r.stdout, err = c.runRecipe(rctx, r.command, f, cache)
		if r.ran = err == nil; r.ran {
			return ""
		}
		on := ""
		if f.fetched {
			on = " (run on the copy fetched with resources/read, in place of file_path)"
		}
		return fmt.Sprintf("recipe %d (%s) failed%s: %v; command: %s", r.n, r.description, on, oneLine(err.Error(), 300), r.command)
	}))

	var unparsed []string
	problems := recipeProblems(rs, func(r *recipeView) string {
		if r.refsErr != nil {
			unparsed = append(unparsed, fmt.Sprintf("recipe %d: %v", r.n, r.refsErr))
			return ""
		}
		var absent []string
		for _, ref := range r.refs.record {
			if !anyHasPath(f.records, ref) {
				absent = append(absent, "."+strings.Join(ref, "."))
			}
		}
		if len(absent) > 0 {
			return fmt.Sprintf("recipe %d references %s, which no record has", r.n, strings.Join(dedupe(absent), ", "))
		}
		return ""
	})
	if len(problems) == 0 && len(unparsed) == len(rs) {
		c.skip("L2.recipes.fields_exist", "no filter could be read: %s", strings.Join(unparsed, "; "))
	} else {
		c.check("L2.recipes.fields_exist", problems)
	}
	c.checkDetailRecipes(lc, f, rs)
}

func anyHasPath(records []any, path []string) bool {
	return slices.ContainsFunc(records, func(r any) bool { return pathExists(r, path) })
}

// pathExists reports whether path leads somewhere in v, looking through
// arrays at every step.
func pathExists(v any, path []string) bool {
	if len(path) == 0 {
		return true
	}
	switch x := v.(type) {
	case map[string]any:
		child, ok := x[path[0]]
		return ok && pathExists(child, path[1:])
	case []any:
		return anyHasPath(x, path)
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

func (c *checker) checkDetailRecipes(lc largeCase, f *fileView, rs []*recipeView) {
	const id = "L2.recipes.detail"
	detail := lc.detail
	if detail == "" {
		detail, _ = f.header["detail"].(string)
	}
	detail = strings.ToLower(detail)
	switch {
	case !isMemory(f.records):
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
			if !slices.Contains(lightFields, ref[0]) && anyHasPath(f.records, ref[:1]) {
				problems = append(problems, fmt.Sprintf("recipe %d references .%s, which is not a Light field", r.n, strings.Join(ref, ".")))
			}
		}
	}
	var all [][]string
	for _, r := range rs {
		all = append(all, r.refs.all...)
	}
	// want is what recipes 9 and 10 must use at this detail level, and
	// what no recipe may use.
	want := map[string]struct {
		r9, r10 []string
		what    [2]string
		never   []string
	}{
		"light":  {[]string{"namespace"}, []string{"memory_type"}, [2]string{"lists unique namespaces", "counts by memory_type"}, nil},
		"medium": {[]string{"confidence"}, []string{"content"}, [2]string{"sorts by the flattened .confidence", "searches .content"}, []string{"provenance", "confidence"}},
		"full":   {[]string{"provenance", "confidence"}, []string{"content"}, [2]string{"sorts by .provenance.confidence", "searches .content"}, []string{"confidence"}},
	}[detail]
	for i, path := range [][]string{want.r9, want.r10} {
		if refs := rs[8+i].refs.all; !hasRef(refs, path...) {
			problems = append(problems, fmt.Sprintf("at %s detail recipe %d %s, but it uses %s", detail, 9+i, want.what[i], refsText(refs)))
		}
	}
	if want.never != nil && hasRef(all, want.never...) {
		problems = append(problems, fmt.Sprintf("at %s detail confidence MUST be accessed via .%s, but a recipe uses .%s", detail, strings.Join(want.r9, "."), strings.Join(want.never, ".")))
	}
	if detail != "light" && rs[8].ran {
		problems = append(problems, sortedByConfidence(rs[8].stdout, want.r9, len(f.records))...)
	}
	c.check(id, problems)
}

// sortedByConfidence checks that recipe 9 printed every record, by
// confidence descending.
func sortedByConfidence(stdout []byte, path []string, want int) []string {
	var vals []any
	dec := json.NewDecoder(bytes.NewReader(stdout))
	for {
		var v any
		if err := dec.Decode(&v); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return []string{"recipe 9's output is not a stream of JSON records"}
		}
		vals = append(vals, v)
	}
	if len(vals) == 1 {
		if a, ok := vals[0].([]any); ok {
			vals = a // one array instead of a stream
		}
	}
	var problems []string
	if len(vals) != want {
		problems = append(problems, fmt.Sprintf("recipe 9 printed %d values, want all %d records", len(vals), want))
	}
	prev, seen := math.Inf(1), false
	for i, v := range vals {
		for _, k := range path {
			m, _ := v.(map[string]any)
			v = m[k]
		}
		f, ok := v.(float64)
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
	detail := lc.detail
	if f != nil {
		counts = append(counts, len(f.lines))
		if detail == "" {
			detail, _ = f.header["detail"].(string)
		}
	}
	if len(counts) > 0 && !slices.ContainsFunc(counts, func(n int) bool {
		return regexp.MustCompile(`\b` + strconv.Itoa(n) + `\b`).MatchString(g)
	}) {
		missing = append(missing, fmt.Sprintf("the count %d", counts[0]))
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

// Running recipes. The commands come from the server under test: the kit
// runs only those that jqcmd.Parse reads, tail or cat piped into jq with
// plain words, so that a hostile server cannot run anything else on the
// client's machine; sh runs exactly the words read, each quoted again.

// maxRecipeOutput caps what the kit keeps of a recipe's standard output.
const maxRecipeOutput = 256 << 20

// shellJQ says which jq sh runs, or "" when there is no sh or jq.
func shellJQ() string {
	if _, err := exec.LookPath("sh"); err != nil {
		return ""
	}
	jq, err := exec.LookPath("jq")
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, jq, "--version").Output()
	if err != nil {
		return ""
	}
	return fmt.Sprintf("sh -c with %s (%s)", strings.TrimSpace(string(out)), jq)
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	bytes.Buffer
	max       int
	truncated bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room < len(p) {
		b.truncated = true
		b.Buffer.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

// inputCache keeps the decoded records of the last input, since the ten
// recipes of a descriptor read the same file; gojq never modifies them.
type inputCache struct {
	data       []byte
	skipHeader bool
	inputs     []any
	err        error
}

// runRecipe runs command on the offloaded file f, with sh and jq when
// c.jq is set, else in process: a command that reads f.path reads f.data,
// the content of f.local.
func (c *checker) runRecipe(ctx context.Context, command string, f *fileView, cache *inputCache) ([]byte, error) {
	rc, err := jqcmd.Parse(command)
	if err != nil {
		return nil, fmt.Errorf("not run: the kit runs only tail -n +2 FILE | jq ... (or cat FILE | jq ..., jq ... FILE) with plain quoted words: %w", err)
	}
	if c.jq == "" {
		input := f.data
		if rc.File != f.path {
			if input, err = os.ReadFile(rc.File); err != nil {
				return nil, err
			}
		}
		if len(input) == 0 || len(cache.data) != len(input) || &cache.data[0] != &input[0] || cache.skipHeader != rc.SkipHeader {
			cache.inputs, cache.err = jqcmd.Inputs(input, rc.SkipHeader)
			cache.data, cache.skipHeader = input, rc.SkipHeader
		}
		if cache.err != nil {
			return nil, cache.err
		}
		return rc.JQ.Run(ctx, cache.inputs, maxRecipeOutput)
	}
	file := rc.File
	if file == f.path {
		file = f.local // the kit's copy of a fetched file
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", rc.WithFile(file))
	stdout, stderr := &limitedBuffer{max: maxRecipeOutput}, &limitedBuffer{max: 4096}
	cmd.Stdout, cmd.Stderr, cmd.WaitDelay = stdout, stderr, time.Second
	err = cmd.Run()
	msg := strings.TrimSpace(stderr.String())
	switch {
	case ctx.Err() != nil:
		err = fmt.Errorf("did not finish: %w", ctx.Err())
	case err != nil && msg != "":
		err = fmt.Errorf("%v: %s", err, msg)
	case err != nil:
	case msg != "":
		err = fmt.Errorf("wrote to standard error: %s", msg)
	case stdout.truncated:
		err = fmt.Errorf("printed more than %d bytes", maxRecipeOutput)
	}
	return stdout.Bytes(), err
}

// filterRefs are the field paths that a jq filter indexes.
type filterRefs struct {
	// all holds every path, as written: .a.b gives [a b], {a} gives [a],
	// .[0].a and .[].a give [a] (the elements of a slurped array are records
	// too). Array iteration and numeric indexes are skipped within a path; a
	// path through a computed index (.[$k]) ends there.
	all [][]string
	// record holds the paths of all that index the input records: it leaves
	// out paths that follow the construction of an object with the same key
	// ({count: length} ... .count), and .key and .value when the filter
	// uses to_entries or with_entries.
	record [][]string
}

// fieldRefs returns the field paths of a jq filter, read from its gojq
// syntax tree. The result is an approximation meant to find fields that no
// record has, not a type checker.
func fieldRefs(filter string) (filterRefs, error) {
	q, err := gojq.Parse(filter)
	if err != nil {
		return filterRefs{}, err
	}
	w := &refWalker{built: map[string]bool{}}
	w.walk(reflect.ValueOf(q))
	refs := filterRefs{all: w.all}
	for _, r := range w.record {
		if !w.entries || r[0] != "key" && r[0] != "value" {
			refs.record = append(refs.record, r)
		}
	}
	return refs, nil
}

type refWalker struct {
	all, record [][]string
	built       map[string]bool // keys of objects constructed so far
	entries     bool            // the filter uses to_entries or with_entries
}

func (w *refWalker) add(chain []string) {
	if len(chain) == 0 {
		return
	}
	w.all = append(w.all, chain)
	if !w.built[chain[0]] {
		w.record = append(w.record, chain)
	}
}

// walk visits every node of the syntax tree below v, in order.
func (w *refWalker) walk(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		switch n := v.Interface().(type) {
		case *gojq.Term:
			w.term(n)
			return
		case *gojq.ObjectKeyVal:
			key, constKey := n.Key, n.Key != ""
			if n.KeyString != nil && n.KeyString.Queries == nil {
				key, constKey = n.KeyString.Str, true
			}
			switch {
			case !constKey || strings.HasPrefix(key, "$"):
			case n.Val == nil && n.KeyQuery == nil:
				w.add([]string{key}) // {a} is {a: .a}
			default:
				w.built[key] = true
			}
		case *gojq.Func:
			w.entries = w.entries || n.Name == "to_entries" || n.Name == "with_entries"
		}
		w.walk(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				w.walk(v.Field(i))
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			w.walk(v.Index(i))
		}
	}
}

// indexKey returns the constant field name of an index, if it has one.
func indexKey(ix *gojq.Index) (name string, isName, isConst bool) {
	switch {
	case ix.Name != "":
		return ix.Name, true, true
	case ix.Str != nil:
		return ix.Str.Str, ix.Str.Queries == nil, ix.Str.Queries == nil
	case ix.IsSlice:
		return "", false, true
	case ix.Start != nil && ix.Start.Term != nil && ix.Start.Left == nil && ix.Start.Right == nil:
		t := ix.Start.Term
		switch {
		case t.Type == gojq.TermTypeString && t.Str != nil && t.Str.Queries == nil && len(t.SuffixList) == 0:
			return t.Str.Str, true, true
		case t.Type == gojq.TermTypeNumber, t.Type == gojq.TermTypeUnary && t.Unary != nil && t.Unary.Term != nil && t.Unary.Term.Type == gojq.TermTypeNumber:
			return "", false, true
		}
	}
	return "", false, false
}

// term adds the path a term indexes from its input (.a.b, .["a"][0].b),
// after the paths of the terms within it.
func (w *refWalker) term(t *gojq.Term) {
	var chain []string
	relative := t.Type == gojq.TermTypeIdentity // the chain starts at the input (.)
	if t.Type == gojq.TermTypeIndex {
		name, isName, isConst := indexKey(t.Index)
		if isName {
			chain = []string{name}
		}
		relative = isConst
	}
	for _, s := range t.SuffixList {
		if s.Index == nil {
			continue // iteration: the existence check looks through arrays
		}
		switch name, isName, isConst := indexKey(s.Index); {
		case !relative:
		case isName:
			chain = append(chain, name)
		case !isConst:
			// A computed index: what follows is not a known path.
			w.add(chain)
			chain, relative = nil, false
		}
	}
	w.walk(reflect.ValueOf(t).Elem())
	w.add(chain)
}
