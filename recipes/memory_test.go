package recipes_test

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zircote/lro-go/internal/jqcmd"
	"github.com/zircote/lro-go/recipes"
)

// memories builds n realistic memory records serialized at detail, with a
// few odd ones: a null title, missing and null tags, a null confidence, a
// missing provenance, a title with a tab and a backslash.
func memories(detail recipes.Detail, n int) []any {
	namespaces := []string{
		"_semantic/decisions", "_semantic/decisions", "_semantic/patterns", "_episodic/sessions",
		"_procedural/runbooks", "_semantic/architecture", "_episodic/incidents",
	}
	types := []string{"semantic", "semantic", "episodic", "procedural"}
	subjects := []string{"PostgreSQL", "Redis", "Kafka", "the API gateway", "OAuth tokens", "the billing service"}
	verbs := []string{"Use", "Migrate", "Deprecate", "Document", "Cache"}
	topics := []string{"caching", "latency", "retries", "schema migrations", "rate limiting"}
	tagSets := [][]any{{"architecture", "database"}, {"ops"}, {"architecture"}, {"security", "ops"}, {}, {"database"}}
	var out []any
	for i := range n {
		title := any(fmt.Sprintf("%s %s for %s", verbs[i%len(verbs)], subjects[i%len(subjects)], topics[i%len(topics)]))
		m := map[string]any{
			"id":          fmt.Sprintf("01JMEM%04d", i),
			"title":       title,
			"namespace":   namespaces[i%len(namespaces)],
			"memory_type": types[i%len(types)],
			"tags":        tagSets[i%len(tagSets)],
			"status":      []string{"active", "archived"}[i%5/4],
			"created":     fmt.Sprintf("2024-%02d-%02dT10:%02d:00Z", 1+(i*7)%12, 1+(i*11)%28, i%60),
			"modified":    fmt.Sprintf("2025-%02d-01T00:00:00Z", 1+i%12),
			"content":     "",
		}
		switch i {
		case 3:
			m["title"] = nil
		case 5:
			delete(m, "tags")
		case 8:
			m["tags"] = nil
		case 13:
			m["title"] = "Tabs\tand back\\slashes in a title"
		case 20:
			m["created"] = out[0].(map[string]any)["created"] // a tie
		}
		content := fmt.Sprintf("We decided to %s %s because of %s. Owner: team-%d.",
			strings.ToLower(verbs[i%len(verbs)]), subjects[(i+1)%len(subjects)], topics[(i+2)%len(topics)], i%4)
		conf := float64((i*37)%10) / 10 // ties, to check their order
		switch detail {
		case recipes.Medium:
			m["content"] = content
			m["summary"] = "Summary of " + fmt.Sprint(title)
			m["confidence"] = conf
			if i == 7 {
				m["confidence"] = nil
			}
		case recipes.Full:
			m["content"] = content
			m["summary"] = "Summary of " + fmt.Sprint(title)
			m["entities"] = []any{subjects[i%len(subjects)]}
			m["provenance"] = map[string]any{
				"confidence": conf, "trust_level": "verified", "source_type": "agent", "agent": "claude",
			}
			if i == 7 {
				delete(m, "provenance")
			}
			m["temporal"] = map[string]any{"valid_from": m["created"], "ttl": nil}
		}
		out = append(out, m)
	}
	return out
}

