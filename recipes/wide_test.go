package recipes_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/zircote/lro-go/recipes"
)

// wideSample returns 3 records of width number fields each.
func wideSample(width int) []json.RawMessage {
	var smp []json.RawMessage
	for r := range 3 {
		var b strings.Builder
		b.WriteByte('{')
		for k := range width {
			if k > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"c` + strconv.Itoa(k) + `":` + strconv.Itoa(r*width+k))
		}
		b.WriteByte('}')
		smp = append(smp, json.RawMessage(b.String()))
	}
	return smp
}

// TestWideRecordsBounded: the recipes and the projection of records of
// very many fields cost about what those of a record of a few thousand
// fields do (the 100,000-column table that took seconds), counted in
// allocations, which grow with each field examined: 4 times the fields
// allocate less than 1.5 times as much.
func TestWideRecordsBounded(t *testing.T) {
	allocs := func(width int) float64 {
		smp := wideSample(width)
		return testing.AllocsPerRun(1, func() {
			rs, _ := recipes.Select(recipes.Full, smp)
			if len(rs) != 10 {
				t.Fatalf("%d recipes, want 10", len(rs))
			}
			recipes.Projection(rs)
		})
	}
	n, n4 := allocs(8192), allocs(4*8192)
	if n4 > 1.5*n {
		t.Errorf("records of %d fields: %.0f allocations; of %d: %.0f, want less than 1.5 times as many", 8192, n, 4*8192, n4)
	}
}
