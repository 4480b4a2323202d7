package jsonscan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// validCases are inputs on which Valid must agree with json.Valid, each with
// the reason it is interesting.
var validCases = []struct {
	in     string
	reason string
}{
	{``, "empty input is no value"},
	{"  \t\r\n", "white space alone is no value"},
	{`0`, "a bare zero"},
	{` -0.5e+10 `, "a number with every part, white space around"},
	{`01`, "a leading zero is not followed by digits"},
	{`-`, "a minus sign alone"},
	{`1.`, "a fraction needs a digit"},
	{`1e`, "an exponent needs a digit"},
	{`1e+`, "a signed exponent needs a digit"},
	{`.5`, "a number cannot start with a dot"},
	{`+1`, "a number cannot start with a plus"},
	{`1 2`, "two values"},
	{`true`, "a literal"},
	{`tru`, "a literal cut short"},
	{`truex`, "a literal followed by junk"},
	{`nul`, "null cut short"},
	{`[true,false,null]`, "every literal in an array"},
	{`[1,]`, "a trailing comma in an array"},
	{`[,1]`, "a leading comma in an array"},
	{`{"a":1,}`, "a trailing comma in an object"},
	{`{"a" 1}`, "a missing colon"},
	{`{1:1}`, "a key that is not a string"},
	{`{"a":1 "b":2}`, "a missing comma between members"},
	{`[1}`, "an array closed by a brace"},
	{`{"a":1]`, "an object closed by a bracket"},
	{`[[[]]]`, "nested empty arrays"},
	{`{"a":{"b":{}}}`, "nested empty objects"},
	{`[ ]`, "an empty array with white space"},
	{`{ }`, "an empty object with white space"},
	{`"abc`, "an unterminated string"},
	{`"a\"b"`, "an escaped quote"},
	{`"a\\"`, "an escaped backslash before the closing quote"},
	{`"\u00e9\uD83D\uDE00"`, "unicode escapes"},
	{`"\u00g0"`, "a unicode escape with a non-hex digit"},
	{`"\u00"`, "a unicode escape cut short"},
	{`"\x"`, "an unknown escape"},
	{"\"a\tb\"", "a raw tab inside a string"},
	{"\"a\nb\"", "a raw line feed inside a string"},
	{"\"\x7f\"", "DEL is allowed in a string"},
	{"\"\xff\xfe\"", "bytes that are not UTF-8 are accepted, as json.Valid does"},
	{"\"héllo wörld, ünïcode long enough for a word\"", "UTF-8 across word boundaries"},
	{`"0123456789abcdef\"0123456789"`, "an escaped quote after a whole word"},
	{`"0123456"`, "a string ending exactly at a word boundary"},
	{"[1,\n2]", "a line break between elements"},
	{`{"a":[1,{"b":"}"}],"c":"]"}`, "brackets inside strings"},
	{strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth), "the deepest nesting encoding/json accepts"},
	{strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1), "one level deeper than encoding/json accepts"},
	{strings.Repeat(`{"a":`, MaxDepth) + "1" + strings.Repeat("}", MaxDepth), "the deepest object nesting"},
	{strings.Repeat(`{"a":`, MaxDepth+1) + "1" + strings.Repeat("}", MaxDepth+1), "one object level too deep"},
	{strings.Repeat("[", 70) + strings.Repeat("]", 69) + "}", "a closing brace at a depth past the first word of the bit set"},
}

func TestValidAgreesWithEncodingJSON(t *testing.T) {
	for _, tt := range validCases {
		name := tt.reason
		t.Run(name, func(t *testing.T) {
			want := json.Valid([]byte(tt.in))
			if got := Valid([]byte(tt.in)); got != want {
				t.Errorf("Valid(%.60q) = %v, json.Valid = %v", tt.in, got, want)
			}
		})
	}
}

func TestValidValueCountsOuterDepth(t *testing.T) {
	for _, outer := range []int{0, 1, 7, MaxDepth - 1} {
		n := MaxDepth - outer
		ok := []byte(strings.Repeat("[", n) + strings.Repeat("]", n) + ",")
		if end, _ := ValidValue(ok, 0, outer); end != len(ok)-1 {
			t.Errorf("outer %d: ValidValue of %d nested arrays = %d, want %d: within the limit", outer, n, end, len(ok)-1)
		}
		deep := []byte(strings.Repeat("[", n+1) + strings.Repeat("]", n+1))
		if end, _ := ValidValue(deep, 0, outer); end != -1 {
			t.Errorf("outer %d: ValidValue of %d nested arrays = %d, want -1: past the limit", outer, n+1, end)
		}
	}
}

