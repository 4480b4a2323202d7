package extract_test

import (
	"encoding/json"
	"fmt"
	"github.com/zircote/lro-go/lro"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/zircote/lro-go/estimate"
	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro/extract"
)

// TestQueriesMatchJQ runs custom filters through lro_extract and through
// tail | jq on the same file: per record (with input and inputs reading
// ahead, and an error on some records), and slurped.
func TestQueriesMatchJQ(t *testing.T) {
	needJQ(t)
	dir := t.TempDir()
	path := offload(t, dir, "full", memories(25, "full"))
	cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir, ThresholdTokens: 1 << 30}})
	for _, tt := range []struct {
		query string
		slurp bool
		raw   bool
	}{
		{query: `select(.provenance.confidence > 0.8) | {id, c: .provenance.confidence}`},
		{query: `.tags | length`},
		{query: `.tags[0]`, raw: true},
		{query: `[.id, input.id]`},
		{query: `[inputs.id] | length`},
		{query: `.tags | join(",")`},                                          // fails on the records without tags; jq goes on
		{query: `if .title | test("rollback") then error("no") else .id end`}, // errors on some records
		{query: `.title | ascii_downcase | split(" ") | .[0:2]`},
		{query: `to_entries | map(select(.value | type == "string")) | from_entries | keys`},
		{query: `group_by(.memory_type) | map({t: .[0].memory_type, n: length})`, slurp: true},
		{query: `map(.provenance.confidence) | add / length`, slurp: true},
		{query: `[.[] | select(.namespace | startswith("_semantic"))] | length`, slurp: true},
		{query: `sort_by(.created) | .[0:3] | map(.id)`, slurp: true},
		{query: `.[] | .title`, slurp: true, raw: true},
		{query: `reduce .[] as $r ({}; .[$r.namespace] += 1)`, slurp: true},
		{query: `first(.[] | select(.memory_type == "procedural")) | .id`, slurp: true},
		{query: `limit(3; .[]) | {id}`, slurp: true},
		{query: `. as [$a, $b] | [$a.id, $b.id]`, slurp: true},
	} {
		t.Run(tt.query, func(t *testing.T) {
			flags := "-c"
			if tt.slurp {
				flags += " -s"
			}
			if tt.raw {
				flags += " -r"
			}
			command := "tail -n +2 '" + path + "' | jq " + flags + " '" + tt.query + "' 2>/dev/null; true"
			want := shell(t, command)
			texts, isErr := call(t, cs, extract.ToolExtract, map[string]any{"file_path": path, "query": tt.query, "slurp": tt.slurp, "raw": tt.raw})
			got := ""
			if !strings.HasPrefix(texts[0], "No results") {
				got = texts[0]
			}
			if isErr && want != "" {
				t.Fatalf("error %q where jq printed %q", texts, want)
			}
			if tt.raw {
				if diff := cmp.Diff(lines(want), lines(got)); diff != "" {
					t.Errorf("(-jq +lro_extract):\n%s", diff)
				}
				return
			}
			if diff := cmp.Diff(values(t, want), values(t, got), cmpopts.EquateApprox(1e-12, 1e-12)); diff != "" {
				t.Errorf("(-jq +lro_extract):\n%s", diff)
			}
		})
	}
}

