package extract_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/zircote/lro-go/lro"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/testing/sidebyside"
	"github.com/zircote/lro-go/lro/extract"
)

// TestWhereAggregateTask is the paper's aggregate-filter task ("how many
// memories in namespace X have confidence Y or higher and mention product
// Z?"), which models failed to write in jq, as one call with no jq at all,
// checked against the answer computed in Go.
func TestWhereAggregateTask(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 15))
	namespaces := []string{"_semantic/decisions", "_semantic", "_episodic/sessions", "_procedural/runbooks", "_semantics-old"}
	products := []string{"Postgres", "Redis", "Kafka", "postgresql", "POSTGRES 16"}
	records := make([]any, 2000)
	want := 0
	for i := range records {
		ns := namespaces[r.IntN(len(namespaces))]
		conf := float64(r.IntN(101)) / 100
		content := fmt.Sprintf("Run %d moved %s traffic to %s.", i, products[r.IntN(len(products))], products[r.IntN(len(products))])
		records[i] = map[string]any{
			"id":         fmt.Sprintf("m%04d", i),
			"namespace":  ns,
			"title":      fmt.Sprintf("Decision %d", i),
			"content":    content,
			"provenance": map[string]any{"confidence": conf, "trust_level": "verified"},
		}
		if (ns == "_semantic" || strings.HasPrefix(ns, "_semantic/")) && conf >= 0.8 && strings.Contains(strings.ToLower(content), "postgres") {
			want++
		}
	}
	if want < 20 {
		t.Fatalf("the generated file has only %d matches; the test would prove little", want)
	}
	dir := t.TempDir()
	path := offload(t, dir, "full", records)
	cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir}})
	// A namespace and its sub-namespaces: the namespace itself, or a
	// prefix ending in a slash; the two conditions on one field are
	// written as matches.
	texts, isErr := call(t, cs, extract.ToolExtract, map[string]any{
		"file_path": path,
		"where": map[string]any{
			"namespace":             map[string]any{"matches": "^_semantic(/|$)"},
			"provenance.confidence": map[string]any{"gte": 0.8},
			"content":               map[string]any{"contains": "postgres"},
		},
		"count": true,
	})
	if isErr {
		t.Fatal(texts)
	}
	if got := strings.TrimSpace(texts[0]); got != strconv.Itoa(want) {
		t.Errorf("count = %s, want %d", got, want)
	}
}

// whereRecords are the records of the operator tests.
var whereRecords = []any{
	map[string]any{"id": "a", "name": "Alpha", "n": 1, "tags": []any{"x", "y"}, "labels": []any{map[string]any{"name": "bug"}, map[string]any{"name": "ui"}},
		"meta": map[string]any{"score": 0.9, "when": "2026-01-02"}, "flag": true},
	map[string]any{"id": "b", "name": "beta", "n": 2, "tags": []any{"y"}, "labels": []any{map[string]any{"name": "docs"}},
		"meta": map[string]any{"score": 0.5, "when": "2026-02-01"}, "flag": false},
	map[string]any{"id": "c", "name": "Gamma ray", "n": "3", "tags": []any{}, "meta": nil},
	map[string]any{"id": "d", "name": "a.b", "n": 10.5, "dotted.key": 1},
	// Names and values a program built by splicing would run.
	map[string]any{"id": "h", "name": `") | halt_error("x`, `$__loc__`: `\(1+1)`, `]) | env`: `a\"b\\`, "q": `'"`},
}

// whereIDs runs a where filter (JSON text) over the file at path and
// returns the ids of the matching records, in file order, or the text of
// the tool error.
func whereIDs(t *testing.T, cs *mcp.ClientSession, path, where string) (ids []string, toolErr string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(where), &w); err != nil {
		t.Fatal(err)
	}
	texts, isErr := call(t, cs, extract.ToolExtract, map[string]any{"file_path": path, "where": w, "fields": []string{"id"}})
	if isErr {
		return nil, texts[0]
	}
	ids = []string{}
	if strings.HasPrefix(texts[0], "No results") {
		return ids, ""
	}
	for _, l := range lines(texts[0]) {
		var rec struct{ ID string }
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		ids = append(ids, rec.ID)
	}
	return ids, ""
}

