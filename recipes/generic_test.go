package recipes_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"

	"github.com/zircote/lro-go/internal/testing/jqengines"
	"github.com/zircote/lro-go/recipes"
)

// step is one expected recipe of a generic library: its description and the
// oracle of its output.
type step struct {
	desc string
	want oracle
}

const fullText = "Records with a keyword in any text"

// anyRecords are the recipes made without a sample, which apply to any
// records.
var anyRecords = []step{
	{"Count the records", oCount},
	{fullText, oFullText},
	{"Count by field name", oFieldList},
	{"Show the first 5 records", oFirst(5)},
	{"Count by set of field names", oShapes},
	{"Count by nested field", oNested},
	{"Count by JSON type", oTypes},
	{"Show the last 5 records", oLast(5)},
	{"Show the record at a given position (from 1)", oRecordN},
	{"Show the 5 records with the most fields", oMostFields},
}

var genericCases = []struct {
	name    string
	reason  string
	records []any // the file
	sample  int   // how many leading records are the sample; -1 for all
	steps   []step
	// selective lists the recipes whose default parameters must select
	// some but not all records.
	selective []int
}{
	{
		name:    "issue listing",
		reason:  "GitHub issues: number (not id or url) is looked up and listed, comments is the measure, labels are objects with a name, state the category, created_at the time",
		records: issues(60), sample: 20,
		steps: []step{
			{"Count the records", oCount},
			{"List number, title, state, comments and created_at", oProject("number", "title", "state", "comments", "created_at")},
			{"Show the record with a given number", oLookup("number")},
			{"Search body for a keyword", oSearch("body")},
			{"Filter by state", oFilterEq("state")},
			{"Count by state", oCountBy("state", "state")},
			{"Filter by a name in labels", oNamedContains("labels")},
			{"Top 10 by comments", oTop("comments")},
			{"Stats of comments", oStats("comments")},
			{"Filter by created_at range", oTimeRange("created_at")},
		},
		selective: []int{3, 4, 5, 7, 10},
	},
	{
		name:    "objects with numbers",
		reason:  "orders: an id, categories, a measure, an array of strings, a date, a long text; the sample is a prefix and the last record has wrong types",
		records: orders(30), sample: 12,
		steps: []step{
			{"Count the records", oCount},
			{"List id, status, total and created_at", oProject("id", "status", "total", "created_at")},
			{"Show the record with a given id", oLookup("id")},
			{"Search note for a keyword", oSearch("note")},
			{"Filter by status", oFilterEq("status")},
			{"Count by status", oCountBy("status", "status")},
			{"Filter by a value in items", oArrayContains("items")},
			{"Top 10 by total", oTop("total")},
			{"Stats of total", oStats("total")},
			{"Filter by created_at range", oTimeRange("created_at")},
		},
		selective: []int{3, 4, 5, 7, 10},
	},
	{
		name:    "objects without numbers",
		reason:  "structured logs: no identifier and no measure; a second category, the full-text search and records missing an optional field fill in",
		records: logs(20), sample: -1,
		steps: []step{
			{"Count the records", oCount},
			{"List message and level", oProject("message", "level")},
			{"Search message for a keyword", oSearch("message")},
			{"Filter by level", oFilterEq("level")},
			{"Count by level", oCountBy("level", "level")},
			{"Count by logger", oCountBy("logger", "logger")},
			{fullText, oFullText},
			{"Count by field name", oFieldList},
			{"Records without host", oMissing("host")},
			{"Show the first 5 records", oFirst(5)},
		},
		selective: []int{3, 4, 7},
	},
	{
		name:    "field names that are not identifiers",
		reason:  `names with '-', a leading digit, a quote, a backslash-paren, jq keywords, and a category named "count"`,
		records: oddNames(12), sample: -1,
		steps: []step{
			{"Count the records", oCount},
			{"List user-name, count and 1st", oProject("user-name", "count", "1st")},
			{`Search note\(x) for a keyword`, oSearch(`note\(x)`)},
			{"Filter by count", oFilterEq("count")},
			{"Count by count", oCountBy("count", "value")},
			{"Count by if", oCountBy("if", "if")},
			{"Top 10 by 1st", oTop("1st")},
			{"Stats of 1st", oStats("1st")},
			{fullText, oFullText},
			{"Count by field name", oFieldList},
		},
		selective: []int{3, 4, 9},
	},
	{
		name:    "objects with arrays and dates",
		reason:  "no category and no measure: the unique slug is looked up, the tags array is filtered by membership, the date gives a range",
		records: articles(20), sample: -1,
		steps: []step{
			{"Count the records", oCount},
			{"List slug, title and published", oProject("slug", "title", "published")},
			{"Show the record with a given slug", oLookup("slug")},
			{"Search title for a keyword", oSearch("title")},
			{"Filter by a value in tags", oArrayContains("tags")},
			{"Count by each value in tags", oArrayCount("tags")},
			{"Filter by published range", oTimeRange("published")},
			{fullText, oFullText},
			{"Count by field name", oFieldList},
			{"Show the first 5 records", oFirst(5)},
		},
		selective: []int{3, 4, 5, 7, 8},
	},
	{
		name:    "mixed, mostly objects",
		reason:  "strings, numbers, arrays, null and booleans among objects must not break the object recipes",
		records: mixed(24), sample: -1,
		steps: []step{
			{"Count the records, in total and by JSON type", oCountMixed},
			{"List name, kind and weight", oProject("name", "kind", "weight")},
			{"Show the record with a given name", oLookup("name")},
			{"Filter by kind", oFilterEq("kind")},
			{"Count by kind", oCountBy("kind", "kind")},
			{"Top 10 by weight", oTop("weight")},
			{"Stats of weight", oStats("weight")},
			{fullText, oFullText},
			{"Count by field name", oFieldList},
			{"Show the first 5 records", oFirst(5)},
		},
		selective: []int{3, 4, 8},
	},
	{
		name:    "plain strings",
		reason:  "string records get the scalar library with string recipes",
		records: sentences(25), sample: -1,
		steps: []step{
			{"Count the records", oCount},
			{"Count by JSON type", oTypes},
			{"Show the first 20 records", oFirst(20)},
			{"Strings with a keyword", oSearchStrings},
			{"Records equal to a given value", oEqText},
			{"The 20 most frequent values with their counts", oFreq},
			{"Count the distinct values", oDistinctCount},
			{"The 10 longest strings", oLongestStrings},
			{"Stats of the string lengths", oStrLenStats},
			{"List the distinct strings (sorted)", oDistinctStrings},
		},
		selective: []int{4, 5},
	},
	{
		name:    "plain numbers",
		reason:  "number records get the scalar library with number recipes",
		records: numbers(30), sample: -1,
		steps: []step{
			{"Count the records", oCount},
			{"Count by JSON type", oTypes},
			{"Show the first 20 records", oFirst(20)},
			{"Numbers greater than a threshold", oGreater},
			{"Records equal to a given value", oEqText},
			{"The 20 most frequent values with their counts", oFreq},
			{"Count the distinct values", oDistinctCount},
			{"The 10 smallest numbers", oSmallest},
			{"Stats of the numbers", oNumStats},
			{"The 10 largest numbers", oLargest},
		},
		selective: []int{4, 5},
	},
	{
		name:    "mixed, mostly scalars",
		reason:  "objects, arrays and booleans among strings and numbers must not break the scalar recipes",
		records: mixedScalars(24), sample: -1,
		steps: []step{
			{"Count the records", oCount},
			{"Count by JSON type", oTypes},
			{"Show the first 20 records", oFirst(20)},
			{"Strings with a keyword", oSearchStrings},
			{"Records equal to a given value", oEqText},
			{"The 20 most frequent values with their counts", oFreq},
			{"Count the distinct values", oDistinctCount},
			{"The 10 longest strings", oLongestStrings},
			{"Stats of the numbers", oNumStats},
			{"List the distinct strings (sorted)", oDistinctStrings},
		},
		selective: []int{5},
	},
	{
		name:    "text lines",
		reason:  `{"line", "text"} records get the text library; levels without times; one line has non-ASCII text and a backslash`,
		records: textLines(40), sample: -1,
		steps: []step{
			{"Count the lines", oCount},
			{"Lines with a keyword (like grep -n)", oGrep},
			{"Count the lines with a keyword", oGrepCount},
			{"Lines at level ERROR, FATAL or CRITICAL", oLinesMatching(errorRE)},
			{"Count the lines by level", oLevels},
			{"Lines by number range", oRange},
			{"Show the last 20 lines", oLastLines},
			{"Lines without a keyword (like grep -v)", oGrepV},
			{"Repeated lines with counts", oDups},
			{"Print the text without line numbers", oPlain},
		},
		selective: []int{2, 4, 6, 8},
	},
	{
		name:    "log lines",
		reason:  "lines that start with a time and carry a level get a count by level, the error lines and a time range; words and duplicates give way",
		records: logLines(120), sample: 50,
		steps: []step{
			{"Count the lines", oCount},
			{"Lines with a keyword (like grep -n)", oGrep},
			{"Count the lines with a keyword", oGrepCount},
			{"Lines at level ERROR, FATAL or CRITICAL", oLinesMatching(errorRE)},
			{"Lines in a time range", oLineTimes},
			{"Count the lines by level", oLevels},
			{"Lines by number range", oRange},
			{"Show the last 20 lines", oLastLines},
			{"Lines without a keyword (like grep -v)", oGrepV},
			{"Print the text without line numbers", oPlain},
		},
		selective: []int{2, 4, 5, 7, 9},
	},
	{
		name:    "log lines without levels",
		reason:  "times in brackets with a space and no level: error lines by words, a time range, no count by level",
		records: bracketLogLines(30), sample: -1,
		steps: []step{
			{"Count the lines", oCount},
			{"Lines with a keyword (like grep -n)", oGrep},
			{"Count the lines with a keyword", oGrepCount},
			{"Lines that mention an error, failure or exception", oLinesMatching(failRE)},
			{"Lines in a time range", oLineTimes},
			{"Lines by number range", oRange},
			{"Show the last 20 lines", oLastLines},
			{"Lines without a keyword (like grep -v)", oGrepV},
			{"The 10 longest lines", oLongest},
			{"Print the text without line numbers", oPlain},
		},
		selective: []int{2, 4, 5, 6, 8},
	},
	{
		name:    "empty objects",
		reason:  "objects without fields leave every field slot to the recipes that apply to any records",
		records: emptyObjects(3), sample: -1,
		steps: anyRecords,
	},
	{
		name:    "mixed, empty objects",
		reason:  "the fewest fallbacks there can be: no field, and the count by type is already recipe 1",
		records: []any{map[string]any{}, map[string]any{}, 0.0, "x"}, sample: -1,
		steps: []step{
			{"Count the records, in total and by JSON type", oCountMixed},
			{fullText, oFullText},
			{"Count by field name", oFieldList},
			{"Show the first 5 records", oFirst(5)},
			{"Count by set of field names", oShapes},
			{"Count by nested field", oNested},
			{"Show the records that are not objects", oNotObjects},
			{"Show the last 5 records", oLast(5)},
			{"Show the record at a given position (from 1)", oRecordN},
			{"Show the 5 records with the most fields", oMostFields},
		},
	},
	{
		name:    "no sample, objects",
		reason:  "without a sample the recipes still run correctly on real records",
		records: orders(30), sample: 0,
		steps: anyRecords,
	},
	{
		name:    "no sample, nested and mixed",
		reason:  "leaf paths, record shapes and the rest on nested objects, arrays and scalars",
		records: append(oddNames(6), mixed(14)...), sample: 0,
		steps: anyRecords,
	},
}