func TestExtract(t *testing.T) {
	dir := t.TempDir()
	path := offload(t, dir, "medium", memories(12, "medium"))
	cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir}})
	fileLine := func(n int) string { return string(fileLines(t, path)[n-2]) }
	tests := []struct {
		name    string
		args    map[string]any
		isError bool
		want    []string // substrings of the answer
		exact   string   // the whole first content, when set
	}{
		{"recipe passes records through as written", map[string]any{"recipe": 5, "params": map[string]any{"memory_type": "procedural"}}, false, nil,
			fileLine(4) + "\n" + fileLine(7) + "\n" + fileLine(10) + "\n" + fileLine(13)},
		{"recipe parameter given as a number", map[string]any{"recipe": 3, "params": map[string]any{"keyword": 11}}, false, []string{`"Decision 11:`}, ""},
		{"query variables keep their JSON type", map[string]any{"query": `select(.tags | index($tag)) | .id`, "params": map[string]any{"tag": "team-3"}}, false, nil,
			`"01J00000000000000000000003"` + "\n" + `"01J00000000000000000000007"` + "\n" + `"01J00000000000000000000011"`},
		{"array variable", map[string]any{"query": `select(.memory_type | IN($types[])) | .memory_type`, "raw": true, "params": map[string]any{"types": []any{"episodic"}}}, false, nil,
			"episodic\nepisodic\nepisodic\nepisodic"},
		{"slurp", map[string]any{"query": "length", "slurp": true}, false, nil, "12"},
		{"raw strings", map[string]any{"query": ".memory_type", "raw": true, "slurp": false}, false, []string{"semantic\nepisodic\nprocedural\n"}, ""},
		{"no output", map[string]any{"query": "empty"}, false, []string{"No results", "12 records"}, ""},
		{"errors on some records are noted", map[string]any{"query": ".tags | join(\",\")"}, false, []string{"raised an error on 1 of 12 inputs", "at line 7"}, ""},
		{"errors on every record", map[string]any{"query": `error("bad")`}, true, []string{"12 of 12", "bad"}, ""},
		{"error with a value", map[string]any{"query": `error({"why": .id})`}, true, []string{`{"why":"01J`}, ""},
		{"halt stops quietly", map[string]any{"query": ".id, halt"}, false, nil, `"01J00000000000000000000000"`},
		{"halt_error is an error", map[string]any{"query": `"stop here" | halt_error`}, true, []string{"halt_error: stop here"}, ""},
		{"both recipe and query", map[string]any{"recipe": 1, "query": "."}, true, []string{"not both"}, ""},
		{"neither recipe nor query", map[string]any{}, true, []string{"give recipe"}, ""},
		{"recipe out of range", map[string]any{"recipe": 11}, true, []string{"recipe must be an integer from 1 to 10"}, ""},
		{"recipe not an integer", map[string]any{"recipe": 2.5}, true, []string{"recipe must be an integer"}, ""},
		{"recipe as a string", map[string]any{"recipe": "2"}, true, []string{"recipe must be an integer"}, ""},
		{"null recipe is no recipe", map[string]any{"recipe": nil, "query": "1", "slurp": true}, false, nil, "1"},
		{"unknown recipe parameter", map[string]any{"recipe": 2, "params": map[string]any{"keyword": "x"}}, true, []string{"takes the params namespace, not \"keyword\""}, ""},
		{"parameter of a recipe without any", map[string]any{"recipe": 1, "params": map[string]any{"x": "y"}}, true, []string{"takes no params"}, ""},
		{"object as a recipe parameter", map[string]any{"recipe": 2, "params": map[string]any{"namespace": map[string]any{}}}, true, []string{"params.namespace"}, ""},
		{"slurp with a recipe", map[string]any{"recipe": 1, "slurp": true}, true, []string{"apply to a query"}, ""},
		{"invalid query", map[string]any{"query": "select(.a"}, true, []string{"not a valid jq filter"}, ""},
		{"unknown function", map[string]any{"query": "frobnicate"}, true, []string{"function not defined: frobnicate/0"}, ""},
		{"invalid variable name", map[string]any{"query": "$a", "params": map[string]any{"a-b": 1}}, true, []string{"cannot be a jq variable name"}, ""},
		{"reserved variable name", map[string]any{"query": "$ENV", "params": map[string]any{"ENV": 1}}, true, []string{"cannot be a jq variable name"}, ""},
		{"environment is empty", map[string]any{"query": "$ENV | length", "slurp": true}, false, nil, "0"},
		{"env is empty", map[string]any{"query": "env | length", "slurp": true}, false, nil, "0"},
		// The functions of the jq command that reach outside the query are
		// not defined.
		{"input_filename", map[string]any{"query": "input_filename"}, true, []string{"function not defined: input_filename/0"}, ""},
		{"debug", map[string]any{"query": "debug"}, true, []string{"function not defined: debug/0"}, ""},
		{"debug with a message", map[string]any{"query": `debug("x")`}, true, []string{"function not defined: debug"}, ""},
		{"stderr", map[string]any{"query": "stderr"}, true, []string{"function not defined: stderr/0"}, ""},
		{"input_line_number", map[string]any{"query": "input_line_number"}, true, []string{"function not defined: input_line_number/0"}, ""},
		{"$__loc__", map[string]any{"query": "$__loc__"}, true, []string{"variable not defined: $__loc__"}, ""},
		{"import", map[string]any{"query": `import "a" as a; .`}, true, []string{"the query does not compile"}, ""},
		{"include", map[string]any{"query": `include "a"; .`}, true, []string{"the query does not compile"}, ""},
		{"unknown argument", map[string]any{"recipe": 1, "filter": "."}, true, []string{`unknown argument "filter"`}, ""},
		{"query of the wrong type", map[string]any{"query": 5}, true, []string{"query must be a string"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := map[string]any{"file_path": path}
			for k, v := range tt.args {
				args[k] = v
			}
			texts, isErr := call(t, cs, extract.ToolExtract, args)
			if isErr != tt.isError {
				t.Fatalf("isError = %v, want %v: %q", isErr, tt.isError, texts)
			}
			if tt.exact != "" && texts[0] != tt.exact {
				t.Errorf("got %q\nwant %q", texts[0], tt.exact)
			}
			all := strings.Join(texts, "\n")
			for _, w := range tt.want {
				if !strings.Contains(all, w) {
					t.Errorf("answer %q lacks %q", all, w)
				}
			}
		})
	}
}

