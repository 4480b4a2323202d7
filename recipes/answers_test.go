package recipes_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"os/exec"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/zircote/lro-go/estimate"
	"github.com/zircote/lro-go/internal/testing/realshapes"
	"github.com/zircote/lro-go/recipes"
)

// defaultThreshold is the offload threshold of lro's defaults, in tokens:
// an answer within it is returned inline.
const defaultThreshold = 1600

// largeRecordSets are results whose records are a few KB, as real
// services return them.
var largeRecordSets = []struct {
	name, reason string
	records      []any
	listed       []string // fields the listing names
	copies       bool     // the records are all copies of one
}{
	{"issues", "300 issues of about 3 KB as a code-hosting REST API returns them: URLs built from the number, null and constant fields", ghIssues(300), []string{"number", "title"}, false},
	{"pull requests", "40 pull requests of about 20 KB: nested users, repositories, labels", pullRequests(40), []string{"number", "title"}, false},
	{"countries", "world-countries' first 8 countries of about 3 KB, 25 times: no plain identifier or title (the codes repeat in the sample, the name is an object), status the same in every record",
		corpusRecords("world-countries/json", 25), []string{"cca2", "name.common"}, false},
	{"countries, odd names", "the same countries, with name a string for one country and missing for another: no recipe may fail on them",
		oddCountryNames(corpusRecords("world-countries/json", 25)), []string{"cca2", "name.common"}, false},
	{"one issue", "the one issue of GitHub's REST API description, 40 times: every field the same, closed_at and pinned_comment null", corpusRecords("github-api/issue-items", 40), []string{"number", "title"}, true},
	{"one commit", "the one commit of GitHub's REST API description, 40 times: no top-level title, the message one level down", corpusRecords("github-api/commit-items", 40), []string{"sha", "commit.message"}, true},
}

// corpusRecords returns the records of the JSON array of the first text
// of the real-shapes item name, copies times.
func corpusRecords(name string, copies int) []any {
	items, err := realshapes.Items()
	if err != nil {
		panic(err)
	}
	for _, it := range items {
		if it.Name != name {
			continue
		}
		var recs []any
		if err := json.Unmarshal([]byte(it.Result.Content[0].(*mcp.TextContent).Text), &recs); err != nil {
			panic(fmt.Sprintf("%s: %v", name, err))
		}
		var out []any
		for range copies {
			out = append(out, recs...)
		}
		return out
	}
	panic("no corpus item " + name)
}

// oddCountryNames returns the records of 8 countries, repeated, with a
// name that is a string in those of the 4th country and none in those of
// the 6th.
func oddCountryNames(records []any) []any {
	for i, r := range records {
		o := maps.Clone(r.(map[string]any))
		switch i % 8 {
		case 3:
			o["name"] = "Nowhere"
		case 5:
			delete(o, "name")
		}
		records[i] = o
	}
	return records
}

// recordAnswer reports whether a recipe's outputs are records or parts of
// them: a listing, a top k, a filter, the first or last records.
func recordAnswer(description string) bool {
	for _, p := range []string{"List ", "Top ", "Filter ", "Search ", "Records ", "Show the first ", "Show the last ", "Show the 5 "} {
		if strings.HasPrefix(description, p) {
			return true
		}
	}
	return false
}

// uninformative returns the top-level fields of the object records that
// are null in every record or, unless the records are copies of one, the
// same in every record, with why.
func uninformative(records []any, copies bool) map[string]string {
	first := map[string]string{}
	same, null := map[string]bool{}, map[string]bool{}
	for i, r := range records {
		o, _ := r.(map[string]any)
		for k, v := range o {
			b, _ := json.Marshal(v)
			if _, ok := first[k]; !ok {
				first[k], same[k], null[k] = string(b), i == 0, i == 0 && v == nil
			}
			same[k] = same[k] && string(b) == first[k]
			null[k] = null[k] && v == nil
		}
		for k := range first {
			if _, ok := o[k]; !ok {
				same[k], null[k] = false, false
			}
		}
	}
	out := map[string]string{}
	for k := range first {
		switch {
		case null[k]:
			out[k] = "null in every record"
		case same[k] && !copies:
			out[k] = "the same in every record: " + first[k]
		}
	}
	return out
}