// TestWhereOperators checks each operator, arrays, paths and the joining
// of conditions.
func TestWhereOperators(t *testing.T) {
	dir := t.TempDir()
	path := offload(t, dir, "full", whereRecords)
	cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir}})
	tests := []struct {
		reason, where string
		want          []string
	}{
		{"a plain value is equality", `{"id": "b"}`, []string{"b"}},
		{"equality of numbers", `{"n": 2}`, []string{"b"}},
		{"eq, and 2.0 equals 2", `{"n": {"eq": 2.0}}`, []string{"b"}},
		{"a string is not a number", `{"n": 3}`, []string{}},
		{"a string equals a string", `{"n": "3"}`, []string{"c"}},
		{"a boolean", `{"flag": false}`, []string{"b"}},
		{"eq with an object", `{"meta": {"eq": {"score": 0.5, "when": "2026-02-01"}}}`, []string{"b"}},
		{"prefix", `{"name": {"prefix": "Al"}}`, []string{"a"}},
		{"prefix is case-sensitive", `{"name": {"prefix": "al"}}`, []string{}},
		{"contains ignores case", `{"name": {"contains": "AMMA R"}}`, []string{"c"}},
		{"contains is literal, not a regular expression", `{"name": {"contains": "."}}`, []string{"d"}},
		{"contains on a number finds nothing", `{"n": {"contains": "1"}}`, []string{}},
		{"matches", `{"name": {"matches": "^[ab]"}}`, []string{"b", "d"}},
		{"matches is case-sensitive unless told", `{"name": {"matches": "(?i)^a"}}`, []string{"a", "d"}},
		{"gt compares numbers with numbers only", `{"n": {"gt": 1}}`, []string{"b", "d"}},
		{"gte", `{"n": {"gte": 2}}`, []string{"b", "d"}},
		{"lt", `{"n": {"lt": 2}}`, []string{"a"}},
		{"lte", `{"n": {"lte": 2}}`, []string{"a", "b"}},
		{"two operators on one field", `{"n": {"gt": 1, "lt": 10}}`, []string{"b"}},
		{"strings compare as text, as dates do", `{"meta.when": {"gte": "2026-02"}}`, []string{"b"}},
		{"a string bound compares strings only", `{"n": {"lt": "4"}}`, []string{"c"}},
		{"in", `{"id": {"in": ["a", "c", "zz"]}}`, []string{"a", "c"}},
		{"in with numbers", `{"n": {"in": [1, 10.5]}}`, []string{"a", "d"}},
		{"in with no values", `{"n": {"in": []}}`, []string{}},
		{"a nested field", `{"meta.score": {"gte": 0.6}}`, []string{"a"}},
		{"any element of an array", `{"tags": "y"}`, []string{"a", "b"}},
		{"a field of the objects of an array", `{"labels.name": "bug"}`, []string{"a"}},
		{"in over an array field", `{"labels.name": {"in": ["docs", "ui"]}}`, []string{"a", "b"}},
		{"the whole array", `{"tags": ["x", "y"]}`, []string{"a"}},
		{"an empty array", `{"tags": []}`, []string{"c"}},
		{"a missing field is null", `{"tags": null}`, []string{"d", "h"}},
		{"a field under null or missing is null", `{"meta.score": null}`, []string{"c", "d", "h"}},
		{"a path through a string finds nothing", `{"name.x": "y"}`, []string{}},
		{"conditions are all required", `{"tags": "y", "n": {"gte": 2}}`, []string{"b"}},
		{"no conditions: every record", `{}`, []string{"a", "b", "c", "d", "h"}},
		{"a dot always separates fields", `{"dotted.key": 1}`, []string{}},
		// Hostile names and values are only names and values.
		{"jq syntax in a value", `{"name": "\") | halt_error(\"x"}`, []string{"h"}},
		{"jq syntax in a prefix", `{"name": {"prefix": "\") | halt"}}`, []string{"h"}},
		{"$__loc__ as a field name, interpolation as a value", `{"$__loc__": "\\(1+1)"}`, []string{"h"}},
		{"a field name that is a jq program", `{"]) | env": "a\\\"b\\\\"}`, []string{"h"}},
		{"quotes", `{"q": "'\""}`, []string{"h"}},
		{"a value that looks like a variable", `{"name": "$__loc__"}`, []string{}},
		{"jq syntax in a regular expression", `{"name": {"matches": "\\) \\| halt"}}`, []string{"h"}},
		{"jq syntax in a field path", `{"a\"]) | halt_error(\"x.b": 1}`, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			got, errText := whereIDs(t, cs, path, tc.where)
			if errText != "" {
				t.Fatalf("where %s: tool error %q", tc.where, errText)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("where %s (-want +got):\n%s", tc.where, diff)
			}
		})
	}
}