// TestGenericAgainstJQ runs every recipe of the generic library with the
// real jq on a real file, for every shape of records, and checks the output
// against the answer computed in Go and against gojq.
func TestGenericAgainstJQ(t *testing.T) {
	needJQ(t)
	for _, tc := range genericCases {
		t.Run(tc.name, func(t *testing.T) {
			smp := tc.records
			if tc.sample >= 0 {
				smp = tc.records[:tc.sample]
			}
			rs := recipes.Generic(sample(t, smp))
			checkNumbered(t, tc.name, rs)
			checkPlain(t, rs)
			var want, got []string
			for i, r := range rs {
				got = append(got, r.Description)
				want = append(want, tc.steps[i].desc)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("%s: descriptions mismatch (-want +got):\n%s", tc.reason, diff)
			}
			var oracles []oracle
			for _, s := range tc.steps {
				oracles = append(oracles, s.want)
			}
			path := writeFile(t, nastyDir(t), "", tc.records)
			records := roundTrip(t, tc.records)
			check(t, rs, path, records, oracles)
			for _, n := range tc.selective {
				r := rs[n-1]
				if out := runJQ(t, r, path); len(out) == 0 || len(out) >= len(records) && !strings.Contains(r.Description, "range") {
					t.Errorf("%s: recipe %d %q with defaults %v gives %d outputs for %d records; want a real selection",
						tc.reason, n, r.Description, r.Params, len(out), len(records))
				}
			}
		})
	}
}

