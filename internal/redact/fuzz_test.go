package redact_test

import (
	"bytes"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zircote/lro-go/internal/redact"
	"github.com/zircote/lro-go/internal/testing/redacttest"
)

// FuzzJSON checks, on any input, that JSON gives back one JSON value of the
// same structure when it accepts its input, and that String keeps every
// line (no marker holds a line break).
func FuzzJSON(f *testing.F) {
	for _, fk := range redacttest.Fakes() {
		f.Add([]byte(`{"a":[1,"` + fk.Text + `"],"authorization":"x"}`))
		f.Add([]byte(fk.Text))
	}
	f.Add([]byte(`{"Authorization":"Bearer abcDEF123ghiJKL456"}`))
	r, err := redact.New(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<16 {
			return
		}
		if got := r.String(string(b), redact.Counts{}); bytes.Count([]byte(got), []byte("\n")) != bytes.Count(b, []byte("\n")) {
			t.Fatalf("String changed the number of lines: %q -> %q", b, got)
		}
		out, ok := r.JSON(b, redact.Counts{})
		if !ok || !jsontext.Value(b).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)) {
			return
		}
		if !jsontext.Value(out).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)) {
			t.Fatalf("JSON(%q) = %q: not valid", b, out)
		}
		if kinds(t, b) != kinds(t, out) {
			t.Fatalf("JSON(%q) = %q: another structure", b, out)
		}
	})
}

// kinds returns the kinds of the tokens of the JSON value b.
func kinds(t *testing.T, b []byte) string {
	dec := jsontext.NewDecoder(bytes.NewReader(b), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	var k []byte
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return string(k)
		}
		k = append(k, byte(tok.Kind()))
	}
}
