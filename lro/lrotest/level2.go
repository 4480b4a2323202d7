package lrotest

import (
	"cmp"
	"errors"
	"maps"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zircote/lro-go/internal/jqcmd"
	"github.com/zircote/lro-go/internal/shell"
)

// level2 are the requirements of Level 2, in report order.
var level2 = []requirement{
	{"L2.descriptor.fields", 2, must, scopeLarge, needCall, func(v *view) {
		for _, k := range []string{"line_schema", "jq_recipes", "guidance"} {
			if _, ok := v.Desc[k]; !ok {
				v.fail("the descriptor lacks %s", k)
			}
		}
	}, "Implementations MUST include all fields per the struct definition."},
	{"L2.line_schema", 2, must, scopeLarge, needCall, func(v *view) {
		raw, ok := v.Desc["line_schema"]
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
		case v.File == nil:
			v.skip("%s", v.NoFile)
		default:
			for i, r := range v.File.Records {
				if err := resolved.Validate(r); err != nil {
					v.fail("line %d is not valid under line_schema: %s", v.File.LineOf[i], oneLine(err.Error(), 300))
					return
				}
			}
		}
	}, "line_schema: JSON Schema describing each memory line in the JSONL file."},
	{"L2.recipes.count", 2, must, scopeLarge, needCall, func(v *view) {
		raw, ok := v.Desc["jq_recipes"]
		list, isList := raw.([]any)
		switch {
		case !ok:
			v.skip("%s", v.NoRecipes)
		case !isList:
			v.fail("jq_recipes is %s, not an array", jsonText(raw))
		case len(list) != 10:
			v.fail("%d recipes, want exactly 10", len(list))
		}
	}, "Implementations MUST include exactly 10 recipes in every OffloadResponse."},
	{"L2.recipes.fields", 2, must, scopeLarge, needRecipes, func(v *view) {
		for i, e := range v.Desc["jq_recipes"].([]any) {
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
		p := v.File.Path
		for _, r := range v.Recipes {
			switch {
			case strings.Contains(r.Command, "{file}"):
				v.fail("recipe %d still holds the {file} placeholder: %s", r.N, r.Command)
			case r.Parsed != nil && r.Parsed.File != p:
				v.fail("recipe %d reads %q, not file_path %q", r.N, r.Parsed.File, p)
			case r.Parsed == nil && !strings.Contains(r.Command, p) && !strings.Contains(r.Command, shell.Quote(p)):
				v.fail("recipe %d does not name file_path %q: %s", r.N, p, r.Command)
			}
		}
	}, "The {file} placeholder MUST be replaced with the actual file path from OffloadResponse.file_path."},
	{"L2.recipes.skip_header", 2, must, scopeLarge, needRecipes, func(v *view) {
		for _, r := range v.Recipes {
			if r.Parsed != nil && !r.Parsed.SkipHeader {
				v.fail("recipe %d feeds jq the whole file, header line included: %s", r.N, r.Command)
			} else if r.Parsed == nil && !strings.Contains(r.Command, "tail -n +2") {
				v.fail("recipe %d does not skip the header with tail -n +2: %s", r.N, r.Command)
			}
		}
	}, "All recipes use tail -n +2 to skip the header line."},
	{"L2.recipes.run", 2, must, scopeLarge, needRecipes | needFile, func(v *view) {
		on := ""
		if v.File.Fetched {
			on = " (run on the copy fetched with resources/read, in place of file_path)"
		}
		for _, r := range v.Recipes {
			if r.Err != nil {
				v.fail("recipe %d failed%s: %v; command: %s", r.N, on, oneLine(r.Err.Error(), 300), r.Command)
			}
		}
	}, "Ready-to-use jq recipes for common extraction patterns (recipes that run)."},
	{"L2.recipes.no_score", 2, must, scopeLarge, needRecipes, func(v *view) {
		for _, r := range v.Recipes {
			if scoreRef.MatchString(r.Command) || slices.ContainsFunc(r.Refs.All, func(ref []string) bool { return slices.Contains(ref, "score") }) {
				v.fail("recipe %d references .score: %s", r.N, r.Command)
			}
		}
	}, "Recipes MUST NOT reference .score (which is a SearchHit field, never serialized into JSONL)."},
	{"L2.recipes.fields_exist", 2, must, scopeLarge, needRecipes | needFile, func(v *view) {
		var unread []string
		for _, r := range v.Recipes {
			if r.RefsErr != nil {
				unread = append(unread, "recipe "+strconv.Itoa(r.N)+": "+r.RefsErr.Error())
				continue
			}
			absent := slices.DeleteFunc(slices.Clone(r.Refs.Record), func(ref []string) bool { return hasPath(v.File.Records, ref) })
			if len(absent) > 0 {
				v.fail("recipe %d references %s, which no record has", r.N, refsText(absent))
			}
		}
		if len(v.problems) == 0 && len(unread) == len(v.Recipes) && len(unread) > 0 {
			v.skip("no filter could be read: %s", strings.Join(unread, "; "))
		}
	}, "Recipes MUST only reference fields that exist at the given detail level."},
	{"L2.recipes.detail", 2, must, scopeLarge, needRecipes | needFile, func(v *view) {
		rs, detail := v.Recipes, strings.ToLower(cmp.Or(v.Detail, str(v.File.Header["detail"])))
		want, known := detailTable[detail]
		unread := slices.IndexFunc(rs, func(r *recipe) bool { return r.RefsErr != nil })
		switch {
		case !isMemory(v.File.Records):
			v.skip("the records are not memory records (id, title, namespace, memory_type); the detail table applies to memories")
		case len(rs) != 10:
			v.skip("not exactly 10 recipes (see L2.recipes.count)")
		case !known:
			v.skip("detail level %q is not light, medium or full", detail)
		case unread >= 0:
			v.skip("recipe %d cannot be read: %v", rs[unread].N, rs[unread].RefsErr)
		}
		if v.skipped != "" {
			return
		}
		var all [][]string
		for _, r := range rs {
			all = append(all, r.Refs.All...)
			for _, ref := range r.Refs.Record {
				// A field no record has is L2.recipes.fields_exist's concern.
				if r.N <= 8 && !slices.Contains(lightFields, ref[0]) && hasPath(v.File.Records, ref[:1]) {
					v.fail("recipe %d references .%s, which is not a Light field", r.N, strings.Join(ref, "."))
				}
			}
		}
		for i, path := range [][]string{want.r9, want.r10} {
			if refs := rs[8+i].Refs.All; !hasRef(refs, path...) {
				v.fail("at %s detail recipe %d %s, but it uses %s", detail, 9+i, want.what[i], refsText(refs))
			}
		}
		if want.never != nil && hasRef(all, want.never...) {
			v.fail("at %s detail confidence MUST be accessed via .%s, but a recipe uses .%s", detail, strings.Join(want.r9, "."), strings.Join(want.never, "."))
		}
		if detail != "light" && rs[8].Err == nil {
			v.sortedByConfidence(rs[8].Stdout, want.r9, v.File.Records)
		}
	}, "Recipes 1-8 use only Light-level fields; 9-10 adapt to the detail level. At Full detail, confidence MUST be accessed via .provenance.confidence; at Medium detail, via the flattened .confidence field."},
	{"L2.guidance", 2, must, scopeLarge, needCall, func(v *view) {
		raw, ok := v.Desc["guidance"]
		if g, _ := raw.(string); !ok {
			v.skip("no guidance (see L2.descriptor.fields)")
		} else if strings.TrimSpace(g) == "" {
			v.fail("guidance is %s, want a non-empty instruction block", jsonText(raw))
		}
	}, "The guidance field MUST contain a brief instruction block for the AI assistant."},
	{"L2.guidance.template", 2, should, scopeLarge, needCall, func(v *view) {
		g := str(v.Desc["guidance"])
		if _, present := v.Desc["guidance"]; !present {
			v.skip("no guidance (see L2.descriptor.fields)")
			return
		}
		// The count: the summary's or the file's, whichever is right is
		// L1.summary.count's concern.
		var counts []int
		if n, ok := asInt(v.Summary["count"]); ok {
			counts = append(counts, int(n))
		}
		detail := v.Detail
		if v.File != nil {
			counts = append(counts, len(v.File.Lines))
			detail = cmp.Or(detail, str(v.File.Header["detail"]))
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
		p, h := str(v.Desc["file_path"]), str(v.Desc["handle"])
		if p != "" && !strings.Contains(g, p) && (h == "" || !strings.Contains(g, h)) {
			v.fail("guidance does not name the file path (or the handle)")
		}
	}, "Implementations SHOULD use the template (count, tokens, path, detail level); the guidance prompt SHOULD note the active detail level."},
	{"L2.cleanup", 2, must, scopeOnce, 0, checkCleanup,
		"Offloaded JSONL files are ephemeral and MUST be cleaned up after their TTL expires."},
}

// checkCleanup checks L2.cleanup: the planted expired file is deleted
// within CleanupInterval, and the decoy and the files younger than their
// TTL stay.
func checkCleanup(v *view) {
	c := v.c
	within, dir, p := c.srv.CleanupInterval, c.srv.OutputDir, c.planted
	switch {
	case within == 0:
		v.skip("no Config.Server.CleanupInterval: give the TTL and how often the server sweeps its folder")
	case p == nil && dir == "" && c.fetched > 0:
		v.skip("the files were fetched with resources/read from a store, not in a folder of this machine where the kit could plant an expired file; give Config.Server.OutputDir if the kit reaches the store's folder")
	case p == nil && dir == "":
		v.skip("no offloaded file to find the output folder from, and no Config.Server.OutputDir")
	case p == nil: // nothing was offloaded: plant in the configured folder now
		c.plantExpired(dir, c.srv.Operation)
		p = c.planted
	}
	if v.skipped != "" {
		return
	}
	defer p.remove()
	if p.Err != nil {
		v.skip("cannot plant an expired file in the output folder: %v", p.Err)
		return
	}
	if !waitGone(v.ctx, p.Expired, p.At.Add(within)) {
		v.fail("%s, created %s (ULID time and mtime), %s past its TTL of %s, was not deleted within %s",
			p.Expired, p.Created.UTC().Format(time.RFC3339), time.Since(p.Created.Add(c.srv.TTL)).Round(time.Second), c.srv.TTL, within)
	}
	if _, err := os.Lstat(p.Decoy); err != nil {
		v.fail("%s, which is not an offloaded file, was deleted: %v", p.Decoy, err)
	}
	for _, path := range slices.Sorted(maps.Keys(c.local)) {
		if age := time.Since(c.local[path]); age < c.srv.TTL {
			if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
				v.fail("%s was deleted %s after it was written, before its TTL of %s", path, age.Round(time.Millisecond), c.srv.TTL)
			}
		}
	}
}

var scoreRef = regexp.MustCompile(`\.\s*"?score"?\b|\[\s*"score"\s*\]`)

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

// sortedByConfidence checks that recipe 9 printed every one of records,
// or every object among them (the records it can sort), by confidence
// descending.
func (v *view) sortedByConfidence(stdout []byte, path []string, records []any) {
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
	objects := 0
	for _, r := range records {
		if _, ok := r.(map[string]any); ok {
			objects++
		}
	}
	if len(vals) != len(records) && len(vals) != objects {
		v.fail("recipe 9 printed %d values, want all %d records", len(vals), len(records))
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