// TestAnswersFit checks, on records of a few KB, that the listing names
// the number and the title, and no field that is null in most records,
// constant, or built from the identifier in every record, and that every recipe but the two that show one whole record
// answers a question inline: its first ten outputs (a top 10, the first
// matches of a filter, the head of a listing) fit in the default threshold.
// The full record stays one recipe away: the lookup shows it whole. Every
// recipe gives the same output under jq 1.6, gojq and the jq releases of
// package jqengines (on the first records).
func TestAnswersFit(t *testing.T) {
	needJQ(t)
	for _, tc := range largeRecordSets {
		t.Run(tc.name, func(t *testing.T) {
			path := writeFile(t, t.TempDir(), "", tc.records)
			records := roundTrip(t, tc.records)
			// jq 1.7.1 in WebAssembly takes minutes on a MB: the releases
			// are compared on the first records.
			n, size := 2, 0
			for _, raw := range sample(t, tc.records) {
				if size += len(raw); size > 40<<10 {
					break
				}
				n++
			}
			small := head(records, n)
			smallPath := writeFile(t, t.TempDir(), "", tc.records[:n])
			rs := recipes.Generic(sample(t, tc.records))
			checkNumbered(t, tc.reason, rs)
			bad := uninformative(records, tc.copies)
			listing := false
			for _, r := range rs {
				got := runJQ(t, r, path)
				sameEverywhere(t, r, smallPath, small, runJQ(t, r, smallPath))
				if strings.HasPrefix(r.Description, "Show the record ") {
					// The records repeat: every output is the one record.
					one := len(got) > 0 && len(fmt.Sprint(got[0])) >= 1000
					for _, v := range got {
						one = one && fmt.Sprint(v) == fmt.Sprint(got[0])
					}
					if !one {
						t.Errorf("%s: recipe %d %q gives %d outputs; want the one whole record", tc.reason, r.Number, r.Description, len(got))
					}
					continue
				}
				if r.Label == "list" {
					listing = true
					checkInformative(t, tc.reason, r, records, got, tc.listed, tc.copies)
				}
				if recordAnswer(r.Description) {
					named := map[string]bool{}
					for _, v := range head(got, 10) {
						o, _ := v.(map[string]any)
						for k := range o {
							if why, ok := bad[k]; ok && !named[k] {
								named[k] = true
								t.Errorf("%s: recipe %d %q outputs %s, which is %s", tc.reason, r.Number, r.Description, k, why)
							}
						}
					}
				}
				out, err := exec.Command("sh", "-c", r.Command(path)+" | head -n 10").Output()
				if err != nil {
					t.Fatal(err)
				}
				if n := estimate.Tokens(string(out)); n > defaultThreshold {
					t.Errorf("%s: recipe %d %q: its first ten outputs are ~%d tokens, above the threshold %d:\n%.300s",
						tc.reason, r.Number, r.Description, n, defaultThreshold, out)
				}
			}
			if !listing {
				t.Errorf("%s: no recipe lists the records", tc.reason)
			}
		})
	}
}

