package jsonscan

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestElements(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty array has no elements", `[]`, nil},
		{"blank around the array is skipped", " \n[ 1 , 2 ]\n", []string{"1", "2"}},
		{"strings keep their quotes and escapes", `["a\"]b", "c,d"]`, []string{`"a\"]b"`, `"c,d"`}},
		{"nested values are returned whole, byte for byte", `[{"a":[1,{"b":"}"}]} ,[ ]]`, []string{`{"a":[1,{"b":"}"}]}`, `[ ]`}},
		{"literals and negative numbers", `[true,false,null,-1.5e3]`, []string{"true", "false", "null", "-1.5e3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			if err := Elements([]byte(tt.in), func(e []byte) error { got = append(got, string(e)); return nil }); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Elements(%s) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestFieldsAndLookup(t *testing.T) {
	in := []byte(`{"a": 1, "n\u0061me": "x", "list": [1, 2], "o": {"list": 3}}`)
	var keys []string
	if err := Fields(in, func(f Field) error { keys = append(keys, string(f.Key)); return nil }); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a", "name", "list", "o"}, keys); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
	if got := string(Lookup(in, "list")); got != "[1, 2]" {
		t.Errorf("Lookup(list) = %q, want the top-level array, not the nested one", got)
	}
	if got := Lookup(in, "missing"); got != nil {
		t.Errorf("Lookup(missing) = %q, want nil", got)
	}
	if got := Lookup([]byte(`[1]`), "a"); got != nil {
		t.Errorf("Lookup on an array = %q, want nil", got)
	}
}

func TestArraySpan(t *testing.T) {
	in := []byte(`  [1, [2], "]"]  `)
	s, e, err := ArraySpan(in)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(in[s:e]); got != `[1, [2], "]"]` {
		t.Errorf("span = %q", got)
	}
}

func TestSyntaxErrors(t *testing.T) {
	for _, in := range []string{``, `{`, `[1,`, `[1 2]`, `["abc`, `{"a" 1}`, `{"a":}`, `[,]`} {
		errA := Elements([]byte(in), func([]byte) error { return nil })
		errO := Fields([]byte(in), func(Field) error { return nil })
		if errA == nil && errO == nil {
			t.Errorf("%q: want a syntax error from Elements or Fields", in)
		}
	}
}

// FuzzElements checks that on valid arrays the scanner returns exactly the
// elements encoding/json sees, and that on any input it never panics.
func FuzzElements(f *testing.F) {
	for _, s := range []string{`[]`, `[1,"a",{"b":[2]}]`, `["\\\"",null]`, `{"a":1}`, `[`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		var got []json.RawMessage
		err := Elements(data, func(e []byte) error { got = append(got, e); return nil })
		_ = Fields(data, func(Field) error { return nil })
		var want []json.RawMessage
		if json.Unmarshal(data, &want) != nil || want == nil {
			return // not a valid array; null decodes without error into a nil slice
		}
		if err != nil {
			t.Fatalf("Elements(%q) = %v on a valid array", data, err)
		}
		if len(got) != len(want) {
			t.Fatalf("Elements(%q) gave %d elements, encoding/json %d", data, len(got), len(want))
		}
		for i := range want {
			if string(got[i]) != string(want[i]) {
				t.Fatalf("element %d = %q, want %q", i, got[i], want[i])
			}
		}
	})
}