// TestExtractOffloadedInTurn: a result above the threshold is written to a
// new offloaded file, which the tools can query in turn.
func TestExtractOffloadedInTurn(t *testing.T) {
	dir := t.TempDir()
	path := offload(t, dir, "full", memories(200, "full"))
	cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir}})
	texts, isErr := call(t, cs, extract.ToolExtract, map[string]any{"file_path": path, "recipe": 2, "params": map[string]any{"namespace": "_semantic"}})
	if isErr || len(texts) != 2 || !strings.Contains(texts[0], "above the 1600-token threshold") {
		t.Fatalf("%v %q", isErr, texts)
	}
	var d offloadResponse
	if err := json.Unmarshal([]byte(texts[1]), &d); err != nil {
		t.Fatal(err)
	}
	if !d.Offloaded || filepath.Dir(d.FilePath) != dir || !strings.Contains(filepath.Base(d.FilePath), "-extract-") {
		t.Fatalf("descriptor %+v", d)
	}
	if d.Summary.Count != 120 || d.Summary.Detail != "full" || len(d.JqRecipes) != 10 || d.LineSchema == nil {
		t.Errorf("summary %+v, %d recipes", d.Summary, len(d.JqRecipes))
	}
	if !strings.Contains(d.Guidance, "lro_extract(file_path=\""+d.FilePath) {
		t.Errorf("guidance does not direct to lro_extract on the new file:\n%s", d.Guidance)
	}
	h, recs, err := jsonl.ReadFile(d.FilePath)
	if err != nil {
		t.Fatal(err)
	}
	if h.Operation != "extract" || h.Count != 120 || h.Query == nil || !strings.Contains(*h.Query, "startswith($namespace)") {
		t.Errorf("header %+v", h)
	}
	// The new file holds the records as the source file does.
	src := fileLines(t, path)
	if string(recs[0]) != string(src[0]) {
		t.Errorf("first record %s, want %s", recs[0], src[0])
	}
	texts, isErr = call(t, cs, extract.ToolExtract, map[string]any{"file_path": d.FilePath, "recipe": 6})
	if isErr || !strings.Contains(texts[0], `{"count":40,"namespace":"_semantic"}`) {
		t.Errorf("querying the new file: %v %q", isErr, texts)
	}

	// Raw results are stored as JSON strings.
	texts, isErr = call(t, cs, extract.ToolExtract, map[string]any{"file_path": path, "recipe": 1})
	if isErr || len(texts) != 2 {
		t.Fatalf("%v %q", isErr, texts)
	}
	if err := json.Unmarshal([]byte(texts[1]), &d); err != nil {
		t.Fatal(err)
	}
	_, recs, err = jsonl.ReadFile(d.FilePath)
	if err != nil || len(recs) != 200 || string(recs[0]) != `"Decision 0: cache strategy for the cache path\t_semantic/decisions"` {
		t.Errorf("raw results offloaded as %q, %v", recs[0], err)
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	path := offload(t, dir, "light", memories(40, "light"))
	all := fileLines(t, path)
	cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir, ThresholdTokens: 400}})
	tests := []struct {
		name    string
		args    map[string]any
		isError bool
		first   string   // the lines shown
		note    []string // substrings of the note
	}{
		{"a range", map[string]any{"line": 10, "limit": 2}, false,
			"10: " + string(all[8]) + "\n11: " + string(all[9]) + "\n", []string{"Lines 10-11 of 41", "Continue with line=12."}},
		{"the last line", map[string]any{"line": 41, "limit": 5}, false, "41: " + string(all[39]) + "\n", []string{"Lines 41-41 of 41"}},
		{"characters of each line", map[string]any{"line": 2, "limit": 2, "char_offset": 2, "max_chars": 4}, false,
			"2: " + string(all[0])[2:6] + "\n3: " + string(all[1])[2:6] + "\n", []string{"Continue it with line=2, limit=1, char_offset=6"}},
		{"past the end", map[string]any{"line": 42}, true, "", []string{"past the end of the file, which has 41 lines"}},
		{"line zero", map[string]any{"line": 0}, true, "", []string{"line must be an integer of at least 1"}},
		{"negative offset", map[string]any{"char_offset": -1}, true, "", []string{"char_offset must be"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := map[string]any{"file_path": path}
			for k, v := range tt.args {
				args[k] = v
			}
			texts, isErr := call(t, cs, extract.ToolRead, args)
			if isErr != tt.isError {
				t.Fatalf("isError = %v: %q", isErr, texts)
			}
			if tt.first != "" && texts[0] != tt.first {
				t.Errorf("lines:\n%q\nwant\n%q", texts[0], tt.first)
			}
			all := strings.Join(texts, "\n")
			for _, w := range tt.note {
				if !strings.Contains(all, w) {
					t.Errorf("answer %q lacks %q", all, w)
				}
			}
		})
	}
}