// TestWhereOutput checks the three forms of the answer: whole records as
// the file holds them, fields, and the count.
func TestWhereOutput(t *testing.T) {
	dir := t.TempDir()
	path := offload(t, dir, "full", whereRecords)
	cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir}})
	file := fileLines(t, path)
	texts, isErr := call(t, cs, extract.ToolExtract, map[string]any{"file_path": path, "where": map[string]any{"tags": "y"}})
	if isErr {
		t.Fatal(texts)
	}
	if diff := cmp.Diff([]string{string(file[0]), string(file[1])}, lines(texts[0])); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	texts, isErr = call(t, cs, extract.ToolExtract, map[string]any{"file_path": path, "where": map[string]any{"tags": "y"}, "count": true})
	if isErr || texts[0] != "2\n" && texts[0] != "2" {
		t.Errorf("count: %v %q", isErr, texts)
	}
	texts, isErr = call(t, cs, extract.ToolExtract, map[string]any{"file_path": path, "where": map[string]any{"nothing": "here"}, "count": true})
	if isErr || strings.TrimSpace(texts[0]) != "0" {
		t.Errorf("count of none: %v %q", isErr, texts)
	}
	texts, isErr = call(t, cs, extract.ToolExtract, map[string]any{"file_path": path, "where": map[string]any{"id": "a"},
		"fields": []string{"id", "meta.score", "labels.name", "missing"}})
	if isErr {
		t.Fatal(texts)
	}
	if diff := cmp.Diff([]string{`{"id":"a","labels.name":["bug","ui"],"meta.score":0.9,"missing":null}`}, lines(texts[0])); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
}

