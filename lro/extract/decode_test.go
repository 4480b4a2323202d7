package extract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// normalize turns a value decoded by encoding/json with UseNumber-free
// float64 numbers into the form the decoder gives: integers that fit in an
// int become ints.
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalize(e)
		}
	case []any:
		for i, e := range x {
			x[i] = normalize(e)
		}
	}
	return v
}

func TestDecode(t *testing.T) {
	tests := []struct {
		name, in string
		want     any
	}{
		{"small int stays an int", `42`, 42},
		{"negative int", `-7`, -7},
		{"minus zero is a float, as jq prints -0", `-0`, math.Copysign(0, -1)},
		{"fraction is a float", `1.5`, 1.5},
		{"exponent is a float", `1e3`, 1000.0},
		{"19 digits is a float, as jq 1.6 keeps doubles", `1234567890123456789`, 1234567890123456789.0},
		{"out of range clamps to the largest double", `1e999`, math.MaxFloat64},
		{"plain string", `"abc"`, "abc"},
		{"escapes", `"a\"b\\c\/d\n\t\u00e9"`, "a\"b\\c/d\n\té"},
		{"surrogate pair", `"\ud83d\ude00"`, "😀"},
		{"lone surrogate becomes U+FFFD", `"\ud83dx"`, "\ufffdx"},
		{"invalid UTF-8 becomes U+FFFD", "\"a\xffb\"", "a\ufffdb"},
		{"UTF-8 kept", `"日本語"`, "日本語"},
		{"object, last duplicate key wins as in jq", `{"a":1,"a":2}`, map[string]any{"a": 2}},
		{"nested", ` {"a":[1,{"b":null}],"c":true} `, map[string]any{"a": []any{1, map[string]any{"b": nil}}, "c": true}},
		{"empty containers", `[{},[]]`, []any{map[string]any{}, []any{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := newDecoder().decode([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if f, ok := tt.want.(float64); ok && math.Signbit(f) != math.Signbit(got.(float64)) {
				t.Errorf("sign of %v lost", f)
			}
		})
	}
}

// TestDecodeRejects wants every invalid text refused with errSyntax. The
// rest of the message is jsontext's, except for the two the decoder writes.
func TestDecodeRejects(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"empty", ``, "end of input"},
		{"two values", `1 2`, "after the value"},
		{"leading zero", `01`, "after the value"},
		{"text after the value", `[1]x`, ""},
		{"trailing comma", `[1,]`, ""},
		{"bare dot", `1.`, ""},
		{"bad exponent", `1e`, ""},
		{"single quotes", `'a'`, ""},
		{"control character in a string", "\"a\x01\"", ""},
		{"bad escape", `"\x"`, ""},
		{"short unicode escape", `"\u12"`, ""},
		{"unterminated string", `"abc`, ""},
		{"missing colon", `{"a" 1}`, ""},
		{"non-string key", `{1:2}`, ""},
		{"NaN", `NaN`, ""},
		{"truncated literal", `tru`, ""},
		{"too deep", strings.Repeat("[", maxDepth+1) + strings.Repeat("]", maxDepth+1), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := newDecoder().decode([]byte(tt.in))
			if !errors.Is(err, errSyntax) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("decode(%.40q) = %v, want an error of errSyntax containing %q", tt.in, err, tt.want)
			}
		})
	}
}

// TestDecodeDepthLimitIsInclusive wants decode, valid and project to accept
// maxDepth levels and no more.
func TestDecodeDepthLimitIsInclusive(t *testing.T) {
	nested := func(levels int) []byte {
		return []byte(`{"a":` + strings.Repeat("[", levels-1) + strings.Repeat("]", levels-1) + `}`)
	}
	for _, tt := range []struct {
		levels int
		want   bool
	}{{maxDepth, true}, {maxDepth + 1, false}} {
		in := nested(tt.levels)
		d := newDecoder()
		if _, err := d.decode(in); (err == nil) != tt.want {
			t.Errorf("decode of %d levels: %v, want success %v", tt.levels, err, tt.want)
		}
		if got := d.valid(in); got != tt.want {
			t.Errorf("valid of %d levels = %v, want %v", tt.levels, got, tt.want)
		}
		if _, got := d.project(in, []string{"a"}); got != tt.want {
			t.Errorf("project of %d levels: ok %v, want %v", tt.levels, got, tt.want)
		}
	}
}

