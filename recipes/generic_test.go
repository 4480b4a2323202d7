package recipes_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zircote/lro-go/recipes"
)

// step is one expected recipe of a generic library: its description and the
// oracle of its output.
type step struct {
	desc string
	want oracle
}

const fullText = "Full-text search: records with any string value matching a keyword (case-insensitive regular expression)"

// anyRecords are the recipes made without a sample, which apply to any
// records.
var anyRecords = []step{
	{"Count records", oCount},
	{"List the field names with the number of records that have each", oFieldList},
	{"Show the first 5 records", oFirst(5)},
	{"Count records per set of field names (record shapes, most frequent first)", oShapes},
	{"List the leaf field paths (nested fields joined with '.', array elements as []) with the number of records that have each", oLeafPaths},
	{"Count records by JSON type", oTypes},
	{"Show the last 5 records", oLast(5)},
	{"Show record number n (1-based)", oRecordN},
	{"Show the 5 records with the most fields", oMostFields},
	{fullText, oFullText},
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
		name:    "objects with numbers",
		reason:  "every slot has its field: id, categories, a number, a long text; the sample is a prefix and the last record has wrong types",
		records: orders(30), sample: 12,
		steps: []step{
			{"Count records", oCount},
			{"List the field names with the number of records that have each", oFieldList},
			{"Project id, created_at, customer, status (one record per line)", oProject("id", "created_at", "customer", "status")},
			{"Search note by keyword (case-insensitive regular expression)", oSearch("note")},
			{"Filter records where status equals a value", oFilterEq("status")},
			{"Count records by status (most frequent first)", oCountBy("status", "status")},
			{"Top 10 records by total (highest first)", oTop("total")},
			{"List the distinct values of customer (sorted)", oDistinct("customer")},
			{"Statistics of total: count, min, max, sum and average", oStats("total")},
			{fullText, oFullText},
		},
		selective: []int{4, 5, 10},
	},
	{
		name:    "objects without numbers",
		reason:  "the number recipes are replaced by records missing an optional field and the first records",
		records: logs(20), sample: -1,
		steps: []step{
			{"Count records", oCount},
			{"List the field names with the number of records that have each", oFieldList},
			{"Project level, logger, message (one record per line)", oProject("level", "logger", "message")},
			{"Search message by keyword (case-insensitive regular expression)", oSearch("message")},
			{"Filter records where level equals a value", oFilterEq("level")},
			{"Count records by level (most frequent first)", oCountBy("level", "level")},
			{"Records without the field host", oMissing("host")},
			{"List the distinct values of logger (sorted)", oDistinct("logger")},
			{"Show the first 5 records", oFirst(5)},
			{fullText, oFullText},
		},
		selective: []int{4, 5, 10},
	},
	{
		name:    "field names that are not identifiers",
		reason:  `names with '-', a leading digit, a quote, a backslash-paren, jq keywords, and a category named "count"`,
		records: oddNames(12), sample: -1,
		steps: []step{
			{"Count records", oCount},
			{"List the field names with the number of records that have each", oFieldList},
			{"Project user-name, count, if, it's (one record per line)", oProject("user-name", "count", "if", "it's")},
			{`Search note\(x) by keyword (case-insensitive regular expression)`, oSearch(`note\(x)`)},
			{"Filter records where count equals a value", oFilterEq("count")},
			{"Count records by count (most frequent first)", oCountBy("count", "value")},
			{"Top 10 records by 1st (highest first)", oTop("1st")},
			{"List the distinct values of if (sorted)", oDistinct("if")},
			{"Statistics of 1st: count, min, max, sum and average", oStats("1st")},
			{fullText, oFullText},
		},
		selective: []int{4, 5, 10},
	},
	{
		name:    "objects with arrays and dates",
		reason:  "no category and no number: the array and date recipes fill in",
		records: articles(20), sample: -1,
		steps: []step{
			{"Count records", oCount},
			{"List the field names with the number of records that have each", oFieldList},
			{"Project slug, published, title (one record per line)", oProject("slug", "published", "title")},
			{"Search title by keyword (case-insensitive regular expression)", oSearch("title")},
			{"Filter records whose tags array contains a value", oArrayContains("tags")},
			{"Count the values in the tags arrays (most frequent first)", oArrayCount("tags")},
			{"Newest 10 records by published", oNewest("published")},
			{"List the distinct values of published (sorted)", oDistinct("published")},
			{"Show the first 5 records", oFirst(5)},
			{fullText, oFullText},
		},
		selective: []int{4, 5, 10},
	},
	{
		name:    "mixed, mostly objects",
		reason:  "strings, numbers, arrays, null and booleans among objects must not break the object recipes",
		records: mixed(24), sample: -1,
		steps: []step{
			{"Count records, in total and by JSON type", oCountMixed},
			{"List the field names with the number of records that have each", oFieldList},
			{"Project name, kind, weight (one record per line)", oProject("name", "kind", "weight")},
			{"Search name by keyword (case-insensitive regular expression)", oSearch("name")},
			{"Filter records where kind equals a value", oFilterEq("kind")},
			{"Count records by kind (most frequent first)", oCountBy("kind", "kind")},
			{"Top 10 records by weight (highest first)", oTop("weight")},
			{"List the distinct values of weight (sorted)", oDistinct("weight")},
			{"Statistics of weight: count, min, max, sum and average", oStats("weight")},
			{fullText, oFullText},
		},
		selective: []int{4, 5, 10},
	},
	{
		name:    "plain strings",
		reason:  "string records get the scalar library with string recipes",
		records: sentences(25), sample: -1,
		steps: []step{
			{"Count records", oCount},
			{"Count records by JSON type", oTypes},
			{"Show the first 20 records", oFirst(20)},
			{"Search string records by keyword (case-insensitive regular expression)", oSearchStrings},
			{"Records equal to a value (compared as text)", oEqText},
			{"The 20 most frequent values with their counts", oFreq},
			{"Count the distinct values", oDistinctCount},
			{"The 10 longest strings", oLongestStrings},
			{"Statistics of the string lengths: count, min, max and average", oStrLenStats},
			{"List the distinct strings (sorted)", oDistinctStrings},
		},
		selective: []int{4, 5},
	},
	{
		name:    "plain numbers",
		reason:  "number records get the scalar library with number recipes",
		records: numbers(30), sample: -1,
		steps: []step{
			{"Count records", oCount},
			{"Count records by JSON type", oTypes},
			{"Show the first 20 records", oFirst(20)},
			{"Numbers greater than min", oGreater},
			{"Records equal to a value (compared as text)", oEqText},
			{"The 20 most frequent values with their counts", oFreq},
			{"Count the distinct values", oDistinctCount},
			{"The 10 smallest numbers", oSmallest},
			{"Statistics of the numbers: count, min, max, sum and average", oNumStats},
			{"The 10 largest numbers", oLargest},
		},
		selective: []int{4, 5},
	},
	{
		name:    "mixed, mostly scalars",
		reason:  "objects, arrays and booleans among strings and numbers must not break the scalar recipes",
		records: mixedScalars(24), sample: -1,
		steps: []step{
			{"Count records", oCount},
			{"Count records by JSON type", oTypes},
			{"Show the first 20 records", oFirst(20)},
			{"Search string records by keyword (case-insensitive regular expression)", oSearchStrings},
			{"Records equal to a value (compared as text)", oEqText},
			{"The 20 most frequent values with their counts", oFreq},
			{"Count the distinct values", oDistinctCount},
			{"The 10 longest strings", oLongestStrings},
			{"Statistics of the numbers: count, min, max, sum and average", oNumStats},
			{"List the distinct strings (sorted)", oDistinctStrings},
		},
		selective: []int{5},
	},
	{
		name:    "text lines",
		reason:  `{"line", "text"} records get the text library; one line has non-ASCII text and a backslash`,
		records: textLines(40), sample: -1,
		steps: []step{
			{"Count lines", oCount},
			{"Search lines by keyword, with line numbers (like grep -n)", oGrep},
			{"Count the lines matching a keyword", oGrepCount},
			{"Show the lines from line number from to line number to", oRange},
			{"Show the last 20 lines", oLastLines},
			{"Show the 10 longest lines, with their length in characters", oLongest},
			{"Show the lines not matching a keyword (like grep -v)", oGrepV},
			{"Count the 20 most frequent words (lower-cased)", oWords},
			{"Show the duplicated lines with their counts", oDups},
			{"Print the plain text, without line numbers", oPlain},
		},
		selective: []int{2, 4, 7},
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
			{"Count records, in total and by JSON type", oCountMixed},
			{"List the field names with the number of records that have each", oFieldList},
			{"Show the first 5 records", oFirst(5)},
			{"Count records per set of field names (record shapes, most frequent first)", oShapes},
			{"List the leaf field paths (nested fields joined with '.', array elements as []) with the number of records that have each", oLeafPaths},
			{"Show the records that are not objects", oNotObjects},
			{"Show the last 5 records", oLast(5)},
			{"Show record number n (1-based)", oRecordN},
			{"Show the 5 records with the most fields", oMostFields},
			{fullText, oFullText},
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
			want:    map[string]string{"5/value": "a", "10/keyword": "keyword"},
		},
		{
			name:    "boolean category",
			reason:  "a boolean category is compared as text",
			records: []any{map[string]any{"ok": true}, map[string]any{"ok": false}, map[string]any{"ok": true}},
			want:    map[string]string{"5/value": "true", "10/keyword": "keyword"},
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
			want: map[string]string{"4/keyword": "cold", "10/keyword": "cold"},
		},
		{
			name:    "text lines",
			reason:  "the line range starts at the first line of the sample",
			records: []any{map[string]any{"line": 41, "text": "alpha beta"}, map[string]any{"line": 42, "text": "gamma delta"}},
			want:    map[string]string{"2/keyword": "alpha", "3/keyword": "alpha", "4/from": "41", "4/to": "60", "7/keyword": "alpha"},
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
