package extract

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/itchyny/gojq"
)

// whereTexts are the texts of the three where programs, as gojq prints
// them once parsed.
func whereTexts(t testing.TB) []string {
	var out []string
	for _, text := range []string{whereRecords, whereFields, whereCount} {
		q, err := gojq.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, q.String())
	}
	return out
}

// FuzzWhere throws where, count and fields arguments at the parser: each
// either is refused with a tool error or gives one of the three fixed
// programs, whose variables then compile; no path or value reaches the
// program's text.
func FuzzWhere(f *testing.F) {
	for _, seed := range []struct{ where, fields string }{
		{`{"namespace": {"prefix": "_semantic"}, "provenance.confidence": {"gte": 0.8}}`, ``},
		{`{"name": "\") | halt_error(\"x", "$__loc__": "\\(1+1)"}`, `["id", "a\"]) | env"]`},
		{`{"a..b": 1}`, `[]`},
		{`{"n": {"in": [1, "x", null], "matches": "(?i)^a", "contains": ".*"}}`, `["n"]`},
		{`{"]) | halt": {"eq": {"x": [1]}}}`, `null`},
	} {
		f.Add(seed.where, seed.fields, false)
		f.Add(seed.where, seed.fields, true)
	}
	programs := whereTexts(f)
	f.Fuzz(func(t *testing.T, where, fields string, count bool) {
		if len(where)+len(fields) > 4096 {
			return
		}
		a := args{argFilePath: json.RawMessage(`"x"`), argWhere: json.RawMessage(where), argCount: json.RawMessage(`false`)}
		if count {
			a[argCount] = json.RawMessage(`true`)
		}
		if fields != "" {
			a[argFields] = json.RawMessage(fields)
		}
		if !json.Valid([]byte(where)) || fields != "" && !json.Valid([]byte(fields)) {
			return // the transport delivers only JSON
		}
		_, req, err := parseExtract(a)
		if err != nil {
			if _, ok := err.(*toolError); !ok {
				t.Fatalf("%s: an error that is not a tool error: %v", where, err)
			}
			return
		}
		if req.Where == nil {
			return // where was null
		}
		p, err := whereProgram(req.Where)
		if _, ok := err.(*toolError); ok {
			return // a pattern that does not compile, found in the worker
		}
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(programs, p.query.String()) {
			t.Fatalf("%s: the program is not one of the fixed ones:\n%s", where, p.query)
		}
		if _, err := gojq.Compile(p.query, gojq.WithVariables(p.names)); err != nil {
			t.Fatal(err)
		}
	})
}

// TestWhereRefusesNumbersBeyondFloat64 checks that a where value that does
// not decode (a number beyond float64), as a value to compare or as an
// operator's, is refused saying so, not compared as something else.
func TestWhereRefusesNumbersBeyondFloat64(t *testing.T) {
	for _, raw := range []string{`1e400`, `{"gte": 1e400}`, `{"eq": -1e400}`} {
		if ops, err := whereOperators("x", json.RawMessage(raw)); err == nil || !strings.Contains(err.Error(), `where "x": `) {
			t.Errorf("where x: %s gave %v, %v; want an error naming the condition", raw, ops, err)
		}
	}
}