// TestWhereErrors checks that every mistake is a tool error that names it.
func TestWhereErrors(t *testing.T) {
	dir := t.TempDir()
	path := offload(t, dir, "full", whereRecords)
	cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir}})
	where := map[string]any{"id": "a"}
	tests := []struct {
		reason string
		args   map[string]any
		want   string
	}{
		{"where and recipe", map[string]any{"where": where, "recipe": 1}, "give one of recipe, query and where"},
		{"where and query", map[string]any{"where": where, "query": "."}, "give one of recipe, query and where"},
		{"count without where", map[string]any{"query": ".", "count": true}, "count and fields apply to where"},
		{"fields without where", map[string]any{"recipe": 1, "fields": []string{"id"}}, "count and fields apply to where"},
		{"params with where", map[string]any{"where": where, "params": map[string]any{"x": 1}}, "params applies to a recipe or a query"},
		{"slurp with where", map[string]any{"where": where, "slurp": true}, "slurp applies to a recipe or a query"},
		{"raw with where", map[string]any{"where": where, "raw": true}, "raw applies to a recipe or a query"},
		{"where is not an object", map[string]any{"where": []any{"id"}}, "where must be a JSON object"},
		{"unknown operator", map[string]any{"where": map[string]any{"n": map[string]any{"gtt": 1}}}, `where "n": unknown operator "gtt"`},
		{"no operators", map[string]any{"where": map[string]any{"n": map[string]any{}}}, `where "n": an empty object`},
		{"prefix of a number", map[string]any{"where": map[string]any{"n": map[string]any{"prefix": 1}}}, "the value of prefix must be a string, not a number"},
		{"contains of null", map[string]any{"where": map[string]any{"n": map[string]any{"contains": nil}}}, "the value of contains must be a string, not null"},
		{"matches of an array", map[string]any{"where": map[string]any{"n": map[string]any{"matches": []any{}}}}, "the value of matches must be a string"},
		{"gt of a boolean", map[string]any{"where": map[string]any{"n": map[string]any{"gt": true}}}, "the value of gt must be a number or a string, not a boolean"},
		{"lte of an object", map[string]any{"where": map[string]any{"n": map[string]any{"lte": map[string]any{}}}}, "the value of lte must be a number or a string, not an object"},
		{"in of a string", map[string]any{"where": map[string]any{"n": map[string]any{"in": "x"}}}, "the value of in must be an array of values, not a string"},
		{"an empty path", map[string]any{"where": map[string]any{"": 1}}, "where: a field path is empty"},
		{"an empty part", map[string]any{"where": map[string]any{"a..b": 1}}, `field path "a..b" has an empty part`},
		{"a leading dot", map[string]any{"where": map[string]any{".a": 1}}, `field path ".a" has an empty part`},
		{"a trailing dot", map[string]any{"where": map[string]any{"a.": 1}}, `field path "a." has an empty part`},
		{"a bad regular expression", map[string]any{"where": map[string]any{"n": map[string]any{"matches": "("}}}, "the value of matches is not a valid regular expression (RE2 syntax)"},
		{"a look-around", map[string]any{"where": map[string]any{"n": map[string]any{"matches": "a(?=b)"}}}, "not a valid regular expression"},
		{"count not a boolean", map[string]any{"where": where, "count": "yes"}, "count must be true or false"},
		{"fields not an array", map[string]any{"where": where, "fields": "id"}, "fields must be an array of field paths"},
		{"fields of numbers", map[string]any{"where": where, "fields": []any{1}}, "fields must be an array of field paths"},
		{"fields empty", map[string]any{"where": where, "fields": []string{}}, "fields is empty"},
		{"a field path empty", map[string]any{"where": where, "fields": []string{"id", ""}}, "fields: a field path is empty"},
		{"count and fields", map[string]any{"where": where, "count": true, "fields": []string{"id"}}, "give count or fields, not both"},
		{"where too large", map[string]any{"where": map[string]any{"id": strings.Repeat("x", 70<<10)}}, "where is"},
		{"nothing to run", map[string]any{}, "where (conditions on fields)"},
	}
	for _, tc := range tests {
		t.Run(tc.reason, func(t *testing.T) {
			tc.args["file_path"] = path
			texts, isErr := call(t, cs, extract.ToolExtract, tc.args)
			if !isErr || !strings.Contains(texts[0], tc.want) {
				t.Errorf("%v: got %v %q, want a tool error containing %q", tc.args, isErr, texts, tc.want)
			}
		})
	}
}

// TestWhereLimits: a where filter runs in the worker under the call's
// limits, like a query.
func TestWhereLimits(t *testing.T) {
	dir := t.TempDir()
	path := offload(t, dir, "full", memories(50, "full"))
	cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir}, MaxOutputBytes: 4096})
	texts, isErr := call(t, cs, extract.ToolExtract, map[string]any{"file_path": path, "where": map[string]any{}})
	if !isErr || !slices.ContainsFunc(texts, func(s string) bool { return strings.Contains(s, "MaxOutputBytes") }) {
		t.Errorf("50 records with MaxOutputBytes 4096: %v %.300q", isErr, texts)
	}
}

// BenchmarkWhereVsQuery runs where filters through lro_extract side by
// side with the jq queries a model would have to write for the same answer,
// on the 10,000-record full-detail file of the other benchmarks: what the
// fixed program's generality costs.
func BenchmarkWhereVsQuery(b *testing.B) {
	dir := b.TempDir()
	path, _ := benchFile(b, dir)
	cs := session(b, &extract.Options{LRO: &lro.Options{OutputDir: dir}})
	cond := map[string]any{
		"namespace":             map[string]any{"prefix": "_semantic"},
		"provenance.confidence": map[string]any{"gte": 0.8},
		"content":               map[string]any{"contains": "STALE READS"},
	}
	const sel = `select((.namespace | startswith("_semantic")) and .provenance.confidence >= 0.8 and (.content | test("STALE READS"; "i")))`
	for _, tc := range []struct {
		name      string
		where, jq map[string]any
	}{
		{"count", map[string]any{"where": cond, "count": true}, map[string]any{"query": "map(" + sel + ") | length", "slurp": true}},
		{"fields", map[string]any{"where": cond, "fields": []string{"id", "title"}}, map[string]any{"query": sel + " | {id, title}"}},
		{"tag", map[string]any{"where": map[string]any{"tags": "team-3"}, "fields": []string{"id"}}, map[string]any{"query": `select(any(.tags[]; . == "team-3")) | {id}`}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			arm := func(args map[string]any) func() {
				args["file_path"] = path
				return func() {
					res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: extract.ToolExtract, Arguments: args})
					if err != nil || res.IsError {
						b.Fatalf("lro_extract failed: %v %v", err, res)
					}
				}
			}
			sidebyside.Run(b, sidebyside.Arm{Name: "where", Run: arm(tc.where)}, sidebyside.Arm{Name: "query", Run: arm(tc.jq)})
			cleanExtracts(b, dir, path)
		})
	}
}

