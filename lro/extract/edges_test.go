package extract_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/extract"
)

// TestLargestIntegerArguments gives the integer arguments the largest
// value a caller may write, math.MaxInt64, which a float64 rounds to 2^63:
// each means "no bound" and the answer is that of a large value, where the
// rounded value converted to int wrapped to a negative (lro_search with
// max_results=9223372036854775807 answered that no record matches).
func TestLargestIntegerArguments(t *testing.T) {
	dir := t.TempDir()
	path := offload(t, dir, "light", memories(5, "light"))
	cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir}})
	const largest = 9223372036854775807
	texts, isErr := call(t, cs, extract.ToolSearch, map[string]any{"file_path": path, "pattern": "Decision", "max_results": largest})
	if all := strings.Join(texts, "\n"); isErr || strings.Count(all, `"file_line"`) != 5 {
		t.Errorf("search with max_results=%d: %v %q", largest, isErr, all)
	}
	texts, isErr = call(t, cs, extract.ToolRead, map[string]any{"file_path": path, "line": 2, "limit": largest})
	if isErr || len(texts) == 0 || len(lines(texts[0])) != 5 {
		t.Errorf("read with limit=%d: %v %q", largest, isErr, texts)
	}
	texts, isErr = call(t, cs, extract.ToolRead, map[string]any{"file_path": path, "line": largest})
	if all := strings.Join(texts, "\n"); !isErr || !strings.Contains(all, "past the end of the file, which has 6 lines") {
		t.Errorf("read from line %d: %v %q", largest, isErr, all)
	}
	texts, isErr = call(t, cs, extract.ToolSearch, map[string]any{"file_path": path, "pattern": "Decision", "start_line": largest})
	if all := strings.Join(texts, "\n"); isErr || strings.Contains(all, `"file_line"`) || strings.Contains(all, "-") {
		t.Errorf("search from line %d: %v %q", largest, isErr, all)
	}
	texts, isErr = call(t, cs, extract.ToolRead, map[string]any{"file_path": path, "line": 2, "limit": 1, "char_offset": largest})
	if all := strings.Join(texts, "\n"); isErr || texts[0] != "2: \n" || strings.Contains(all, "-9") {
		t.Errorf("read from character %d: %v %q", largest, isErr, all)
	}
}

// TestWherePreviewKeepsIntegers: the lead of a where answer shows the
// identifying fields of the first matches as the records hold them, as the
// records themselves are printed; a 17-digit id was shown rounded to a
// float64 (12345678901234567 as 12345678901234568).
func TestWherePreviewKeepsIntegers(t *testing.T) {
	body := strings.Repeat("Steps to reproduce: run the server under load and watch the logs. ", 40)
	records := make([]any, 50)
	for i := range records {
		records[i] = map[string]any{"id": int64(12345678901234567) + int64(2*i),
			"title": fmt.Sprintf("Crash number %d under load", i), "state": "open", "body": body}
	}
	dir := t.TempDir()
	path := offload(t, dir, "full", records)
	cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir}})
	texts, isErr := call(t, cs, extract.ToolExtract, map[string]any{"file_path": path, "where": map[string]any{"state": "open"}})
	if isErr {
		t.Fatal(texts)
	}
	lead := texts[0]
	if !strings.Contains(lead, "50 records match") || !strings.Contains(lead, `"id":12345678901234567,`) || !strings.Contains(lead, `"id":12345678901234569,`) {
		t.Errorf("the lead does not show the first record's number as written:\n%s", lead)
	}
}

