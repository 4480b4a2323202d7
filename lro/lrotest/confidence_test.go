package lrotest

import (
	"math"
	"strings"
	"testing"
)

// TestSortedByConfidenceAmongOtherValues checks recipe 9's output against
// a file of memory records among values that are not objects: a recipe
// that sorts the objects (map(objects) | sort_by(.confidence) ...), as
// lro-go's does for such a file, prints every object, which is every
// record it can sort; sort_by(.confidence) alone fails on a string. The
// kit wanted every record, and failed a server that prints the objects.
func TestSortedByConfidenceAmongOtherValues(t *testing.T) {
	mem := func(c float64) map[string]any {
		return map[string]any{"id": "m", "title": "t", "namespace": "n", "memory_type": "semantic", "confidence": c}
	}
	records := []any{mem(0.5), "a note", mem(0.9), 7.0, mem(0.1)}
	tests := []struct {
		name, stdout string
		ok           bool
	}{
		{"the objects, sorted", `{"confidence":0.9}` + "\n" + `{"confidence":0.5}` + "\n" + `{"confidence":0.1}` + "\n", true},
		{"every record, the others last", `{"confidence":0.9}` + "\n" + `{"confidence":0.5}` + "\n" + `{"confidence":0.1}` + "\n" + `"a note"` + "\n7\n", true},
		{"an object left out", `{"confidence":0.9}` + "\n" + `{"confidence":0.5}` + "\n", false},
		{"the objects, unsorted", `{"confidence":0.5}` + "\n" + `{"confidence":0.9}` + "\n" + `{"confidence":0.1}` + "\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := &view{}
			v.sortedByConfidence([]byte(tt.stdout), []string{"confidence"}, records)
			if ok := len(v.problems) == 0; ok != tt.ok {
				t.Errorf("passes %v, want %v: %s", ok, tt.ok, strings.Join(v.problems, "; "))
			}
		})
	}
}

// TestParseFileNumbersBeyondFloat64 reads a record line with a number
// beyond float64's range: valid JSON, which jq reads (as the largest
// float64) and lro-go writes (a CSV cell 1e400 is a number); the kit took
// the line for no JSON value and failed L1.records.jsonl.
func TestParseFileNumbersBeyondFloat64(t *testing.T) {
	f := parseFile("/f", []byte("{\"type\":\"lro_header\"}\n{\"a\":1e400}\n{\"a\":1}\nnot json\n"))
	if len(f.Bad) != 1 || f.Bad[0] != 2 {
		t.Errorf("bad lines at %v, want only the third record line (index 2)", f.Bad)
	}
	if len(f.Records) != 2 || f.Records[0].(map[string]any)["a"] != math.MaxFloat64 {
		t.Errorf("records %v, want {a: the largest float64} and {a: 1}", f.Records)
	}
}
