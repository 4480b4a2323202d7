package recipes

import (
	"encoding/json"
	"testing"

	"github.com/itchyny/gojq"
)

func TestCompactFilter(t *testing.T) {
	tests := []struct{ in, want, reason string }{
		{`{a: .x, b: .y} | .a`, `{a:.x,b:.y}|.a`, "spaces around separators go"},
		{`select(.a == $a and .b == $b)`, `select(.a == $a and .b == $b)`, "other spaces stay: they may separate words"},
		{`"\(.line): \(.text)"`, `"\(.line): \(.text)"`, "a string literal is left as it is"},
		{`"\(.a | "x, y") , z" | .`, `"\(.a|"x, y") , z"|.`, "code interpolated in a string is compacted, strings in it are not"},
		{`test($k; "i") | not`, `test($k;"i")|not`, "semicolons"},
		{`.[:10][] | .a`, `.[:10][]|.a`, "slices"},
		{`. as $x # comment, here` + "\n" + `| $x`, `. as $x # comment, here` + "\n" + `| $x`, "a comment: unchanged"},
		{`"open`, `"open`, "not a whole program: unchanged"},
		{` . | . `, ` .|.`, "trailing space goes, leading stays"},
		{`.a) | "x" | .b`, `.a)|"x"|.b`, "a stray ')' outside strings: compacted, as jq will refuse it anyway"},
		{`"\((.a)) x" | .b`, `"\((.a)) x"|.b`, "parentheses in an interpolation"},
	}
	for _, tt := range tests {
		if got := compactFilter(tt.in); got != tt.want {
			t.Errorf("compactFilter(%q) = %q, want %q: %s", tt.in, got, tt.want, tt.reason)
		}
	}
}

// TestCompactFilterKeepsThePrograms parses every recipe filter of the
// libraries, as written and compacted, with gojq: both must be the same
// program.
func TestCompactFilterKeepsThePrograms(t *testing.T) {
	samples := [][]json.RawMessage{
		{json.RawMessage(`{"id":"1","title":"Cache","namespace":"_semantic/x","memory_type":"semantic","tags":["a"],"content":"c","confidence":0.5}`)},
		{json.RawMessage(`{"number":1,"title":"Fix it","state":"open","labels":["bug"],"comments":3,"created_at":"2026-01-02T03:04:05Z"}`)},
		{json.RawMessage(`{"line":1,"text":"2026-01-02T03:04:05Z ERROR disk full"}`)},
		{json.RawMessage(`3`), json.RawMessage(`"x"`)},
	}
	n := 0
	for _, smp := range samples {
		for _, d := range []Detail{Light, Medium, Full} {
			rs, _ := Select(d, smp)
			for i, r := range rs {
				want, err := gojq.Parse(r.filter)
				if err != nil {
					t.Fatalf("recipe %d: %v", i+1, err)
				}
				c := compactFilter(r.filter)
				got, err := gojq.Parse(c)
				if err != nil {
					t.Fatalf("recipe %d: the compacted %q does not parse: %v", i+1, c, err)
				}
				if got.String() != want.String() {
					t.Errorf("recipe %d: %q compacts to %q, another program", i+1, r.filter, c)
				}
				n++
			}
		}
	}
	if n == 0 {
		t.Fatal("no recipes")
	}
}