// checkInformative fails when a field of the listing's outputs got is null
// in most outputs, the same in every output (unless the records are copies
// of one), or contains the identifier in every output, as a URL built from
// it does; and when the listing leaves out a field of listed.
func checkInformative(t *testing.T, reason string, r recipes.Data, records, got []any, listed []string, copies bool) {
	t.Helper()
	if len(got) != len(records) || len(got) < 2 {
		t.Fatalf("%s: the listing gives %d outputs for %d records", reason, len(got), len(records))
	}
	first := got[0].(map[string]any)
	var id string
	for _, k := range []string{"number", "id"} {
		if _, ok := first[k]; ok {
			id = k
		}
	}
	for k := range first {
		distinct, derived, nulls := map[string]bool{}, id != "" && k != id, 0
		for _, o := range got {
			v := o.(map[string]any)[k]
			distinct[tostring(v)] = true
			if v == nil {
				nulls++
			}
			if s, ok := v.(string); !ok || !strings.Contains(s, tostring(o.(map[string]any)[id])) {
				derived = false
			}
		}
		switch {
		case 2*nulls > len(got):
			t.Errorf("%s: recipe %d %q lists %s, which is null in %d of %d records", reason, r.Number, r.Description, k, nulls, len(got))
		case len(distinct) == 1 && !copies:
			t.Errorf("%s: recipe %d %q lists %s, which is %v in every record", reason, r.Number, r.Description, k, first[k])
		case derived && !copies:
			t.Errorf("%s: recipe %d %q lists %s, which holds the %s in every record", reason, r.Number, r.Description, k, id)
		}
	}
	for _, k := range listed {
		if _, ok := first[k]; !ok {
			t.Errorf("%s: recipe %d %q does not list %s", reason, r.Number, r.Description, k)
		}
	}
}

// TestGenericInformativeFields checks that the recipes choose fields from
// the records' values: a field with one value in every record (the score
// of search results, a repository URL) is never listed, ranked or
// counted, and of two times the one most records have is used.
func TestGenericInformativeFields(t *testing.T) {
	search := func(n int) []any {
		var out []any
		for i, v := range ghIssues(n) {
			o := v.(map[string]any)
			o["score"] = 1.0
			o["comments"] = 0
			if i%3 != 0 {
				o["closed_at"] = nil
			}
			out = append(out, o)
		}
		return out
	}
	tests := []struct {
		name, reason string
		records      []any
		never        []string // fields no recipe may name
		want         []string // fields some recipe must name
	}{
		{"search results", "score is 1 and comments 0 in every record: nothing to rank; closed_at is null in most records", search(30),
			[]string{"score", "comments", "repository_url", "closed_at"}, []string{"number", "title", "created_at", "state"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := recipes.Generic(sample(t, tt.records))
			checkNumbered(t, tt.reason, rs)
			text := allText(rs)
			for _, f := range tt.never {
				if strings.Contains(text, "."+f) || strings.Contains(text, " "+f) {
					t.Errorf("%s: a recipe names %s:\n%s", tt.reason, f, text)
				}
			}
			for _, f := range tt.want {
				if !strings.Contains(text, f) {
					t.Errorf("%s: no recipe names %s:\n%s", tt.reason, f, text)
				}
			}
		})
	}
}

// TestListingNamesAFieldOnce: on one large record (or copies of one) whose
// best key and best title are the same field, a real package-lock.json
// (its "name"), the listing names it once. keyField and titleField both
// chose "name": the recipes listed {name,name}, described as "List name,
// name and lockfileVersion", and the preview showed the field twice.
func TestListingNamesAFieldOnce(t *testing.T) {
	apis, err := realshapes.APIs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range apis {
		if a.Name != "npm-package-lock.json" {
			continue
		}
		for _, copies := range []int{1, 3} {
			smp := make([]json.RawMessage, copies)
			for i := range smp {
				smp[i] = json.RawMessage(a.Data)
			}
			rs, _ := recipes.Select(recipes.Full, smp)
			for i, r := range rs {
				if d, f := r.Description, recipes.DataOf(rs)[i].Filter; strings.Contains(d, "name, name") || strings.Contains(f, "{name, name") {
					t.Errorf("%d copies: recipe %d %q names a field twice: %s", copies, i+1, d, f)
				}
			}
			seen := map[string]bool{}
			for _, p := range recipes.Projection(rs) {
				k := strings.Join(p, ".")
				if seen[k] {
					t.Errorf("%d copies: the preview shows .%s twice: %v", copies, k, recipes.Projection(rs))
				}
				seen[k] = true
			}
			if got := recipes.Projection(rs); len(got) == 0 || got[0][0] != "name" {
				t.Errorf("%d copies: preview %v, want it to show the name", copies, got)
			}
		}
		return
	}
	t.Fatal("no npm-package-lock.json in realshapes.APIs")
}
