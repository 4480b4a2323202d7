package extract

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zircote/lro-go/recipes"
)

// planRecords are records of the shapes recipes meet, most of them memory
// records, and lines that make a needle or a projection unsound if it
// were applied to them: values written with escapes, characters that fold
// to ASCII letters, invalid UTF-8, duplicate keys, fields of other types
// and records that are not objects.
func planRecords() []string {
	namespaces := []string{"_semantic/decisions", "_semantic", "_episodic/sessions", "_procedural/runbooks"}
	types := []string{"semantic", "episodic", "procedural"}
	words := []string{"cache", "Key rotation", "secrets", "deploy", "latency"}
	var out []string
	for i := range 60 {
		rec := map[string]any{
			"id":          fmt.Sprintf("01J%04d", i),
			"title":       fmt.Sprintf("Decision %d: %s for the read path", i, words[i%len(words)]),
			"namespace":   namespaces[i%len(namespaces)],
			"memory_type": types[i%len(types)],
			"tags":        []string{words[(i+1)%len(words)], "team"},
			"content":     "We chose " + words[(i+2)%len(words)] + " after the incident.",
			"created":     fmt.Sprintf("2026-01-%02dT00:00:00Z", 1+i%28),
			"confidence":  float64(i%10) / 10,
			"provenance":  map[string]any{"confidence": float64(i%7) / 7},
		}
		b, _ := json.Marshal(rec)
		out = append(out, string(b))
	}
	return append(out,
		`{"id":"e1","namespace":"_sem\u0061ntic/escaped","title":"Decision 42: c\u0061che","memory_type":"sem\u0061ntic","tags":["c\u0061che"],"content":"deplo\u0079"}`,
		`{"id":"e2","title":"\u212Aey rotation","content":"Clas\u017F"}`,
		`{"id":"u1","title":"Kelvin-sign key rotation","content":"ſecrets kept"}`,
		`{"id":"u2","namespace":"_semantic/ünï","title":"Ünïcode DECISION 42: CACHE","memory_type":"semantic","tags":["cache"]}`,
		"{\"id\":\"b1\",\"namespace\":\"\xff_semantic\",\"title\":\"\xffDecision 42: cache\",\"tags\":[\"\xffcache\"]}",
		`{"id":"d1","namespace":"_episodic","namespace":"_semantic/dup","title":"x","title":"Decision 42: dup","memory_type":"episodic","memory_type":"semantic"}`,
		`{"id":"t1","namespace":5,"title":["Decision 42: cache"],"tags":"cache","memory_type":null,"content":{"a":"cache"}}`,
		`{"id":"t2","tags":{"a":"cache","b":"team"},"namespace":{"x":"_semantic"}}`,
		`  {"id":"w1","namespace":"_semantic/ws","title":"Decision 7: latency"}  `,
		`{}`,
		`"a string record with _semantic and cache"`,
		`42`,
		`[1,"cache",{"namespace":"_semantic"}]`,
		`null`,
		`true`,
	)
}

// planFiles are the files of the plan tests: records, and records followed
// by each kind of invalid line, which must stop every recipe with the
// same error with and without a plan.
func planFiles(t *testing.T, dir string) map[string][]string {
	good := planRecords()
	deep := `{"a":` + strings.Repeat("[", maxDepth) + strings.Repeat("]", maxDepth) + `}`
	files := map[string][]string{"records": good}
	for name, bad := range map[string]string{
		"trailing comma":       `{"namespace":"_x",}`,
		"bad literal":          `{"title":tru}`,
		"control character":    "{\"title\":\"a\x01b\"}",
		"bad escape":           `{"title":"a\qb"}`,
		"nested too deep":      deep,
		"empty line":           ``,
		"text after the value": `{"title":"x"} x`,
		"bad number":           `{"confidence":1.}`,
		"unterminated":         `{"title":"x`,
	} {
		files[name] = append(slices.Clone(good), bad, `{"title":"after"}`)
	}
	return files
}

