package schema

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// wideRecord returns a record of width integer properties k0, k1, ...
func wideRecord(width int) []byte {
	var b strings.Builder
	b.WriteByte('{')
	for k := range width {
		if k > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k` + strconv.Itoa(k) + `":` + strconv.Itoa(k))
	}
	b.WriteByte('}')
	return []byte(b.String())
}

// TestManyProperties: an object's first maxProps properties are named, the
// others allowed, and said to be there; so that the memory of records of
// very many properties is bounded, counted in allocations: records of 4
// times as many properties allocate less than 1.5 times as much.
func TestManyProperties(t *testing.T) {
	infer := func(width int) map[string]any {
		var in Inferrer
		for range 2 {
			if err := in.Add(wideRecord(width)); err != nil {
				t.Fatal(err)
			}
		}
		checkJSON(t, &in)
		return in.Schema()
	}
	for _, tt := range []struct {
		reason string
		width  int
		named  int
		more   bool
	}{
		{"within the bound: all named", maxProps, maxProps, false},
		{"beyond: the first named", maxProps + 1, maxProps, true},
		{"far beyond", 4 * maxProps, maxProps, true},
	} {
		s := infer(tt.width)
		props := s["properties"].(map[string]any)
		got := struct {
			Named, Required int
			Last            bool
			More            any
		}{len(props), len(s["required"].([]string)), props["k"+strconv.Itoa(tt.named-1)] != nil, s["additionalProperties"]}
		want := got
		want.Named, want.Required, want.Last, want.More = tt.named, tt.named, true, any(nil)
		if tt.more {
			want.More = true
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tt.reason, diff)
		}
	}
	allocs := func(width int) float64 {
		rec := wideRecord(width)
		return testing.AllocsPerRun(1, func() {
			var in Inferrer
			_ = in.Add(rec)
			_ = in.Add(rec)
			in.Schema()
		})
	}
	if n, n4 := allocs(2*maxProps), allocs(8*maxProps); n4 > 1.5*n {
		t.Errorf("records of %d properties: %.0f allocations; of %d: %.0f, want less than 1.5 times as many", 2*maxProps, n, 8*maxProps, n4)
	}
}
