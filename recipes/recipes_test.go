package recipes_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/itchyny/gojq"

	"github.com/zircote/lro-go/internal/testing/fuzzrecords"
	"github.com/zircote/lro-go/recipes"
)

var nasty = []string{
	"",
	"plain",
	"with space",
	"it's",
	"''",
	`'\''`,
	`"double" and 'single'`,
	"$HOME ${PATH} $(echo pwned) `echo pwned`",
	`back\slash \n \\`,
	"new\nline and\ttab\r",
	"glob * ? [a-z] ~ ~root",
	"semi; && || | > < & #comment",
	"-n",
	"--arg",
	"ünïcødé ✓ 日本語",
	"\x01\x7f control",
	"!history !!",
}

func TestCommand(t *testing.T) {
	tests := []struct {
		name   string
		reason string
		r      recipes.Data
		file   string
		want   string
	}{
		{
			name:   "plain",
			reason: "tail skips the header; a plain path is left as it is, the filter is compacted and quoted",
			r:      recipes.Data{Filter: "{id, title, namespace}", Compact: true},
			file:   "/tmp/atlatl-recall-01J.jsonl",
			want:   `tail -n +2 /tmp/atlatl-recall-01J.jsonl | jq -c '{id,title,namespace}'`,
		},
		{
			name:   "flags and params",
			reason: "flags as one word in the order s r c, then one --arg per parameter with its value quoted when it is not a plain word",
			r: recipes.Data{
				Filter: `select(.a == $a and .b == $b)`, Slurp: true, Raw: true, Compact: true,
				Params: []recipes.Param{{Name: "a", Value: "x y"}, {Name: "b", Value: "it's"}, {Name: "c", Value: "_semantic/x"}, {Name: "d", Value: "-v"}},
			},
			file: "/tmp/f.jsonl",
			want: `tail -n +2 /tmp/f.jsonl | jq -src --arg a 'x y' --arg b 'it'\''s' --arg c _semantic/x --arg d '-v' 'select(.a == $a and .b == $b)'`,
		},
		{
			name:   "nasty path",
			reason: "quotes, spaces, $ and backquotes in the path are quoted",
			r:      recipes.Data{Filter: "length", Slurp: true},
			file:   "/tmp/a b/it's $x `y`.jsonl",
			want:   `tail -n +2 '/tmp/a b/it'\''s $x ` + "`y`" + `.jsonl' | jq -s length`,
		},
		{
			name:   "dash path",
			reason: "a relative path starting with '-' is not an option of tail",
			r:      recipes.Data{Filter: "."},
			file:   "-n.jsonl",
			want:   `tail -n +2 ./-n.jsonl | jq .`,
		},
		{
			name:   "odd param name",
			reason: "a parameter name that is not a plain word is quoted too",
			r:      recipes.Data{Filter: ".", Params: []recipes.Param{{Name: "a b", Value: ""}}},
			file:   "/f",
			want:   `tail -n +2 /f | jq --arg 'a b' '' .`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.r.Command(tt.file)); diff != "" {
				t.Errorf("%s: Command mismatch (-want +got):\n%s", tt.reason, diff)
			}
		})
	}
}

func TestArgs(t *testing.T) {
	r := recipes.Data{Filter: "f", Slurp: true, Raw: true, Compact: true, Params: []recipes.Param{{Name: "k", Value: "it's"}}}
	want := []string{"-s", "-r", "-c", "--arg", "k", "it's", "f"}
	if diff := cmp.Diff(want, r.Args()); diff != "" {
		t.Errorf("Args mismatch (-want +got):\n%s", diff)
	}
}

// TestCommandPassesValuesVerbatim runs commands whose parameter values,
// filter and path are hostile, and checks that jq sees them unchanged and
// that the shell ran nothing else.
func TestCommandPassesValuesVerbatim(t *testing.T) {
	needJQ(t)
	dir := nastyDir(t)
	path := writeFile(t, dir, "light", []any{map[string]any{"x": 1}})
	canary := filepath.Join(dir, "pwned")
	for _, v := range append(nasty, "'; touch "+canary+"; '", "$(touch "+canary+")") {
		r := recipes.Data{Filter: `$v + " | it's"`, Raw: true, Params: []recipes.Param{{Name: "v", Value: v}}}
		got := runJQ(t, r, path)
		want := lines(v + " | it's\n")
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("value %q (-want +got):\n%s", v, diff)
		}
	}
	if _, err := os.Stat(canary); err == nil {
		t.Fatal("a parameter value ran a shell command")
	}
}

