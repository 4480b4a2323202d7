package extract

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/itchyny/gojq"

	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/internal/describe"
	"github.com/zircote/lro-go/lro/internal/offload"
	"github.com/zircote/lro-go/recipes"
)

// planRecords are records of the shapes recipes meet, most of them memory
// records, and lines that make a needle or a projection unsound if it
// were applied to them: values written with escapes, characters that fold
// to ASCII letters, invalid UTF-8, duplicate keys, fields of other types
// and records that are not objects.
// library returns the recipes recipes.Select gives for sample.
func library(detail recipes.Detail, sample []json.RawMessage) []describe.Recipe {
	rs, _ := recipes.Select(detail, sample)
	return describe.Recipes(rs)
}

// withoutMemoryType returns the object records of sample without their
// memory_type, which makes them other records than memories: recipes.Select
// derives the generic library from their fields.
func withoutMemoryType(sample []json.RawMessage) []json.RawMessage {
	out := make([]json.RawMessage, 0, len(sample))
	for _, rec := range sample {
		var o map[string]any
		if json.Unmarshal(rec, &o) == nil {
			delete(o, "memory_type")
			rec, _ = json.Marshal(o)
		}
		out = append(out, rec)
	}
	return out
}

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
// shows and the number of records the plan skipped.
func runPlanned(t *testing.T, c *config, path string, r describe.Recipe, params map[string]json.RawMessage, whole bool) (outcome, int, plan) {
	t.Helper()
	p, err := recipeProgram(r, params)
	if err != nil {
		t.Fatal(err)
	}
	if whole {
		p.plan = plan{}
	}
	var res *results
	err = c.withSource(context.Background(), ref{argFilePath, path}, func(ctx context.Context, src *source) error {
		var err error
		res, err = c.run(ctx, src, p)
		return err
	})
	var o outcome
	if err != nil {
		o.Err = err.Error()
	}
	if res == nil {
		return o, 0, p.plan
	}
	o.Output, o.FirstErr, o.Records, o.Errs, o.Halted = res.output(), res.FirstErr, res.Records, res.Errs, res.Halted
	return o, res.Skipped, p.plan
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
	c, err := newConfig(&Options{LRO: &lro.Options{OutputDir: dir}})
	if err != nil {
		t.Fatal(err)
	}
	good := planRecords()
	sample := make([]json.RawMessage, 0, offload.SampleSize)
	for _, l := range good[:offload.SampleSize] {
		sample = append(sample, json.RawMessage(l))
	}
	var textSample []json.RawMessage
	for i := range offload.SampleSize {
		textSample = append(textSample, json.RawMessage(fmt.Sprintf(`{"line":%d,"text":"ERROR cache %d"}`, i+1, i)))
	}
	libraries := map[string][]describe.Recipe{
		"memory light":  library(recipes.Light, sample),
		"memory medium": library(recipes.Medium, sample),
		"memory full":   library(recipes.Full, sample),
		"generic":       library(recipes.Full, withoutMemoryType(sample)),
		"text lines":    library(recipes.Full, textSample),
	}
	skipped, projected := 0, 0
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
					got, n, pl := runPlanned(t, c, path, r, set, false)
					want, _, _ := runPlanned(t, c, path, r, set, true)
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("%s, %s, recipe %d %s with %s: the plan changes the result (-whole +planned):\n%s", name, lib, r.Number, r.Filter, set, diff)
					}
					if name != "records" && want.Err == "" {
						t.Errorf("%s, %s, recipe %d: no error on an invalid line", name, lib, r.Number)
					}
					skipped += n
					if pl.fields != nil && want.Err == "" {
						projected++
					}
				}
			}
		}
	}
	// The comparison must have exercised both kinds of plan.
	if skipped == 0 || projected == 0 {
		t.Errorf("%d records skipped and %d projected runs: the plans were not exercised", skipped, projected)
	}
}

