package schema

import (
	"strconv"
	"strings"
	"testing"
)

// nestedRecord returns a record of width objects o0, o1, ... each of width
// integer properties named after the object and their place, all distinct.
func nestedRecord(width int) []byte {
	var b strings.Builder
	b.WriteByte('{')
	for i := range width {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"o` + strconv.Itoa(i) + `":{`)
		for k := range width {
			if k > 0 {
				b.WriteByte(',')
			}
			b.WriteString(`"k` + strconv.Itoa(i) + `_` + strconv.Itoa(k) + `":` + strconv.Itoa(k))
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
	return []byte(b.String())
}

// TestManyNestedProperties: the schema names a bounded number of properties
// in all, not only of each object, so that the memory of records of very
// many objects of very many properties is bounded too, counted in
// allocations: records of 4 times as many properties allocate less than 1.5
// times as much; the objects whose properties are not all named allow the
// others.
func TestManyNestedProperties(t *testing.T) {
	allocs := func(width int) float64 {
		rec := nestedRecord(width)
		return testing.AllocsPerRun(1, func() {
			var in Inferrer
			_ = in.Add(rec)
			_ = in.Add(rec)
			in.Schema()
		})
	}
	if n, n4 := allocs(256), allocs(512); n4 > 1.5*n {
		t.Errorf("records of %d properties: %.0f allocations; of %d: %.0f, want less than 1.5 times as many", 256*257, n, 512*513, n4)
	}
	var in Inferrer
	if err := in.Add(nestedRecord(512)); err != nil {
		t.Fatal(err)
	}
	checkJSON(t, &in)
	props := in.Schema()["properties"].(map[string]any)
	named, more := len(props), 0
	for _, p := range props {
		p := p.(map[string]any)
		named += len(p["properties"].(map[string]any))
		if p["additionalProperties"] == true {
			more++
		}
	}
	if named > 4*maxProps || more == 0 {
		t.Errorf("%d properties named in all, %d objects allow others", named, more)
	}
}
