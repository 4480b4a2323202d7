package rawjson

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

func TestMember(t *testing.T) {
	tests := []struct {
		doc, key string
		want     string // "" for nil
		why      string
	}{
		{`{"a":1,"b":[1, 2]}`, "b", `[1, 2]`, "the value as written"},
		{` {"n": 1.50 , "big":12345678901234567890} `, "n", `1.50`, "numbers are not rewritten, white space around the object is allowed"},
		{`{"a":"x\u0041","b":2}`, "a", `"x\u0041"`, "strings keep their escapes"},
		{`{"\u0061":1}`, "a", `1`, "names are matched unescaped"},
		{`{"a":1,"a":2}`, "a", `1`, "the first of duplicate names"},
		{"{\"a\":\"\xff\"}", "a", "\"\xff\"", "bytes that are not UTF-8 are accepted, as by encoding/json"},
		{`{"a":1}`, "b", "", "no such member"},
		{`[{"a":1}]`, "a", "", "not an object"},
		{`{"a":[1,}`, "a", "", "the member is not valid JSON"},
		{`{"b":tru,"a":1}`, "a", "", "the object is not valid JSON before the member"},
		{``, "a", "", "empty"},
	}
	for _, tt := range tests {
		got := Member([]byte(tt.doc), tt.key)
		if string(got) != tt.want || (got == nil) != (tt.want == "") {
			t.Errorf("Member(%s, %q) = %s (nil %v); want %s (%s)", tt.doc, tt.key, got, got == nil, tt.want, tt.why)
		}
	}
}

// TestMemberIsASliceOfTheInput checks that Member does not copy: a
// captured result can be hundreds of megabytes.
func TestMemberIsASliceOfTheInput(t *testing.T) {
	doc := []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[]}}`)
	got := Member(doc, "result")
	if string(got) != `{"content":[]}` {
		t.Fatalf("Member = %s", got)
	}
	doc[bytes.LastIndexByte(doc, '[')] = ' '
	if string(got) != `{"content": ]}` {
		t.Error("the value is a copy, not a slice of the input")
	}
}

func TestMembers(t *testing.T) {
	tests := []struct {
		doc   string
		valid bool
		why   string
	}{
		{`{}`, true, "empty object"},
		{`{"a":1} `, true, "trailing white space"},
		{`{"a":1} {}`, false, "a second value"},
		{`{"a":1} x`, false, "trailing garbage"},
		{`{"a":1`, false, "cut short"},
		{`"a"`, false, "not an object"},
	}
	for _, tt := range tests {
		if got := Members([]byte(tt.doc), func(_, _ jsontext.Value) bool { return true }); got != tt.valid {
			t.Errorf("Members(%s) = %v; want %v (%s)", tt.doc, got, tt.valid, tt.why)
		}
	}
}

func TestAppendQuote(t *testing.T) {
	tests := []struct{ s, want, why string }{
		{"a<b>", `"a<b>"`, "no HTML escapes"},
		{"x\xffy", `"x\ufffdy"`, "invalid UTF-8 replaced, as the wire would carry it"},
		{"\xff<", `"\ufffd\u003c"`, "in encoding/json's form when replaced"},
	}
	for _, tt := range tests {
		if got := string(AppendQuote([]byte("["), tt.s)); got != "["+tt.want {
			t.Errorf("AppendQuote(%q) = %s; want [%s (%s)", tt.s, got, tt.want, tt.why)
		}
	}
}

func ExampleMembers() {
	doc := []byte(`{"id": 1e400, "name": "caf\u00e9"}`)
	Members(doc, func(name, value jsontext.Value) bool {
		fmt.Println(Unquote(name), string(value))
		return true
	})
	// Output:
	// id 1e400
	// name "caf\u00e9"
}