// TestReadCRLFAtABufferEdge reads a CRLF line whose '\r' is the last byte
// of a 64 KiB read and whose '\n' is the first of the next: as any other
// CRLF line, its line ending is not part of it.
func TestReadCRLFAtABufferEdge(t *testing.T) {
	dir := t.TempDir()
	lf := offload(t, dir, "light", []any{map[string]any{"text": ""}})
	file, err := os.ReadFile(lf)
	if err != nil {
		t.Fatal(err)
	}
	header, _, _ := strings.Cut(string(file), "\n")
	rec := `{"text":"` + strings.Repeat("a", 65535-len(`{"text":""}`)) + `"}`
	if err := os.WriteFile(lf, []byte(header+"\r\n"+rec+"\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir}})
	texts, isErr := call(t, cs, extract.ToolRead, map[string]any{"file_path": lf, "line": 2, "char_offset": len(rec) - 4, "max_chars": 10})
	if all := strings.Join(texts, "\n"); isErr || texts[0] != "2: aa\"}\n" {
		t.Errorf("%v %q", isErr, all)
	}
	texts, isErr = call(t, cs, extract.ToolRead, map[string]any{"file_path": lf, "line": 2, "max_chars": 10})
	if all := strings.Join(texts, "\n"); isErr || !strings.Contains(all, fmt.Sprintf("Line 2 has %d characters", len(rec))) {
		t.Errorf("%v %q", isErr, all)
	}
	// A last line that ends in '\r' without '\n', as the records are read.
	if err := os.WriteFile(lf, []byte(header+"\n"+`{"a":1}`+"\r"), 0o600); err != nil {
		t.Fatal(err)
	}
	texts, isErr = call(t, cs, extract.ToolRead, map[string]any{"file_path": lf, "line": 2})
	if isErr || texts[0] != "2: {\"a\":1}\n" {
		t.Errorf("%v %q", isErr, texts)
	}
}

// TestSearchLongIntegers searches for integers of 19 digits and more, such
// as the snowflake ids of many APIs, which a float64 cannot hold: a record
// holding one matches a pattern of its digits as written, where the search
// matched the rounded float64 (12345678901234567891 as 12345678901234567000)
// and answered that no record matches.
func TestSearchLongIntegers(t *testing.T) {
	dir := t.TempDir()
	path := offload(t, dir, "light", []any{map[string]any{"id": 1}, map[string]any{"id": json.Number("1234567890123456789")},
		map[string]any{"id": json.Number("-12345678901234567891")}, map[string]any{"id": json.Number("123456789012345678901234567890")}})
	cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir}})
	for pattern, line := range map[string]string{"1234567890123456789": `"file_line":3`, "^-12345678901234567891$": `"file_line":4`, "1234567890$": `"file_line":5`} {
		texts, isErr := call(t, cs, extract.ToolSearch, map[string]any{"file_path": path, "pattern": pattern})
		if all := strings.Join(texts, "\n"); isErr || !strings.Contains(all, line) {
			t.Errorf("search for %q: %v %q", pattern, isErr, all)
		}
	}
}

// TestRecipeParamLongInteger gives a recipe parameter, a string, as a
// number of 16 digits and more: it is the digits as written, as the
// descriptor's jq --arg takes them, where it became
// "1.234567890123456e+15" (or, past 2^53, a rounded number) and matched
// nothing.
func TestRecipeParamLongInteger(t *testing.T) {
	dir := t.TempDir()
	recs := memories(3, "light")
	recs[1].(map[string]any)["title"] = "Decision 1234567890123456: cache strategy"
	recs[2].(map[string]any)["title"] = "Decision 12345678901234567: cache strategy"
	path := offload(t, dir, "light", recs)
	cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir}})
	for _, n := range []json.Number{"1234567890123456", "12345678901234567"} {
		texts, isErr := call(t, cs, extract.ToolExtract, map[string]any{"file_path": path, "recipe": 3, "params": map[string]any{"keyword": n}})
		if all := strings.Join(texts, "\n"); isErr || !strings.Contains(all, "Decision "+string(n)+":") {
			t.Errorf("recipe 3 with keyword %s: %v %q", n, isErr, all)
		}
	}
}

// TestWhereFieldsBounded: fields is bounded as where and query are. The
// filter's text, fields included, is the query in the header of an answer
// offloaded in turn, which the tools read within 1 MiB: unbounded fields
// made an answer none of them could open, and each path is work on every
// record.
func TestWhereFieldsBounded(t *testing.T) {
	dir := t.TempDir()
	path := offload(t, dir, "light", memories(3, "light"))
	cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir}})
	fields := make([]string, 8000)
	for i := range fields {
		fields[i] = fmt.Sprintf("field_%d", i)
	}
	texts, isErr := call(t, cs, extract.ToolExtract, map[string]any{"file_path": path, "where": map[string]any{"status": "active"}, "fields": fields})
	if all := strings.Join(texts, "\n"); !isErr || !strings.Contains(all, "fields is") || !strings.Contains(all, "more than 65536") {
		t.Errorf("%v %.300q", isErr, all)
	}
}