// TestReadStopsAtThreshold reads with the defaults: from the header, as many
// whole lines as fit in the threshold, then says where to continue.
func TestReadStopsAtThreshold(t *testing.T) {
	dir := t.TempDir()
	path := offload(t, dir, "light", memories(40, "light"))
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fileLines := lines(string(file))
	cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir, ThresholdTokens: 400}})
	texts, isErr := call(t, cs, extract.ToolRead, map[string]any{"file_path": path})
	if isErr {
		t.Fatal(texts)
	}
	shown := lines(texts[0])
	if len(shown) < 2 || len(shown) >= 20 {
		t.Fatalf("%d lines shown", len(shown))
	}
	for i, l := range shown {
		if want := itoa(i+1) + ": " + fileLines[i]; l != want {
			t.Errorf("line %d shown as %q, want %q", i+1, l, want)
		}
	}
	if tokens := estimate.Tokens(texts[0]); tokens > 400 {
		t.Errorf("%d tokens shown, above the threshold", tokens)
	}
	next := "Continue with line=" + itoa(len(shown)+1) + "."
	if !strings.Contains(texts[1], "Lines 1-"+itoa(len(shown))+" of 41 shown") || !strings.Contains(texts[1], next) {
		t.Errorf("note %q", texts[1])
	}
	// A line alone above the threshold is cut to what fits, with a note.
	cs = session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir, ThresholdTokens: 60}})
	texts, isErr = call(t, cs, extract.ToolRead, map[string]any{"file_path": path, "line": 2, "limit": 3})
	if isErr || len(lines(texts[0])) != 1 || !strings.Contains(texts[1], "Line 2 has") || !strings.HasPrefix(fileLines[1], strings.TrimSuffix(strings.TrimPrefix(texts[0], "2: "), "\n")) {
		t.Errorf("%v %q", isErr, texts)
	}
}

