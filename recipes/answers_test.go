package recipes_test

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"

	"github.com/zircote/lro-go/estimate"
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
}{
	{"issues", "300 issues of about 3 KB as a code-hosting REST API returns them: URLs built from the number, null and constant fields", ghIssues(300)},
	{"pull requests", "40 pull requests of about 20 KB: nested users, repositories, labels", pullRequests(40)},
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
			for _, r := range rs {
				got := runJQ(t, r, path)
				sameEverywhere(t, r, smallPath, small, runJQ(t, r, smallPath))
				if strings.HasPrefix(r.Description, "Show the record ") {
					if len(got) != 1 || len(fmt.Sprint(got[0])) < 1000 {
						t.Errorf("%s: recipe %d %q gives %d outputs; want the one whole record", tc.reason, r.Number, r.Description, len(got))
					}
					continue
				}
				if r.Label == "list" {
					checkInformative(t, tc.reason, r, records, got)
				}
				out, err := exec.Command("sh", "-c", r.Command(path)+" | head -n 10").Output()
				if err != nil {
					t.Fatal(err)
				}
				if n := estimate.Bytes(out); n > defaultThreshold {
					t.Errorf("%s: recipe %d %q: its first ten outputs are ~%d tokens, above the threshold %d:\n%.300s",
						tc.reason, r.Number, r.Description, n, defaultThreshold, out)
				}
			}
		})
	}
}

// checkInformative fails when a field of the listing's outputs got is null
// in most outputs, the same in every output, or contains the identifier in
// every output, as a URL built from it does; and when the listing leaves
// out the number or the title.
func checkInformative(t *testing.T, reason string, r recipes.Recipe, records, got []any) {
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
		case len(distinct) == 1:
			t.Errorf("%s: recipe %d %q lists %s, which is %v in every record", reason, r.Number, r.Description, k, first[k])
		case derived:
			t.Errorf("%s: recipe %d %q lists %s, which holds the %s in every record", reason, r.Number, r.Description, k, id)
		}
	}
	for _, k := range []string{"number", "title"} {
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