// TestPlanFor names the recipes that have a plan, so that a change of their
// text (which makes the plan silently not apply) is seen.
func TestPlanFor(t *testing.T) {
	sample := []json.RawMessage{json.RawMessage(`{"id":"1","title":"Cache keys","namespace":"_semantic/a","memory_type":"semantic","tags":["x"],"content":"a cache","confidence":0.5}`)}
	textSample := []json.RawMessage{json.RawMessage(`{"line":1,"text":"ERROR disk"}`), json.RawMessage(`{"line":2,"text":"INFO ok"}`)}
	objectSample := []json.RawMessage{
		json.RawMessage(`{"name":"a","note":"a long remark about the delivery of the order","status":"paid"}`),
		json.RawMessage(`{"name":"b","note":"another long remark about the refund of it","status":"paid"}`),
	}
	kind := func(p plan) string {
		switch {
		case p.fields != nil:
			return "fields " + strings.Join(p.fields, ",")
		case p.fold && p.asciiLine:
			return fmt.Sprintf("fold %q on ASCII lines", p.needle)
		case p.fold:
			return fmt.Sprintf("fold %q", p.needle)
		case p.needle != nil:
			return fmt.Sprintf("needle %q", p.needle)
		}
		return ""
	}
	plans := func(rs []describe.Recipe, value string) map[int]string {
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
		rs    []describe.Recipe
		value string
		want  map[int]string
	}{
		{"memory full: projections and needles", library(recipes.Full, sample), "cache", map[int]string{
			1: "fields title,namespace", 2: `needle "\"cache"`, 3: `fold "cache"`, 4: "fields id,title,namespace",
			5: `needle "\"cache\""`, 6: "fields namespace", 7: `needle "\"cache\""`, 10: `fold "cache"`,
		}},
		{"memory light: recipes 9 and 10 list namespaces and count types", library(recipes.Light, sample), "cache", map[int]string{
			1: "fields title,namespace", 2: `needle "\"cache"`, 3: `fold "cache"`, 4: "fields id,title,namespace",
			5: `needle "\"cache\""`, 6: "fields namespace", 7: `needle "\"cache\""`, 9: "fields namespace", 10: "fields memory_type",
		}},
		{"a keyword with k or s folds to non-ASCII characters", library(recipes.Full, sample), "Keys", map[int]string{
			1: "fields title,namespace", 2: `needle "\"Keys"`, 3: `fold "Keys" on ASCII lines`, 4: "fields id,title,namespace",
			5: `needle "\"Keys\""`, 6: "fields namespace", 7: `needle "\"Keys\""`, 10: `fold "Keys" on ASCII lines`,
		}},
		{"no needle for a regular expression, an empty value or U+FFFD", library(recipes.Full, sample), "ca.he", map[int]string{
			1: "fields title,namespace", 2: `needle "\"ca.he"`, 4: "fields id,title,namespace",
			5: `needle "\"ca.he\""`, 6: "fields namespace", 7: `needle "\"ca.he\""`,
		}},
		{"empty value", library(recipes.Full, sample), "", map[int]string{
			1: "fields title,namespace", 4: "fields id,title,namespace", 6: "fields namespace",
		}},
		{"generic text lines: the grep recipe", library(recipes.Full, textSample), "error", map[int]string{2: `fold "error"`}},
		{"generic objects: the lookup by identifier and the keyword search", library(recipes.Full, objectSample), "refund", map[int]string{3: `needle "\"refund\""`, 4: `fold "refund"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, plans(tt.rs, tt.value)); diff != "" {
				t.Errorf("plans (-want +got):\n%s", diff)
			}
		})
	}
}

func TestIndexFold(t *testing.T) {
	tests := []struct {
		name, s, k string
		want       int
	}{
		{"exact", "abc Decision 42: x", "Decision 42:", 4},
		{"other case", "abc DECISION 42: x", "decision 42:", 4},
		{"anchor on a digit near the start", "42 Decision 42:", "Decision 42:", 3},
		{"all letters, first letter repeated", "ddDdx dDX", "ddx", 2},
		{"absent", "Decision 41:", "Decision 42:", -1},
		{"cut at the end", "Decision 4", "Decision 42", -1},
		{"anchor would start before the text", "2: a", "42:", -1},
		{"space first", "a  b", " b", 2},
		{"empty keyword", "abc", "", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := indexFold([]byte(tt.s), []byte(tt.k)); got != tt.want {
				t.Errorf("indexFold(%q, %q) = %d, want %d", tt.s, tt.k, got, tt.want)
			}
		})
	}
}

// planShapes are the shapes of select filters that admit a needle, as
// recipes write them.
var planShapes = []string{
	`select(.f | strings | startswith($v))`,
	`select(.f == $v)`,
	`select(any(.f[]?; . == $v))`,
	`objects | select(.["f g"] | strings | test($v; "i")) | "\(.f)"`,
}

// FuzzPlanSkips checks the claim of every needle: when a plan skips a
// line, gojq running the filter on the line's record outputs nothing and
// raises no error.
func FuzzPlanSkips(f *testing.F) {
	for _, s := range []struct {
		line, value string
		shape       uint8
	}{
		{`{"f":"abc"}`, "ab", 0},
		{`{"f":"a\u0062c"}`, "ab", 0},
		{`{"f":"abc","f":"xyz"}`, "xy", 1},
		{`{"f":["x","abc"]}`, "abc", 2},
		{`{"f":{"k":"abc"}}`, "abc", 2},
		{`{"f g":"Kelvin"}`, "kelvin", 3},
		{`{"f g":"Kelvin"}`, "kelvin", 3},
		{`{"f g":"ſecret"}`, "secret", 3},
		{"{\"f\":\"\xffab\"}", "\ufffdab", 0},
		{`"abc"`, "x", 0},
		{`{"f":1}`, "1", 1},
	} {
		f.Add([]byte(s.line), s.value, s.shape)
	}
	codes := make([]*gojq.Code, len(planShapes))
	for i, s := range planShapes {
		q, err := gojq.Parse(s)
		if err != nil {
			f.Fatal(err)
		}
		if codes[i], err = gojq.Compile(q, gojq.WithVariables([]string{"$v"})); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, line []byte, value string, shape uint8) {
		if len(line) > 1<<12 || bytes.ContainsAny(line, "\n") {
			return
		}
		i := int(shape) % len(planShapes)
		p := planSelect(planShapes[i], []string{"$v"}, []any{value})
		d := newDecoder()
		if !p.skips(line, d) {
			return
		}
		v, err := d.decode(line)
		if err != nil {
			t.Fatalf("skipped %q, which is not valid: %v", line, err)
		}
		iter := codes[i].Run(v, value)
		if out, ok := iter.Next(); ok {
			t.Fatalf("skipped %q, on which %s with $v=%q gives %v", line, planShapes[i], value, out)
		}
	})
}

// TestRecordsPrintedAsWritten: a record that a query outputs unchanged is
// printed as the file holds it (its key order, spacing, numbers and
// escapes), whether the query runs on each record or on the slurped array;
// a changed record is encoded.
func TestRecordsPrintedAsWritten(t *testing.T) {
	dir := t.TempDir()
	first, second := `{"b":2,"a":1.50,"s":"\u00e9"}`, `{"a":0.5, "b":1}`
	path := writeLines(t, dir, []string{first, second})
	c, err := newConfig(&Options{LRO: &lro.Options{OutputDir: dir}})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		reason, query string
		slurp         bool
		want          string
	}{
		{"each record as it is", ".", false, first + "\n" + second},
		{"the slurped records in another order", "sort_by(.a) | .[]", true, second + "\n" + first},
		{"a slurped record changed", ".[1] | .c = 3", true, `{"a":0.5,"b":1,"c":3}`},
		{"a record changed", "select(.b == 1) | del(.b)", false, `{"a":0.5}`},
	}
	for _, tt := range tests {
		q, err := gojq.Parse(tt.query)
		if err != nil {
			t.Fatal(err)
		}
		var got string
		err = c.withSource(context.Background(), ref{argFilePath, path}, func(ctx context.Context, src *source) error {
			res, err := c.run(ctx, src, &program{query: q, slurp: tt.slurp})
			if err == nil {
				got = res.output()
			}
			return err
		})
		if err != nil || got != tt.want {
			t.Errorf("%s: %s printed %q, %v; want %q", tt.reason, tt.query, got, err, tt.want)
		}
	}
}

// TestWrapperFunctionsOfTheOtherMode checks that a query cannot call the
// function the other mode's wrapper calls: it does not compile.
func TestWrapperFunctionsOfTheOtherMode(t *testing.T) {
	dir := t.TempDir()
	path := writeLines(t, dir, []string{`{"a":1}`, `{"a":2}`})
	c, err := newConfig(&Options{LRO: &lro.Options{OutputDir: dir}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		query string
		slurp bool
	}{{fnAll, false}, {fnFailed, true}} {
		q, err := gojq.Parse(tt.query)
		if err != nil {
			t.Fatal(err)
		}
		err = c.withSource(context.Background(), ref{argFilePath, path}, func(ctx context.Context, src *source) error {
			_, err := c.run(ctx, src, &program{query: q, slurp: tt.slurp})
			return err
		})
		if err == nil || !strings.Contains(err.Error(), "function not defined") {
			t.Errorf("%s with slurp %v: err %v, want it not to compile", tt.query, tt.slurp, err)
		}
	}
}