// TestReadHoldsWhatItShows reads a 16 MB line with a max_chars far above
// it: the call allocates a small part of the line (it reads at most what
// the threshold can show, not max_chars), and its note says where to
// continue, from where the next call goes on.
func TestReadHoldsWhatItShows(t *testing.T) {
	dir := t.TempDir()
	const size = 16 << 20
	text := strings.Repeat("0123456789", size/10)
	path := offload(t, dir, "full", []any{text})
	line := `"` + text + `"`
	cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir}})
	args := map[string]any{"file_path": path, "line": 2, "limit": 1, "max_chars": 1_000_000_000}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	texts, isErr := call(t, cs, extract.ToolRead, args)
	runtime.ReadMemStats(&after)
	if isErr || len(texts) != 2 {
		t.Fatalf("%v %.300q", isErr, texts)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > size/4 {
		t.Errorf("the call allocated %d bytes to show part of a %d-byte line", alloc, len(line))
	}
	shown := strings.TrimSuffix(strings.TrimPrefix(texts[0], "2: "), "\n")
	if len(shown) == 0 || !strings.HasPrefix(line, shown) {
		t.Fatalf("shown %.100q, not the start of the line", shown)
	}
	next := len(shown)
	note := fmt.Sprintf("Line 2 has %d characters; characters 0-%d are shown. Continue it with line=2, limit=1, char_offset=%d.", len(line), next, next)
	if !strings.Contains(texts[1], note) {
		t.Errorf("note %q lacks %q", texts[1], note)
	}
	args["char_offset"] = next
	texts, isErr = call(t, cs, extract.ToolRead, args)
	if rest := strings.TrimPrefix(texts[0], "2: "); isErr || !strings.HasPrefix(line[next:], strings.TrimSuffix(rest, "\n")) || len(rest) < 2 {
		t.Errorf("continued: %v %.100q, want the line from character %d", isErr, texts, next)
	}
}

// matching returns the line numbers of the records with a string, number or
// boolean value that re matches: lro_search's rule, computed directly.
func matching(records []any, re *regexp.Regexp, from int) []string {
	var out []string
	var match func(v any) bool
	match = func(v any) bool {
		switch x := v.(type) {
		case map[string]any:
			for _, e := range x {
				if match(e) {
					return true
				}
			}
		case []any:
			for _, e := range x {
				if match(e) {
					return true
				}
			}
		case string:
			return re.MatchString(x)
		case float64:
			return re.MatchString(strconv.FormatFloat(x, 'f', -1, 64))
		case int:
			return re.MatchString(strconv.Itoa(x))
		case bool:
			return re.MatchString(strconv.FormatBool(x))
		}
		return false
	}
	for i, r := range records {
		if i+2 >= from && match(r) {
			out = append(out, itoa(i+2))
		}
	}
	return out
}

