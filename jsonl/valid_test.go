package jsonl

import (
	"encoding/json"
	"testing"
)

// TestValidMatchesEncodingJSON: a record is valid exactly when json.Valid
// says so.
func TestValidMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{
		`{"a":1,"a":2}`, "\"\xff\"", `[1,2`, ` 1 `, `1 2`, `{"a":1e400}`, ``, `nul`, `"\ud800"`, `[` + `]`,
	} {
		if got, want := valid([]byte(s)), json.Valid([]byte(s)); got != want {
			t.Errorf("%q: valid %v, json.Valid %v", s, got, want)
		}
	}
}