func TestGenericDeterministic(t *testing.T) {
	for _, tc := range genericCases {
		smp := sample(t, tc.records)
		if diff := cmp.Diff(recipes.Generic(smp), recipes.Generic(smp)); diff != "" {
			t.Errorf("%s: two calls differ (-first +second):\n%s", tc.name, diff)
		}
	}
}

func TestGenericDefaults(t *testing.T) {
	tests := []struct {
		name    string
		reason  string
		records []any
		want    map[string]string // "number/param" -> value
	}{
		{
			name:    "categories",
			reason:  "the filter value is the most common value, ties to the alphabetically first",
			records: []any{map[string]any{"k": "b"}, map[string]any{"k": "a"}, map[string]any{"k": "b"}, map[string]any{"k": "a"}, map[string]any{"k": "c"}},
			want:    map[string]string{"3/value": "a", "5/keyword": "keyword"},
		},
		{
			name:    "boolean category",
			reason:  "a boolean category is compared as text",
			records: []any{map[string]any{"ok": true}, map[string]any{"ok": false}, map[string]any{"ok": true}},
			want:    map[string]string{"3/value": "true", "5/keyword": "keyword"},
		},
		{
			name:   "keyword",
			reason: "the keyword is a word of 4+ ASCII letters, not a stop word, in at most half of the records when possible",
			records: []any{
				map[string]any{"msg": "which cache? cache-miss", "n": 1},
				map[string]any{"msg": "cache warm, no misses", "n": 2},
				map[string]any{"msg": "cache cold: retry", "n": 3},
				map[string]any{"msg": "C++ (regex) [x]", "n": 4},
			},
			want: map[string]string{"3/value": "1", "4/keyword": "cold", "5/keyword": "cold"},
		},
		{
			name:    "text lines",
			reason:  "the line range starts at the first line of the sample",
			records: []any{map[string]any{"line": 41, "text": "alpha beta"}, map[string]any{"line": 42, "text": "gamma delta"}},
			want:    map[string]string{"2/keyword": "alpha", "3/keyword": "alpha", "5/first": "41", "5/last": "60", "7/keyword": "alpha"},
		},
		{
			name:   "dates",
			reason: "the range runs from the median date of the sample to the day after the last one, a real date even across a month",
			records: []any{
				map[string]any{"at": "2025-01-03T10:00:00Z"}, map[string]any{"at": "2025-01-01"},
				map[string]any{"at": "2025-01-02T08:00:00+02:00"}, map[string]any{"at": "2025-01-31T23:00:00Z"},
			},
			want: map[string]string{"3/from": "2025-01-03", "3/to": "2025-02-01", "4/keyword": "keyword"},
		},
		{
			name:   "log times",
			reason: "the range of log lines runs from the time of the median line to the minute after the last one, with the lines' separator",
			records: []any{
				map[string]any{"line": 1, "text": "[2025-03-14 10:00:05] started"},
				map[string]any{"line": 2, "text": "[2025-03-14 10:01:10] working"},
				map[string]any{"line": 3, "text": "[2025-03-14 10:59:30] stopped"},
			},
			want: map[string]string{
				"2/keyword": "started", "3/keyword": "started", "5/from": "2025-03-14 10:01:10", "5/to": "2025-03-14 11:00",
				"6/first": "1", "6/last": "20", "8/keyword": "started",
			},
		},
		{
			name:    "identifier",
			reason:  "the lookup value is the identifier of the first record; a numeric identifier is compared as text",
			records: []any{map[string]any{"number": 12, "state": "open"}, map[string]any{"number": 11, "state": "open"}, map[string]any{"number": 10, "state": "closed"}},
			want:    map[string]string{"3/value": "12", "4/value": "open", "6/keyword": "closed"},
		},
		{
			name:    "numbers",
			reason:  "the threshold is the lower median, the value the most common integer",
			records: []any{2.5, 7, 7, 1, 100.125},
			want:    map[string]string{"4/min": "7", "5/value": "7"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string]string{}
			for _, r := range recipes.Generic(sample(t, tt.records)) {
				for _, p := range r.Params {
					got[strings.Join([]string{itoa(r.Number), p.Name}, "/")] = p.Value
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s: defaults mismatch (-want +got):\n%s", tt.reason, diff)
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestGenericBoundedSample(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		sample []json.RawMessage
	}{
		{"many records", "records past the first 1000 are not examined", sample(t, orders(3000))},
		{"huge record", "a record of several MiB is not examined", append(sample(t, logs(3)), json.RawMessage(`"`+strings.Repeat("word ", 1<<20)+`"`))},
		{"invalid records", "invalid JSON is skipped", []json.RawMessage{json.RawMessage(`{"a":1} x`), json.RawMessage(`{`), nil, json.RawMessage(`{"a":2}`)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkNumbered(t, tt.reason, recipes.Generic(tt.sample))
			checkNumbered(t, tt.reason, recipes.For(recipes.Full, tt.sample))
		})
	}
}

// TestGenericRoles checks what the generic library does with each kind of
// field, on the filters themselves: identifiers are looked up and listed,
// never ranked or summed; measures are ranked and summed; categories are
// counted and filtered; lists are filtered by membership; times give a
// range; lines get levels, error lines and times when they carry them.
func TestGenericRoles(t *testing.T) {
	tests := []struct {
		name    string
		reason  string
		records []any
		want    []string // substrings that some filter must hold
		never   []string // substrings that no filter may hold
	}{
		{
			name:    "issues",
			reason:  "number, id, node_id and url identify an issue; comments is the measure; labels are objects with a name",
			records: issues(30),
			want: []string{
				"{number, title, state, comments, created_at}",
				"select((.number | tostring) == $value)",
				"sort_by(-.comments)", "map(objects | .comments | numbers) | {count: length",
				"select(.state == $value)", "group_by(.state)",
				"any(.labels[]? | objects; .name == $value)",
				"select(.created_at | strings | . >= $from and . < $to)",
			},
			never: []string{"-.number", ".number | numbers", "-.id", ".id | numbers", "group_by(.number)", "group_by(.id)", "group_by(.title)", "-.created_at"},
		},
		{
			name:    "orders",
			reason:  "the id is looked up, total is the measure, items are a list of strings",
			records: orders(30),
			want:    []string{"{id, status, total, created_at}", "select(.id == $value)", "sort_by(-.total)", ".total | numbers", "any(.items[]?; tostring == $value)"},
			never:   []string{"-.id", ".id | numbers", "group_by(.id)", "group_by(.note)"},
		},
		{
			name:    "measure named like one",
			reason:  "distinct integers are identifiers unless the name says they measure something",
			records: []any{map[string]any{"seq": 1, "size_bytes": 100}, map[string]any{"seq": 2, "size_bytes": 2048}, map[string]any{"seq": 3, "size_bytes": 512}},
			want:    []string{"{seq, size_bytes}", "select((.seq | tostring) == $value)", "sort_by(-.size_bytes)"},
			never:   []string{"-.seq", ".seq | numbers"},
		},
		{
			name:    "log lines",
			reason:  "lines with times and levels: a count by level, the error lines, a time range; no word counts or duplicates, which times defeat",
			records: logLines(60),
			want:    []string{`captures[1].string) | group_by(.)`, `test("(^|[^A-Z])(ERROR|FATAL|CRITICAL)([^A-Z]|$)")`, `select(.text | strings | . >= $from and . < $to)`},
			never:   []string{"scan(", "select(length > 1)"},
		},
		{
			name:    "plain text",
			reason:  "lines without times or levels: no count by level and no time range, error lines by words, no word counts, which cost jq 1.6 thirty times reading the lines",
			records: []any{map[string]any{"line": 1, "text": "the quick brown fox"}, map[string]any{"line": 2, "text": "failed to jump over the dog"}, map[string]any{"line": 3, "text": "the quick brown fox"}},
			want:    []string{`test("error|fail|fatal|exception|panic"; "i")`, "select(length > 1)"},
			never:   []string{"captures", "$from", "ERROR", "scan("},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := recipes.Generic(sample(t, tt.records))
			checkNumbered(t, tt.name, rs)
			checkPlain(t, rs)
			var filters []string
			for _, r := range rs {
				filters = append(filters, r.Filter)
			}
			all := strings.Join(filters, "\n")
			for _, w := range tt.want {
				if !strings.Contains(all, w) {
					t.Errorf("%s: no filter holds %q; filters:\n%s", tt.reason, w, all)
				}
			}
			for _, n := range tt.never {
				if strings.Contains(all, n) {
					t.Errorf("%s: a filter holds %q; filters:\n%s", tt.reason, n, all)
				}
			}
		})
	}
}

// Plain English: a sentence without jq syntax (no $, no . path, no |), and
// without a parameter's name where a word belongs ("from line number from", "greater than min").
var (
	plainRE = regexp.MustCompile(`^[A-Z][A-Za-z0-9_ ,'()\\-]*$`) // \ is in a field name of a test

	placeholderRE = regexp.MustCompile(`\b(from|to|number|value|line|than|of) (from|to|first|last|value|n|min|keyword)\b`)
)

// checkPlain checks that the descriptions of rs read as plain English.
func checkPlain(t *testing.T, rs []recipes.Data) {
	t.Helper()
	for _, r := range rs {
		if !plainRE.MatchString(r.Description) {
			t.Errorf("recipe %d: description %q is not plain English", r.Number, r.Description)
		}
		if m := placeholderRE.FindString(r.Description); m != "" {
			t.Errorf("recipe %d: description %q uses a parameter's name as a word: %q", r.Number, r.Description, m)
		}
	}
}

// TestCommandUnderEveryJQ runs shell commands of recipes, as an agent does,
// with jq.mjs of package jqengines as the jq on the PATH: a slurped
// recipe, one with a parameter and a raw one, on a path that needs
// quoting. The other tests run the same recipes through the engines in one
// process each, which is faster but skips the shell.
func TestCommandUnderEveryJQ(t *testing.T) {
	needJQ(t)
	engines(t) // skips when the engines are not installed
	records := issues(12)
	path := writeFile(t, nastyDir(t), "", records)
	rs := recipes.Generic(sample(t, records))
	lineRecords := logLines(12)
	linePath := writeFile(t, nastyDir(t), "", lineRecords)
	lrs := recipes.Generic(sample(t, lineRecords))
	runs := []struct {
		r    recipes.Data
		path string
	}{{rs[5], path}, {rs[6], path}, {lrs[4], linePath}}
	for _, v := range jqengines.Versions {
		bin := t.TempDir()
		shim := "#!/bin/sh\nexec node " + recipes.ShellQuote(filepath.Join(jqengines.Dir(), "jq.mjs")) + " " + v + " \"$@\"\n"
		if err := os.WriteFile(filepath.Join(bin, "jq"), []byte(shim), 0o700); err != nil {
			t.Fatal(err)
		}
		for _, run := range runs {
			want := runJQ(t, run.r, run.path)
			cmd := exec.Command("sh", "-c", run.r.Command(run.path))
			cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("jq %s: %s: %v", v, run.r.Command(run.path), err)
			}
			var got []any
			if run.r.Raw {
				got = lines(string(out))
			} else {
				got = decodeStream(t, out)
			}
			if len(want) == 0 {
				t.Fatalf("recipe %d %q outputs nothing: the test proves nothing", run.r.Number, run.r.Description)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("jq %s: %s: output differs from jq 1.6 (-1.6 +%s):\n%s", v, run.r.Command(run.path), v, diff)
			}
		}
	}
}

// TestGenericRealArrays gives the generic library records whose arrays hold
// what real tools send: floats (prices, embeddings, scores), arrays of
// arrays, nulls, mixed elements, huge numbers, under unicode keys and keys
// that are jq keywords. The library used to panic on the first array
// element that was neither a string, a boolean, an integer nor an object,
// and the offload fell back to a truncated result. Every recipe must run
// under jq 1.6 and, except on numbers that jq releases print differently
// (past float64 or 2^53), give the same output under gojq and the other jq
// releases.
func TestGenericRealArrays(t *testing.T) {
	needJQ(t)
	tests := []struct {
		name, reason string
		record       func(i int) any
		huge         bool // numbers that jq releases print differently
	}{
		{"floats", "prices, embeddings and scores are arrays of non-integer numbers", func(i int) any {
			return map[string]any{"id": i + 1, "name": "product " + itoa(i), "prices": []any{19.99, 17.5 + float64(i)}, "embedding": []any{0.125, -0.5}, "scores": []any{0.5}}
		}, false},
		{"arrays of arrays", "coordinates and matrices", func(i int) any {
			return map[string]any{"id": i + 1, "path": []any{[]any{1.5, 2}, []any{3, float64(i)}}, "matrix": []any{[]any{}, []any{[]any{1}}}}
		}, false},
		{"nulls and mixed", "nulls among numbers, strings among objects, an object without a name", func(i int) any {
			return map[string]any{"id": i + 1, "values": []any{nil, 1.25, "x", true, map[string]any{"k": 1}}, "labels": []any{map[string]any{"name": "bug"}, nil, 2.5}}
		}, false},
		{"odd keys and huge numbers", "unicode and keyword keys, numbers past float64 and past 2^53", func(i int) any {
			return map[string]any{"名前": "名" + itoa(i), "if": []any{0.5, json.Number("1e400")}, "then": json.Number("123456789012345678901234567890"), "émoji😀": []any{[]any{0.1}}}
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var records []any
			for i := range 12 {
				records = append(records, tt.record(i))
			}
			rs := recipes.Generic(sample(t, records))
			checkNumbered(t, tt.reason, rs)
			path := writeFile(t, t.TempDir(), "", records)
			decoded := decodeFileRecords(t, path)
			for _, r := range rs {
				if out := runJQRaw(t, r, path); !tt.huge {
					sameEverywhere(t, r, path, decoded, runJQ(t, r, path))
				} else if len(out) == 0 && r.Number <= 2 {
					t.Errorf("recipe %d %q outputs nothing", r.Number, r.Description)
				}
			}
		})
	}
}

// runJQRaw runs the shell command of r on path with the real jq and returns
// its output, failing on an error.
func runJQRaw(t *testing.T, r recipes.Data, path string) []byte {
	t.Helper()
	out, err := exec.Command("sh", "-c", r.Command(path)).Output()
	if err != nil {
		t.Fatalf("recipe %d: %s: %v", r.Number, r.Command(path), err)
	}
	return out
}

// decodeFileRecords returns the records of the file at path (the lines after
// its header) as encoding/json decodes them, skipping those it cannot (a
// number past float64).
func decodeFileRecords(t *testing.T, path string) []any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []any
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n")[1:] {
		var v any
		if json.Unmarshal([]byte(l), &v) == nil {
			out = append(out, v)
		}
	}
	return out
}