func TestSearch(t *testing.T) {
	dir := t.TempDir()
	recs := memories(30, "medium")
	recs[7].(map[string]any)["content"] = strings.Repeat("filler ", 500) + "the NEEDLE is here" + strings.Repeat(" filler", 500)
	path := offload(t, dir, "medium", recs)
	all := fileLines(t, path)
	oracle := func(pattern string, from int) []string {
		var decoded []any
		for _, l := range all {
			var v any
			_ = json.Unmarshal(l, &v)
			decoded = append(decoded, v)
		}
		return matching(decoded, regexp.MustCompile("(?i)"+pattern), from)
	}
	next := func(lines []string, n int) string {
		i, _ := strconv.Atoi(lines[n-1])
		return itoa(i + 1)
	}
	if len(oracle("rollback", 10)) < 3 || len(oracle(`^0\.92$`, 2)) == 0 {
		t.Fatal("the records do not exercise the search")
	}
	cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir}})
	tests := []struct {
		name    string
		args    map[string]any
		isError bool
		lines   []string // the matches, "line" or "line path"
		note    string
	}{
		{"case-insensitive by default", map[string]any{"pattern": "DECISION 1[0-2]:"}, false, []string{"12", "13", "14"}, "3 matching records, from lines 2-31"},
		{"case-sensitive", map[string]any{"pattern": "DECISION 1", "case_sensitive": true}, false, nil, "No record from line 2 to line 31 matches"},
		{"at most max_results, then where to continue", map[string]any{"pattern": "rollback", "max_results": 2}, false, oracle("rollback", 2)[:2], "Continue with start_line=" + next(oracle("rollback", 2), 2)},
		{"continue from start_line", map[string]any{"pattern": "rollback", "max_results": 2, "start_line": 10}, false, oracle("rollback", 10)[:2], "Continue with start_line=" + next(oracle("rollback", 10), 2)},
		{"numbers match as text", map[string]any{"pattern": `^0\.92$`}, false, oracle(`^0\.92$`, 2), ""},
		{"keys do not match", map[string]any{"pattern": "memory_type"}, false, nil, "No record"},
		{"a long record is shown as a snippet", map[string]any{"pattern": "needle"}, false, []string{"9 .content"}, ""},
		{"invalid expression", map[string]any{"pattern": "(a"}, true, nil, "not a valid regular expression"},
		{"look-ahead is not RE2", map[string]any{"pattern": "a(?=b)"}, true, nil, "RE2"},
		{"empty pattern", map[string]any{"pattern": ""}, true, nil, "pattern is missing or empty"},
		{"start_line 1 is the header", map[string]any{"pattern": "x", "start_line": 1}, true, nil, "start_line must be"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := map[string]any{"file_path": path}
			for k, v := range tt.args {
				args[k] = v
			}
			texts, isErr := call(t, cs, extract.ToolSearch, args)
			if isErr != tt.isError {
				t.Fatalf("isError = %v: %q", isErr, texts)
			}
			answer := strings.Join(texts, "\n")
			if tt.note != "" && !strings.Contains(answer, tt.note) {
				t.Errorf("answer %q lacks %q", answer, tt.note)
			}
			if isErr {
				return
			}
			var got []string
			for _, l := range lines(texts[0]) {
				var m struct {
					Line    int             `json:"file_line"`
					Record  json.RawMessage `json:"record"`
					Path    string          `json:"path"`
					Snippet string          `json:"snippet"`
				}
				if err := json.Unmarshal([]byte(l), &m); err != nil {
					if len(texts) == 1 {
						break // only the note
					}
					t.Fatalf("match %q: %v", l, err)
				}
				if m.Path != "" {
					got = append(got, strings.TrimSpace(strings.Join([]string{itoa(m.Line), m.Path}, " ")))
					if !strings.Contains(m.Snippet, "the NEEDLE is here") || len(m.Snippet) > 400 {
						t.Errorf("snippet %q", m.Snippet)
					}
					continue
				}
				if string(m.Record) != string(all[m.Line-2]) {
					t.Errorf("line %d shows %s, the file has %s", m.Line, m.Record, all[m.Line-2])
				}
				got = append(got, itoa(m.Line))
			}
			if diff := cmp.Diff(tt.lines, got); diff != "" {
				t.Errorf("matches (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSearchFileLine: a match names the line of the file file_line, which
// no record field shadows: a text's records have a line of their own, that
// of the text, one less (issue 32, item 7).
func TestSearchFileLine(t *testing.T) {
	dir := t.TempDir()
	d := offloadWithLRO(t, dir, "", strings.Repeat("nothing here\n", 50)+"the NEEDLE\n"+strings.Repeat("filler ", 2000)+"NEEDLE again\n")
	cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir}})
	texts, isErr := call(t, cs, extract.ToolSearch, map[string]any{"file_path": d.FilePath, "pattern": "needle"})
	if isErr || len(texts) != 2 {
		t.Fatalf("%v %q", isErr, texts)
	}
	var got []map[string]any
	for _, l := range lines(texts[0]) {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "snippet")
		got = append(got, m)
	}
	want := []map[string]any{
		{"file_line": 52.0, "record": map[string]any{"line": 51.0, "text": "the NEEDLE"}},
		{"file_line": 53.0, "path": ".text", "record_bytes": float64(len(fileLines(t, d.FilePath)[51]))},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("matches (-want +got):\n%s", diff)
	}
}