// TestFiltersCompile compiles the filter of every recipe with gojq, with the
// parameters as variables, the way lro_extract will.
func TestFiltersCompile(t *testing.T) {
	var all []recipes.Data
	for _, d := range []recipes.Detail{recipes.Light, recipes.Medium, recipes.Full} {
		all = append(all, recipes.Memory(d, nil)...)
	}
	for _, tc := range genericCases {
		all = append(all, recipes.Generic(sample(t, tc.records))...)
	}
	for _, r := range all {
		compile(t, r)
	}
}

func compile(t testing.TB, r recipes.Data) *gojq.Code {
	t.Helper()
	q, err := gojq.Parse(r.Filter)
	if err != nil {
		t.Fatalf("recipe %d %q: %v", r.Number, r.Filter, err)
	}
	var names []string
	for _, p := range r.Params {
		names = append(names, "$"+p.Name)
	}
	code, err := gojq.Compile(q, gojq.WithVariables(names))
	if err != nil {
		t.Fatalf("recipe %d %q: %v", r.Number, r.Filter, err)
	}
	return code
}

func TestNoScore(t *testing.T) {
	var all []recipes.Data
	for _, d := range []recipes.Detail{recipes.Light, recipes.Medium, recipes.Full} {
		all = append(all, recipes.Memory(d, sample(t, memories(d, 5)))...)
	}
	for _, tc := range genericCases {
		all = append(all, recipes.Generic(sample(t, tc.records))...)
	}
	if text := allText(all); strings.Contains(text, ".score") {
		t.Errorf("a recipe references .score:\n%s", text)
	}
}

// FuzzGeneric feeds arbitrary samples to Generic and For: the lines of data
// (one record per line), then the records that gen describes (see package
// fuzzrecords: arrays of floats, arrays of arrays, nulls, mixed types,
// unicode keys, very long strings, deep nesting), one per line. They must
// not panic, must return 10 numbered recipes whose filters compile, and
// gojq must run them on the sample without an error. Each execution
// compiles and runs 20 jq programs, so minimizing a new input is slow; fuzz
// with a short -fuzzminimizetime (for example 5s).
func FuzzGeneric(f *testing.F) {
	for _, tc := range genericCases {
		var b bytes.Buffer
		for _, raw := range sample(f, head(tc.records, 4)) {
			b.Write(raw)
			b.WriteByte('\n')
		}
		f.Add(b.Bytes(), []byte(nil))
	}
	f.Add([]byte("{\"a-b\":{\"if\":[1,{\"x\":null}]},\"1\":true}\n\"s\"\n3\n[]\nnull\nnot json\n{\"line\":\"x\",\"text\":2}"), []byte(nil))
	f.Add([]byte(`{"id":"1","title":null,"namespace":7,"memory_type":[],"tags":"x"}`), []byte(nil))
	f.Fuzz(func(t *testing.T, data, gen []byte) {
		if len(data) > 2048 || len(gen) > 512 {
			t.Skip("bounded input")
		}
		lines := bytes.Split(data, []byte("\n"))
		if len(gen) > 0 {
			for _, r := range fuzzrecords.Generate(gen) {
				l, err := json.Marshal(r)
				if err != nil {
					t.Fatal(err)
				}
				lines = append(lines, l)
			}
		}
		var smp []json.RawMessage
		var records []any
		for _, l := range lines {
			smp = append(smp, l)
			var v any
			if json.Unmarshal(l, &v) == nil {
				records = append(records, v)
			}
		}
		for _, d := range []recipes.Detail{recipes.Light, recipes.Full} {
			rs, memory := recipes.Select(d, smp)
			if memory != recipes.IsMemory(smp) {
				t.Fatalf("Select reports memory %v, IsMemory %v", memory, recipes.IsMemory(smp))
			}
			want := recipes.Generic(smp)
			if recipes.IsMemory(smp) {
				want = recipes.Memory(d, smp)
			}
			if diff := cmp.Diff(want, recipes.DataOf(rs)); diff != "" {
				t.Fatalf("Select differs from Memory or Generic as IsMemory chooses (-want +got):\n%s", diff)
			}
		}
		for _, rs := range [][]recipes.Data{recipes.Generic(smp), recipes.For(recipes.Full, smp)} {
			if len(rs) != recipes.Count {
				t.Fatalf("%d recipes", len(rs))
			}
			seen := map[string]bool{}
			for i, r := range rs {
				if r.Number != i+1 || seen[r.Filter] {
					t.Fatalf("recipe %d at index %d, filter repeated: %v", r.Number, i, seen[r.Filter])
				}
				seen[r.Filter] = true
				code := compile(t, r)
				if recipes.IsMemory(smp) {
					continue // the memory library assumes memory records
				}
				runAll(t, r, code, records)
			}
		}
	})
}