// TestWhereAbsentField checks that a where filter that matches nothing says
// which of its fields no record has a value at, and only those, counting or
// not; and that a filter that matches nothing on fields the records have
// gets no such note.
func TestWhereAbsentField(t *testing.T) {
	dir := t.TempDir()
	path := offload(t, dir, "full", whereRecords)
	cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir}})
	tests := []struct {
		name  string
		where map[string]any
		count bool
		note  string // "" for none
	}{
		{"misplaced field, count", map[string]any{"score": map[string]any{"gte": 0.8}}, true, "No record has a value at score:"},
		{"two absent, one present", map[string]any{"nothing": "here", "id": "a", "meta.nope": 1}, false, "No record has a value at meta.nope, nothing:"},
		{"nested field present", map[string]any{"meta.score": map[string]any{"gt": 100}}, true, ""},
		{"array field present", map[string]any{"labels.name": "none"}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := map[string]any{"file_path": path, "where": tt.where}
			if tt.count {
				args["count"] = true
			}
			texts, isErr := call(t, cs, extract.ToolExtract, args)
			if isErr {
				t.Fatal(texts)
			}
			all := strings.Join(texts, "\n")
			if tt.note == "" {
				if strings.Contains(all, "No record has a value") {
					t.Errorf("a note for fields the records have: %q", all)
				}
				return
			}
			if !strings.Contains(all, tt.note) {
				t.Errorf("answer %q lacks %q", all, tt.note)
			}
		})
	}
}

// TestWherePreview filters records of about 3 KB, as a code-hosting REST
// API returns issues, without fields: the matches do not fit inline, so
// they are offloaded, and the answer leads with their number and the
// fields that identify the first ones (number and title), and says how to
// get other fields inline.
func TestWherePreview(t *testing.T) {
	body := strings.Repeat("Steps to reproduce: run the server under load and watch the logs. ", 40)
	records := make([]any, 200)
	for i := range records {
		n := 1000 + i
		records[i] = map[string]any{
			"url": fmt.Sprintf("https://api.github.com/repos/o/r/issues/%d", n), "id": 2000000 + 7*n, "number": n,
			"title": fmt.Sprintf("Crash number %d under load", i), "state": []string{"open", "closed"}[i%2],
			"user": map[string]any{"login": "octocat", "id": 1}, "comments": i % 7, "body": body,
			"created_at": fmt.Sprintf("2025-01-%02dT10:00:00Z", 1+i%28), "locked": false, "active_lock_reason": nil,
		}
	}
	dir := t.TempDir()
	path := offload(t, dir, "full", records)
	cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir}})
	texts, isErr := call(t, cs, extract.ToolExtract, map[string]any{
		"file_path": path,
		"where":     map[string]any{"state": "open"},
	})
	if isErr {
		t.Fatal(texts)
	}
	lead := texts[0]
	for _, want := range []string{"100 records match", `"number":1000`, `"title":"Crash number 0 under load"`, "fields="} {
		if !strings.Contains(lead, want) {
			t.Errorf("the answer does not lead with %q:\n%s", want, lead)
		}
	}
	if strings.Contains(lead, "Steps to reproduce") || strings.Contains(lead, "api.github.com") {
		t.Errorf("the lead shows more than the identifying fields:\n%s", lead)
	}
	all := strings.Join(texts, "\n")
	if !strings.Contains(all, `"offloaded":true`) {
		t.Errorf("the matching records were not offloaded:\n%.500s", all)
	}
}