// TestSearchAnswerBounded searches records of every shape for a match
// that is always shown, as the first: the answer passes the threshold by
// at most one match, which is a few KB whatever the keys, depth and values
// of the record.
func TestSearchAnswerBounded(t *testing.T) {
	const threshold = 100
	const slack = 1024 // tokens: one match, at most
	mega := 1 << 20
	nest := func(open, close, leaf string, depth int) json.RawMessage {
		return json.RawMessage(strings.Repeat(open, depth) + leaf + strings.Repeat(close, depth))
	}
	tests := []struct {
		name    string
		records []any
		pattern string
		want    string // in the answer
	}{
		{"a 1 MB key", []any{map[string]any{strings.Repeat("k", mega): "needle"}}, "needle", `"path":".[\"kkkk`},
		{"a 1 MB key of control characters", []any{map[string]any{strings.Repeat("\x01", mega): "needle"}}, "needle", `…`},
		{"a 1 MB key of wide characters", []any{map[string]any{strings.Repeat("日", mega): "needle"}}, "needle", `日日…`},
		{"a deep object", []any{nest(`{"k":`, `}`, `"needle"`, 9000)}, "needle", `.k.k….k.k`},
		{"a deep array", []any{nest(`[`, `]`, `"needle"`, 9000)}, "needle", `[0][0]…[0]`},
		{"long keys at every level", []any{nest(`{"`+strings.Repeat("k", 5000)+`":`, `}`, `"needle"`, 200)}, "needle", `…`},
		{"a 1 MB match", []any{strings.Repeat("x", mega)}, "x+", `"snippet":"xxxx`},
		{"a 1 MB match of wide characters", []any{strings.Repeat("日", mega)}, "日+", `"snippet":"日日`},
		{"a 1 MB match of control characters", []any{strings.Repeat("\x01", mega)}, "\\x01+", `"snippet":"\u0001`},
		{"a match amid a 1 MB value", []any{strings.Repeat("x", mega) + "needle" + strings.Repeat("y", mega)}, "needle", `"snippet":"…xxxxx`},
		{"many large matches", []any{
			map[string]any{strings.Repeat("k", mega): "needle"}, map[string]any{strings.Repeat("k", mega): "needle"}, strings.Repeat("needle", mega/6),
		}, "needle", `"file_line":2`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := offload(t, dir, "full", tt.records)
			cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir, ThresholdTokens: threshold}})
			texts, isErr := call(t, cs, extract.ToolSearch, map[string]any{"file_path": path, "pattern": tt.pattern})
			if isErr || len(texts) != 2 {
				t.Fatalf("%v %.300q", isErr, texts)
			}
			if tokens := estimate.Tokens(texts[0]); tokens > threshold+slack || len(texts[0]) > 8<<10 {
				t.Errorf("answer of %d bytes, %d tokens, above the threshold (%d) + %d: %.300q", len(texts[0]), tokens, threshold, slack, texts[0])
			}
			first := lines(texts[0])[0]
			if !json.Valid([]byte(first)) || !strings.Contains(first, tt.want) {
				t.Errorf("first match %.400q lacks %q", first, tt.want)
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestOutputLimit: MaxOutputBytes counts the results, as the file of an
// answer offloaded in turn holds them, not the records read.
func TestOutputLimit(t *testing.T) {
	dir := t.TempDir()
	path := offload(t, dir, "full", []any{map[string]any{"id": "a", "text": strings.Repeat("x", 5000)}, map[string]any{"id": "b", "text": ""}})
	cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir}, MaxOutputBytes: 1000})
	if texts, isErr := call(t, cs, extract.ToolExtract, map[string]any{"file_path": path, "query": ".text", "raw": true}); !isErr || !strings.Contains(texts[0], "MaxOutputBytes") {
		t.Errorf("a 5000-byte result under a 1000-byte limit: %v %q", isErr, texts)
	}
	if texts, isErr := call(t, cs, extract.ToolExtract, map[string]any{"file_path": path, "query": "."}); !isErr || !strings.Contains(texts[0], "MaxOutputBytes") {
		t.Errorf("a 5000-byte record passed through: %v %q", isErr, texts)
	}
	if texts, isErr := call(t, cs, extract.ToolExtract, map[string]any{"file_path": path, "query": ".id, .text[0:3]", "raw": true}); isErr || texts[0] != "a\nxxx\nb\n" {
		t.Errorf("small results of large records: %v %q", isErr, texts)
	}
	// A string printed raw is held quoted: 300 control characters are
	// 1,802 bytes.
	if texts, isErr := call(t, cs, extract.ToolExtract, map[string]any{"file_path": path, "query": "[range(300) | 1] | implode", "raw": true, "slurp": true}); !isErr || !strings.Contains(texts[0], "MaxOutputBytes") {
		t.Errorf("a raw string of 300 bytes, 1,802 quoted, under a 1000-byte limit: %v %q", isErr, texts)
	}
}