// TestExamplesWithoutControlCharacters: a record's value with a NUL or
// another control character is never a recipe's default value (a NUL
// cannot be a command's argument, so recipes 3 and 4 could not run); a
// clean value of the same field is, and every recipe runs under jq.
func TestExamplesWithoutControlCharacters(t *testing.T) {
	needJQ(t)
	var records []any
	for i := range 30 {
		id, status := fmt.Sprintf("id-%02d", i), []string{"open", "closed", "draft"}[i%3]
		switch i {
		case 0:
			id = "id\x00zero" // the first id, the default example
		case 1:
			id = "id\x1b[31mone"
		}
		if i%3 == 0 || i == 1 {
			status = "open\x00" // the most common status
		}
		records = append(records, map[string]any{"id": id, "title": fmt.Sprintf("Issue number %d about caching", i), "status": status, "tags": []any{"a\x07", "b", "b"}})
	}
	rs := recipes.Generic(sample(t, records))
	for i, r := range rs {
		for _, p := range r.Params {
			if strings.ContainsFunc(p.Value, unicode.IsControl) {
				t.Errorf("recipe %d %q: default %s=%q has a control character", i+1, r.Description, p.Name, p.Value)
			}
		}
	}
	path := writeFile(t, t.TempDir(), "", records)
	for _, r := range rs {
		runJQ(t, r, path) // fails the test if jq cannot run it
	}
}