// tsv is jq's @tsv escaping of one field.
func tsv(v any) string {
	if v == nil {
		return ""
	}
	return strings.NewReplacer(`\`, `\\`, "\t", `\t`, "\n", `\n`, "\r", `\r`).Replace(tostring(v))
}

func memoryOracles(detail recipes.Detail) []oracle {
	list := []oracle{
		func(_ recipes.Data, recs []any) []any { // 1
			var out []any
			for _, m := range recs {
				out = append(out, tsv(get(m, "title"))+"\t"+tsv(get(m, "namespace")))
			}
			return out
		},
		func(r recipes.Data, recs []any) []any { // 2
			prefix := param(r, "namespace")
			return filter(recs, func(m any) bool {
				ns, ok := get(m, "namespace").(string)
				return ok && strings.HasPrefix(ns, prefix)
			})
		},
		func(r recipes.Data, recs []any) []any { // 3
			match := matcher(r)
			return filter(recs, func(m any) bool { return match(get(m, "title")) })
		},
		func(_ recipes.Data, recs []any) []any { // 4
			var out []any
			for _, m := range recs {
				out = append(out, map[string]any{"id": get(m, "id"), "title": get(m, "title"), "namespace": get(m, "namespace")})
			}
			return out
		},
		func(r recipes.Data, recs []any) []any { // 5
			return filter(recs, func(m any) bool { return get(m, "memory_type") == param(r, "memory_type") })
		},
		func(_ recipes.Data, recs []any) []any { // 6
			return countGroups(recs, func(m any) any { return get(m, "namespace") }, "namespace", false)
		},
		func(r recipes.Data, recs []any) []any { // 7
			return filter(recs, func(m any) bool {
				tags, _ := get(m, "tags").([]any)
				for _, t := range tags {
					if t == param(r, "tag") {
						return true
					}
				}
				return false
			})
		},
		func(_ recipes.Data, recs []any) []any { // 8
			return sortBy(recs, func(m any) any { return get(m, "created") })
		},
	}
	confidence := func(m any) any { return get(m, "confidence") }
	if detail == recipes.Full {
		confidence = func(m any) any { return get(get(m, "provenance"), "confidence") }
	}
	switch detail {
	case recipes.Light:
		list = append(list,
			func(_ recipes.Data, recs []any) []any { // 9
				set := map[string]bool{}
				for _, m := range recs {
					if ns, ok := get(m, "namespace").(string); ok {
						set[ns] = true
					}
				}
				var out []any
				for _, ns := range keysOfBool(set) {
					out = append(out, ns)
				}
				return out
			},
			func(_ recipes.Data, recs []any) []any { // 10
				return countGroups(recs, func(m any) any { return get(m, "memory_type") }, "memory_type", false)
			})
	default:
		list = append(list,
			func(_ recipes.Data, recs []any) []any { // 9
				return reverse(sortBy(recs, confidence))
			},
			func(r recipes.Data, recs []any) []any { // 10
				match := matcher(r)
				return filter(recs, func(m any) bool { return match(get(m, "content")) })
			})
	}
	return list
}

func keysOfBool(m map[string]bool) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// TestMemoryAgainstJQ runs every recipe of the memory library with the real
// jq on a real file at each detail level, and checks the output against the
// answer computed in Go, and against gojq (the engine of lro_extract).
func TestMemoryAgainstJQ(t *testing.T) {
	needJQ(t)
	for _, detail := range []recipes.Detail{recipes.Light, recipes.Medium, recipes.Full} {
		t.Run(string(detail), func(t *testing.T) {
			records := memories(detail, 42)
			path := writeFile(t, nastyDir(t), string(detail), records)
			rs := recipes.Memory(detail, sample(t, records))
			check(t, rs, path, roundTrip(t, records), memoryOracles(detail))

			// Every parameterized recipe selects something, but not everything.
			for _, r := range rs {
				if len(r.Params) == 0 {
					continue
				}
				got := runJQ(t, r, path)
				if len(got) == 0 || len(got) == len(records) && r.Params[0].Name == "keyword" {
					t.Errorf("recipe %d %q with %v: %d of %d records; want a real selection", r.Number, r.Description, r.Params, len(got), len(records))
				}
			}
		})
	}
}

func TestMemoryDefaults(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		sample []any
		want   map[string]string // parameter name -> value, per "number/name"
	}{
		{
			name:   "empty",
			reason: "without a sample the specification's literals are used",
			sample: nil,
			want:   map[string]string{"2/namespace": "_semantic", "3/keyword": "keyword", "5/memory_type": "semantic", "7/tag": "TAG", "10/keyword": "keyword"},
		},
		{
			name:   "most common",
			reason: "the namespace prefix, type and tag counted over the sample; ties go to the alphabetically first",
			sample: []any{
				map[string]any{"id": "1", "title": "Kafka retention policy", "namespace": "_episodic/sessions", "memory_type": "episodic", "tags": []any{"zeta", "ops"}, "content": "Retention tuned for throughput"},
				map[string]any{"id": "2", "title": "Redis eviction policy", "namespace": "_semantic/decisions", "memory_type": "semantic", "tags": []any{"ops", "ops"}, "content": "Eviction with LRU"},
				map[string]any{"id": "3", "title": "Choose Postgres", "namespace": "_semantic/patterns", "memory_type": "semantic", "tags": []any{"zeta"}, "content": "Postgres for everything"},
				map[string]any{"id": "4", "title": "Backups", "namespace": "_procedural", "memory_type": "procedural", "tags": nil, "content": nil},
			},
			want: map[string]string{"2/namespace": "_semantic", "3/keyword": "policy", "5/memory_type": "semantic", "7/tag": "ops", "10/keyword": "everything"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := map[string]string{}
			for _, r := range recipes.Memory(recipes.Medium, sample(t, tt.sample)) {
				for _, p := range r.Params {
					got[fmt.Sprintf("%d/%s", r.Number, p.Name)] = p.Value
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s: defaults mismatch (-want +got):\n%s", tt.reason, diff)
			}
		})
	}
}

// TestMemoryRules checks the normative rules of the specification on the
// recipes of every detail level.
func TestMemoryRules(t *testing.T) {
	lightFields := regexp.MustCompile(`\.(content|summary|confidence|provenance|entities|score)\b`)
	for _, detail := range []recipes.Detail{recipes.Light, recipes.Medium, recipes.Full, "bogus"} {
		rs := recipes.Memory(detail, sample(t, memories(recipes.Full, 10)))
		checkNumbered(t, string(detail), rs)
		text := allText(rs)
		if strings.Contains(text, ".score") {
			t.Errorf("%s: a recipe references .score", detail)
		}
		if diff := cmp.Diff(recipes.Memory(recipes.Light, nil)[:8], recipes.Memory(detail, nil)[:8]); diff != "" {
			t.Errorf("%s: recipes 1-8 differ from Light (-light +%s):\n%s", detail, detail, diff)
		}
		hasFlat := regexp.MustCompile(`(^|[^A-Za-z0-9_])\.confidence`).MatchString(text)
		hasNested := strings.Contains(text, ".provenance.confidence")
		switch detail {
		case recipes.Medium:
			if !hasFlat || hasNested {
				t.Errorf("medium: want .confidence and not .provenance.confidence; got flat=%v nested=%v", hasFlat, hasNested)
			}
		case recipes.Full:
			if hasFlat || !hasNested {
				t.Errorf("full: want .provenance.confidence and not .confidence; got flat=%v nested=%v", hasFlat, hasNested)
			}
		default: // Light, and unknown levels treated as Light
			if m := lightFields.FindString(text); m != "" {
				t.Errorf("%s: references %s, which Light records do not have", detail, m)
			}
		}
	}
}

func TestIsMemory(t *testing.T) {
	mem := map[string]any{"id": "1", "title": "t", "namespace": "_semantic", "memory_type": "semantic"}
	tests := []struct {
		name   string
		reason string
		sample []any
		want   bool
	}{
		{"empty", "nothing says these are memories", nil, false},
		{"memories", "every record has the four memory fields", []any{mem, mem}, true},
		{"full records", "extra fields do not matter", memories(recipes.Full, 3), true},
		{"missing memory_type", "a record without memory_type is not a memory", []any{map[string]any{"id": "1", "title": "t", "namespace": "n"}}, false},
		{"most", "one odd record among memories", []any{mem, mem, "x"}, true},
		{"half", "half is not most", []any{mem, map[string]any{"id": 1}}, false},
		{"strings", "plain strings", []any{"a", "b"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := recipes.IsMemory(sample(t, tt.sample)); got != tt.want {
				t.Errorf("%s: IsMemory = %v, want %v", tt.reason, got, tt.want)
			}
		})
	}
}

func TestFor(t *testing.T) {
	mems := sample(t, memories(recipes.Full, 5))
	if diff := cmp.Diff(recipes.Memory(recipes.Full, mems), recipes.For(recipes.Full, mems)); diff != "" {
		t.Errorf("For(memories) is not Memory (-want +got):\n%s", diff)
	}
	other := sample(t, []any{map[string]any{"name": "x", "size": 1}})
	if diff := cmp.Diff(recipes.Generic(other), recipes.For(recipes.Full, other)); diff != "" {
		t.Errorf("For(other) is not Generic (-want +got):\n%s", diff)
	}
}

// checkNumbered checks that rs has exactly 10 distinct, described recipes
// numbered 1 to 10, each with a label of its own, no longer than its
// description.
func checkNumbered(t *testing.T, name string, rs []recipes.Data) {
	t.Helper()
	if len(rs) != recipes.Count {
		t.Fatalf("%s: %d recipes, want %d", name, len(rs), recipes.Count)
	}
	seen := map[string]bool{}
	labels := map[string]int{}
	for i, r := range rs {
		if r.Number != i+1 {
			t.Errorf("%s: recipe at index %d has Number %d", name, i, r.Number)
		}
		if r.Description == "" || r.Filter == "" {
			t.Errorf("%s: recipe %d lacks a description or filter: %+v", name, r.Number, r)
		}
		if r.Label == "" || len(r.Label) > len(r.Description) {
			t.Errorf("%s: recipe %d has label %q, want a few words, no longer than its description %q", name, r.Number, r.Label, r.Description)
		}
		if n, ok := labels[r.Label]; ok {
			t.Errorf("%s: recipes %d and %d have the same label %q", name, n, r.Number, r.Label)
		}
		labels[r.Label] = r.Number
		if seen[r.Filter] {
			t.Errorf("%s: recipe %d repeats filter %q", name, r.Number, r.Filter)
		}
		seen[r.Filter] = true
		for _, p := range r.Params {
			if !strings.Contains(r.Filter, "$"+p.Name) {
				t.Errorf("%s: recipe %d has parameter %s its filter does not use", name, r.Number, p.Name)
			}
		}
	}
}

func allText(rs []recipes.Data) string {
	var b strings.Builder
	for _, r := range rs {
		b.WriteString(r.Filter + "\n" + r.Command("/tmp/f.jsonl") + "\n")
	}
	return b.String()
}

// TestMemoryAmongOtherValues runs the memory library on a file of memory
// records among values that are not objects, which Select still takes for
// memory records (most records are memories, see TestIsMemory): every
// recipe must run under every jq and give what it gives on the memory
// records alone. The filters indexed every record, and jq failed on the
// first string ("Cannot index string with title").
func TestMemoryAmongOtherValues(t *testing.T) {
	needJQ(t)
	for _, detail := range []recipes.Detail{recipes.Light, recipes.Medium, recipes.Full} {
		t.Run(string(detail), func(t *testing.T) {
			mems := memories(detail, 12)
			records := append([]any{"a note", 7.5, []any{"x"}, true}, mems...)
			smp := sample(t, records)
			if !recipes.IsMemory(smp) {
				t.Fatal("not memory records: the test proves nothing")
			}
			path := writeFile(t, nastyDir(t), string(detail), records)
			memPath := writeFile(t, nastyDir(t), string(detail), mems)
			for _, r := range recipes.Memory(detail, smp) {
				got := runJQ(t, r, path)
				if diff := cmp.Diff(runJQ(t, r, memPath), got, approx); diff != "" {
					t.Errorf("recipe %d %q: output differs from the memory records' alone (-want +got):\n%s", r.Number, r.Description, diff)
				}
				sameEverywhere(t, r, path, roundTrip(t, records), got)
			}
		})
	}
}

// TestMemoryMistypedFields runs the memory library on a file of memory
// records among records that carry the memory fields but not their types: a
// title or namespace that is an object or an array, a provenance that is a
// string, an array or a number. Select takes them for memory records (they
// have id, title, namespace and memory_type); every recipe must run under
// every jq and give the answer computed in Go, where a container cell is
// its JSON text and a provenance that is not an object has no confidence.
// Recipe 9 of Full still reads .provenance.confidence as one path, as the
// conformance kit (lro/lrotest, L2.recipes.detail) wants.
// Recipe 1 failed ("object ({...}) is not valid in a csv row") and recipe 9
// of Full ("Cannot index string with string \"confidence\"").
func TestMemoryMistypedFields(t *testing.T) {
	needJQ(t)
	odd := func(id string, m map[string]any) map[string]any {
		r := map[string]any{"id": id, "title": "Odd one", "namespace": "_semantic/odd", "memory_type": "semantic", "created": "2024-06-01T00:00:00Z"}
		for k, v := range m {
			r[k] = v
		}
		return r
	}
	for _, detail := range []recipes.Detail{recipes.Light, recipes.Medium, recipes.Full} {
		t.Run(string(detail), func(t *testing.T) {
			records := memories(detail, 12)
			records = append(records[:6:6], append([]any{
				odd("odd-1", map[string]any{"title": map[string]any{"en": "Cache\tkeys", "fr": "Clés"}}),
				odd("odd-2", map[string]any{"namespace": []any{"_semantic", "decisions"}}),
				odd("odd-3", map[string]any{"provenance": "imported by hand", "title": []any{}}),
				odd("odd-4", map[string]any{"provenance": []any{map[string]any{"confidence": 1}}, "namespace": map[string]any{}}),
				odd("odd-5", map[string]any{"provenance": 0.9}),
			}, records[6:]...)...)
			smp := sample(t, records)
			if !recipes.IsMemory(smp) {
				t.Fatal("not memory records: the test proves nothing")
			}
			path := writeFile(t, nastyDir(t), string(detail), records)
			oracles := memoryOracles(detail)
			if detail == recipes.Full {
				// A provenance that is not an object has no confidence
				// (.provenance.confidence? is empty): its records sort
				// after those of a null confidence ([] before [null]).
				oracles[8] = func(_ recipes.Data, recs []any) []any {
					return reverse(sortBy(recs, func(m any) any {
						switch p := get(m, "provenance").(type) {
						case nil, map[string]any:
							return []any{get(p, "confidence")}
						}
						return []any{}
					}))
				}
			}
			rs := recipes.Memory(detail, smp)
			check(t, rs, path, roundTrip(t, records), oracles)
			if detail == recipes.Full {
				refs, err := jqcmd.FieldRefs(rs[8].Filter)
				if want := [][]string{{"provenance", "confidence"}}; err != nil || !cmp.Equal(refs.All, want) {
					t.Errorf("recipe 9 %q reads %v (%v), want only %v", rs[8].Filter, refs.All, err, want)
				}
			}
		})
	}
}