// runAll runs code on records as lro_extract does and fails on any error.
func runAll(t *testing.T, r recipes.Data, code *gojq.Code, records []any) {
	t.Helper()
	values := make([]any, len(r.Params))
	for i, p := range r.Params {
		values[i] = p.Value
	}
	inputs := records
	if r.Slurp {
		inputs = []any{records}
	}
	for _, in := range inputs {
		iter := code.Run(in, values...)
		for {
			v, ok := iter.Next()
			if !ok {
				break
			}
			if err, ok := v.(error); ok {
				t.Fatalf("recipe %d %q on %v: %v", r.Number, r.Filter, in, err)
			}
		}
	}
}

func BenchmarkGeneric(b *testing.B) {
	smp := sample(b, orders(200))
	b.ReportAllocs()
	for b.Loop() {
		recipes.Generic(smp)
	}
}

func BenchmarkMemory(b *testing.B) {
	smp := sample(b, memories(recipes.Full, 200))
	b.ReportAllocs()
	for b.Loop() {
		recipes.Memory(recipes.Full, smp)
	}
}

func BenchmarkCommand(b *testing.B) {
	rs := recipes.Memory(recipes.Medium, nil)
	b.ReportAllocs()
	for b.Loop() {
		for _, r := range rs {
			_ = r.Command("/tmp/dir with space/atlatl-recall-01JABCDEF.jsonl")
		}
	}
}

// benchSample returns the 16 leading records (the engine's sample) of a
// memory result or of an issue listing.
func benchSample(memory bool) []json.RawMessage {
	smp := make([]json.RawMessage, 16)
	for i := range smp {
		var v any
		if memory {
			v = map[string]any{"id": fmt.Sprintf("0b7c%04x-1f2e-4d3c-8b9a-%012x", i, i), "memory_type": []string{"semantic", "episodic", "procedural"}[i%3],
				"title":     fmt.Sprintf("Decision %d: cache invalidation strategy for the read path", i),
				"content":   "We decided to invalidate cache entries on write rather than on a timer, because stale reads were observed in the session logs after deploys.",
				"namespace": []string{"_semantic/decisions", "_episodic/sessions"}[i%2], "tags": []string{"cache", "architecture", fmt.Sprintf("team-%d", i%5)},
				"status": "active", "created": "2026-01-02T03:04:05Z", "provenance": map[string]any{"confidence": 0.8, "source": "session"}}
		} else {
			v = map[string]any{"number": 100 + i, "title": fmt.Sprintf("Crash %d on start under load", i), "state": []string{"open", "closed"}[i%2],
				"labels": []map[string]any{{"name": "bug"}, {"name": fmt.Sprintf("area-%d", i%3)}}, "comments": i * 3 % 7,
				"created_at": fmt.Sprintf("2025-01-%02dT10:00:00Z", i+1), "user": map[string]any{"login": fmt.Sprintf("user%d", i%4)},
				"body": "Steps: start the server with the default config, send 100 requests, observe the crash in the log."}
		}
		smp[i], _ = json.Marshal(v)
	}
	return smp
}

// BenchmarkSelect runs Select as the offloader does, on the 16 leading
// records of a memory result and of an issue listing.
func BenchmarkSelect(b *testing.B) {
	for _, memory := range []bool{true, false} {
		smp := benchSample(memory)
		b.Run(map[bool]string{true: "memory", false: "generic"}[memory], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				recipes.Select(recipes.Full, smp)
			}
		})
	}
}