// FuzzDecode checks the decoder against encoding/json: the same inputs are
// valid, and valid inputs decode to the same values.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.5,"x",null,true]}`, `"\ud83d\ude00"`, `-0.0e+1`, "\"\xff\"", `[{"":{}}]`, ` 1 `, `{"a":1,"a":{"b":[]}}`, `{"b":[1,{"c":"\u00e9"}],"\u00e9":2,"a":"x"}`, `{"":0,"a":[1,}`,
		`{"a":"0123456789\u00e9abcdef\"0123456789","b":-0.5e+3}`, "{\"a\":\"0123456789ab\x01cdef\"}", `[1.e1]`, `[-]`, `{"a":01}`, `{"a" :[ true , false,null ] }`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		d := newDecoder()
		got, err := d.decode(data)
		if json.Valid(data) != (err == nil) {
			t.Fatalf("decode(%q): err %v, but json.Valid says %v", data, err, json.Valid(data))
		}
		if valid := newDecoder().valid(data); valid != (err == nil) {
			t.Fatalf("valid(%q) = %v, but decode says %v", data, valid, err)
		}
		// A decoder that decoded other records first, whose keys it
		// remembers, gives the same, and so does decoding data again.
		primed := newDecoder()
		for _, p := range []string{`{"a":1,"b\"c":{"a\u00e9":[{"":2}]},"é":3,"":4,"x":5}`, `{"a":{"a":{"a":[]}},"ab":1}`, string(data)} {
			_, _ = primed.decode([]byte(p))
			again, err2 := primed.decode(data)
			if fmt.Sprint(err) != fmt.Sprint(err2) {
				t.Fatalf("decode(%q) after %q: error %v, want %v", data, p, err2, err)
			}
			if diff := cmp.Diff(got, again, cmpopts.EquateNaNs()); diff != "" {
				t.Fatalf("decode(%q) after %q (-fresh +primed):\n%s", data, p, diff)
			}
		}
		// A projection is the object with only the keys asked for.
		fields := []string{"a", "é", ""}
		obj, isObject := got.(map[string]any)
		proj, ok := newDecoder().project(data, fields)
		if ok != (err == nil && isObject) {
			t.Fatalf("project(%q): ok %v, but decode gives %v, %v", data, ok, got, err)
		}
		if ok {
			want := map[string]any{}
			for _, f := range fields {
				if v, found := obj[f]; found {
					want[f] = v
				}
			}
			if diff := cmp.Diff(want, proj, cmpopts.EquateNaNs()); diff != "" {
				t.Fatalf("project(%q) (-want +got):\n%s", data, diff)
			}
		}
		if err != nil {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var want any
		if err := dec.Decode(&want); err != nil {
			t.Fatal(err)
		}
		opt := cmp.Comparer(func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) })
		if diff := cmp.Diff(toFloats(normalize(want)), toFloats(got), opt); diff != "" {
			t.Errorf("decode(%q) differs from encoding/json (-json +decoder):\n%s", data, diff)
		}
	})
}

// toFloats turns every number into a float64, clamping infinities as jq
// does, so that both decoders' numbers compare.
func toFloats(v any) any {
	switch x := v.(type) {
	case int:
		return float64(x)
	case float64:
		return x
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil { // out of range: jq clamps to the largest double
			f = math.Copysign(math.MaxFloat64, f)
		}
		return f
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = toFloats(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = toFloats(e)
		}
		return out
	}
	return v
}

// benchLines returns full-detail memory records of ~620 bytes, the records
// of BenchmarkRecipeVsJQ.
func benchLines(b *testing.B) [][]byte {
	ns := []string{"_semantic/decisions", "_semantic/architecture", "_episodic/sessions", "_procedural/runbooks"}
	var lines [][]byte
	for i := range 1000 {
		rec := map[string]any{
			"id":          fmt.Sprintf("0b7c%04x-1f2e-4d3c-8b9a-%012x", i%65536, i),
			"memory_type": []string{"semantic", "episodic", "procedural"}[i%3],
			"title":       fmt.Sprintf("Decision %d: cache invalidation strategy for the read path", i),
			"content":     "We decided to invalidate cache entries on write rather than on a timer, because stale reads were observed in the session logs after deploys; the change keeps p99 latency flat and removes a class of consistency bugs.",
			"namespace":   ns[i%len(ns)],
			"tags":        []string{"cache", "architecture", fmt.Sprintf("team-%d", i%5)},
			"status":      "active",
			"created":     "2026-10-01T12:00:00Z",
			"modified":    "2026-11-01T08:30:00Z",
			"summary":     "Invalidate on write; p99 stays flat.",
			"provenance":  map[string]any{"confidence": 0.5 + float64(i%50)/100, "trust_level": "verified", "source_type": "agent", "agent": "claude"},
		}
		line, err := json.Marshal(rec)
		if err != nil {
			b.Fatal(err)
		}
		lines = append(lines, line)
	}
	return lines
}

// BenchmarkDecode decodes the records of benchLines with one decoder, as a
// call does.
func BenchmarkDecode(b *testing.B) {
	lines := benchLines(b)
	d := newDecoder()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := d.decode(lines[i%len(lines)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// BenchmarkValid checks the records of benchLines, as a plan does for the
// records it skips.
func BenchmarkValid(b *testing.B) {
	lines := benchLines(b)
	d := newDecoder()
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if !d.valid(lines[i%len(lines)]) {
			b.Fatal("invalid")
		}
		i++
	}
}

// BenchmarkProject projects the records of benchLines on two fields, as the
// plan of recipe 1 does.
func BenchmarkProject(b *testing.B) {
	lines := benchLines(b)
	d := newDecoder()
	fields := []string{"title", "namespace"}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, ok := d.project(lines[i%len(lines)], fields); !ok {
			b.Fatal("not projected")
		}
		i++
	}
}