// FuzzValid checks that Valid gives json.Valid's answer on any input, and
// checks the primitives on it (see checkPrimitives).
func FuzzValid(f *testing.F) {
	for _, tt := range validCases {
		if len(tt.in) < 1000 {
			f.Add([]byte(tt.in))
		}
	}
	f.Add([]byte("[{\"id\":\"0b7c\",\"tags\":[\"a\",\"b\"],\"p\":{\"c\":0.5}},\n {\"x\":null}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		want := json.Valid(data)
		if got := Valid(data); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid = %v", data, got, want)
		}
		checkPrimitives(t, data, want)
	})
}

// checkPrimitives checks ValidValue, ValidString and ValidNumber on data,
// which json.Valid accepts if valid: what they accept is valid JSON of the
// kind asked for, their flags are exact, and a valid document that is one
// string, number or value is found whole.
func checkPrimitives(t *testing.T, data []byte, valid bool) {
	t.Helper()
	isASCII := func(b []byte) bool {
		for _, c := range b {
			if c >= 0x80 {
				return false
			}
		}
		return true
	}
	whole := valid && len(data) > 0 && !isSpace(data[0]) && !isSpace(data[len(data)-1])
	if end, ascii := ValidValue(data, 0, 0); end >= 0 {
		if !json.Valid(data[:end]) || ascii != isASCII(data[:end]) || whole && end != len(data) {
			t.Fatalf("ValidValue(%q) = %d, %v: %q is not valid JSON, or not all of it, or the flag is wrong", data, end, ascii, data[:end])
		}
	} else if whole {
		t.Fatalf("ValidValue(%q) = -1 on a valid value", data)
	}
	if end, ascii, escaped := ValidString(data, 0); end >= 0 {
		var s string
		if json.Unmarshal(data[:end], &s) != nil || ascii != isASCII(data[:end]) || escaped != bytes.Contains(data[1:end-1], []byte(`\`)) {
			t.Fatalf("ValidString(%q) = %d, %v, %v: not a string, or a flag is wrong", data, end, ascii, escaped)
		}
		if !escaped && s != string(data[1:end-1]) && isASCII(data[:end]) {
			t.Fatalf("ValidString(%q): no escapes, but the string is %q", data, s)
		}
	} else if whole && data[0] == '"' {
		t.Fatalf("ValidString(%q) = -1 on a valid string", data)
	}
	if end := ValidNumber(data, 0); end >= 0 {
		var f json.Number
		if json.Unmarshal(data[:end], &f) != nil {
			t.Fatalf("ValidNumber(%q) = %d: %q is not a number", data, end, data[:end])
		}
	} else if whole && (data[0] == '-' || isDigit(data[0])) {
		t.Fatalf("ValidNumber(%q) = -1 on a valid number", data)
	}
}

// memoryDoc is a JSON array of n memory-like records of about 620 bytes.
func memoryDoc(n int) []byte {
	type rec struct {
		ID, Title, Content, Namespace string
		Tags                          []string
		Provenance                    map[string]any
	}
	recs := make([]rec, n)
	for i := range recs {
		recs[i] = rec{
			ID:         fmt.Sprintf("0b7c%04x-1f2e-4d3c-8b9a-%012x", i%65536, i),
			Title:      fmt.Sprintf("Decision %d: cache invalidation strategy for the read path", i),
			Content:    "We decided to invalidate cache entries on write rather than on a timer, because stale reads were observed in the session logs after deploys; the change keeps p99 latency flat and removes a class of consistency bugs.",
			Namespace:  "_semantic/decisions",
			Tags:       []string{"cache", "architecture", fmt.Sprintf("team-%d", i%5)},
			Provenance: map[string]any{"confidence": 0.5 + float64(i%50)/100, "trust_level": "verified"},
		}
	}
	data, _ := json.Marshal(recs)
	return data
}

func BenchmarkValid(b *testing.B) {
	doc := memoryDoc(500)
	for _, bm := range []struct {
		name  string
		valid func([]byte) bool
	}{
		{"jsonscan", Valid},
		{"encoding_json", json.Valid},
	} {
		b.Run(bm.name, func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			b.ReportAllocs()
			for b.Loop() {
				if !bm.valid(doc) {
					b.Fatal("invalid")
				}
			}
		})
	}
}

func BenchmarkElements(b *testing.B) {
	doc := memoryDoc(500)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		_ = Elements(doc, func(e []byte) error {
			return Fields(e, func(Field) error { n++; return nil })
		})
	}
}