// writeLines writes an offloaded file of raw record lines.
func writeLines(t *testing.T, dir string, lines []string) string {
	t.Helper()
	path := writeFile(t, dir)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, l := range lines {
		if _, err := f.WriteString(l + "\n"); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// outcome is everything a run shows: its output, counts and error.
type outcome struct {
	Output, FirstErr, Err string
	Records, Errs         int
	Halted                bool
}

// runPlanned runs recipe r over the file at path with the given params,
// with its plan or, if whole, on whole records. It returns what the run
// shows.
func runPlanned(t *testing.T, c *config, path string, r recipes.Recipe, params map[string]json.RawMessage, whole bool) (outcome, plan) {
	t.Helper()
	p, err := recipeProgram(r, params)
	if err != nil {
		t.Fatal(err)
	}
	if whole {
		p.plan = plan{}
	}
	src, err := c.openSource(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var res *results
	err = c.limited(context.Background(), src, func(ctx context.Context) error {
		var err error
		res, err = c.run(ctx, src, p, nil)
		return err
	})
	var o outcome
	if err != nil {
		o.Err = err.Error()
	}
	if res == nil {
		return o, p.plan
	}
	o.Output, o.FirstErr, o.Records, o.Errs, o.Halted = res.output(), res.firstErr, res.records, res.errs, res.halted
	return o, p.plan
}

// planValues are parameter values tried on every parameterized recipe:
// values that select some records, none, records only through escapes or
// case folding, and values that cannot have a needle.
var planValues = []string{
	"_semantic", "_semantic/dup", "_semantic/escaped", "_semantic/ünï", "_procedural/runbooks/none",
	"semantic", "episodic", "cache", "CACHE", "team",
	"Decision 42:", "decision 7", "key", "KEY", "secrets", "s", "S", "ſ", "k", "42", "Decision",
	"", "a\"b", `\`, "\ufffd_semantic", "(", "ca.he", "none at all", "Ünïcode",
}

// TestPlanKeepsResults runs every recipe of several libraries with each of
// planValues over records that challenge the plans, with and without its
// plan, and wants the same output, counts and errors; then over files with
// an invalid line, which must stop the run with the same error.
func TestPlanKeepsResults(t *testing.T) {
	dir := t.TempDir()
	c, err := newConfig(&Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	good := planRecords()
	sample := make([]json.RawMessage, 0, recipes.SampleSize)
	for _, l := range good[:recipes.SampleSize] {
		sample = append(sample, json.RawMessage(l))
	}
	var textSample []json.RawMessage
	for i := range recipes.SampleSize {
		textSample = append(textSample, json.RawMessage(fmt.Sprintf(`{"line":%d,"text":"ERROR cache %d"}`, i+1, i)))
	}
	libraries := map[string][]recipes.Recipe{
		"memory light":  recipes.Memory(recipes.Light, sample),
		"memory medium": recipes.Memory(recipes.Medium, sample),
		"memory full":   recipes.Memory(recipes.Full, sample),
		"generic":       recipes.Generic(sample),
		"text lines":    recipes.Generic(textSample),
	}
	projected := 0
	for name, lines := range planFiles(t, dir) {
		path := writeLines(t, dir, lines)
		for lib, rs := range libraries {
			for _, r := range rs {
				sets := []map[string]json.RawMessage{nil}
				if len(r.Params) > 0 && name == "records" {
					for _, v := range planValues {
						set := map[string]json.RawMessage{}
						for _, p := range r.Params {
							set[p.Name], _ = json.Marshal(v)
						}
						sets = append(sets, set)
					}
				}
				for _, set := range sets {
					got, pl := runPlanned(t, c, path, r, set, false)
					want, _ := runPlanned(t, c, path, r, set, true)
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("%s, %s, recipe %d %s with %s: the plan changes the result (-whole +planned):\n%s", name, lib, r.Number, r.Filter, set, diff)
					}
					if name != "records" && want.Err == "" {
						t.Errorf("%s, %s, recipe %d: no error on an invalid line", name, lib, r.Number)
					}
					if pl.fields != nil && want.Err == "" {
						projected++
					}
				}
			}
		}
	}
	if projected == 0 {
		t.Error("no projected run: the plans were not exercised")
	}
}

// TestPlanFor names the recipes that have a plan, so that a change of their
// text (which makes the plan silently not apply) is seen.
func TestPlanFor(t *testing.T) {
	sample := []json.RawMessage{json.RawMessage(`{"id":"1","title":"Cache keys","namespace":"_semantic/a","memory_type":"semantic","tags":["x"],"content":"a cache","confidence":0.5}`)}
	kind := func(p plan) string {
		switch {
		case p.fields != nil:
			return "fields " + strings.Join(p.fields, ",")
		}
		return ""
	}
	plans := func(rs []recipes.Recipe, value string) map[int]string {
		out := map[int]string{}
		for _, r := range rs {
			var params map[string]json.RawMessage
			if len(r.Params) > 0 {
				params = map[string]json.RawMessage{}
				for _, p := range r.Params {
					params[p.Name], _ = json.Marshal(value)
				}
			}
			p, err := recipeProgram(r, params)
			if err != nil {
				t.Fatal(err)
			}
			if k := kind(p.plan); k != "" {
				out[r.Number] = k
			}
		}
		return out
	}
	tests := []struct {
		name  string
		rs    []recipes.Recipe
		value string
		want  map[int]string
	}{
		{"memory full", recipes.Memory(recipes.Full, sample), "cache", map[int]string{
			1: "fields title,namespace", 4: "fields id,title,namespace", 6: "fields namespace",
		}},
		{"memory light: recipes 9 and 10 list namespaces and count types", recipes.Memory(recipes.Light, sample), "cache", map[int]string{
			1: "fields title,namespace", 4: "fields id,title,namespace",
			6: "fields namespace", 9: "fields namespace", 10: "fields memory_type",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, plans(tt.rs, tt.value)); diff != "" {
				t.Errorf("plans (-want +got):\n%s", diff)
			}
		})
	}
}
