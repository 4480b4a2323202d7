package descriptor

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// walkResult is what one walk over an array reports: its error, the
// records handed over (with their flags and offsets), the top-level members,
// and the schema.
type walkResult struct {
	Err     string
	Records []string
	Members []member
	Schema  map[string]any
}

// splitWalk walks data as two walks split at stop, merged, and reports
// whether the split held.
func splitWalk(data []byte, stop int) (walkResult, bool) {
	var first, second Inferrer
	var r, r2 walkResult
	add := func(r *walkResult) (func(k, v []byte), func(e Element) error) {
		return func(k, v []byte) { r.Members = append(r.Members, member{string(k), string(v)}) },
			func(e Element) error {
				r.Records = append(r.Records, fmt.Sprintf("%d %v %v %s", e.Offset, e.Multiline, e.ASCII, e.Value))
				return nil
			}
	}
	f1, e1 := add(&r)
	split, err := first.AddElementsUntil(data, stop, f1, e1)
	if !split {
		if err != nil {
			r.Err = err.Error()
		}
		r.Schema = first.Schema()
		return r, false
	}
	f2, e2 := add(&r2)
	if err := second.AddElementsFrom(data, stop, f2, e2); err != nil {
		r.Err = err.Error()
	}
	first.Merge(&second)
	r.Records = append(r.Records, r2.Records...)
	r.Members = append(r.Members, r2.Members...)
	r.Schema = first.Schema()
	return r, true
}

// wholeWalk walks data in one AddElements.
func wholeWalk(data []byte) walkResult {
	var in Inferrer
	var r walkResult
	err := in.AddElements(data,
		func(k, v []byte) { r.Members = append(r.Members, member{string(k), string(v)}) },
		func(e Element) error {
			r.Records = append(r.Records, fmt.Sprintf("%d %v %v %s", e.Offset, e.Multiline, e.ASCII, e.Value))
			return nil
		})
	if err != nil {
		r.Err = err.Error()
	}
	r.Schema = in.Schema()
	return r
}

// FuzzSplitWalk checks that a walk split anywhere and merged reports
// exactly what one walk does: when the split point is an element's start,
// the two walks' records, members and merged schema are the one walk's
// (and so is its error); when it is not, AddElementsUntil says so and has
// done the one walk itself. SplitPoint must not panic on any input.
func FuzzSplitWalk(f *testing.F) {
	for _, s := range []string{
		`[{"a":1,"b":"x"},{"a":2.5,"c":[1,{"d":null}]},{"b":"y","a":-1e3}]`,
		`[{"a":{"b":1}},{"a":{"c":[{"x":1}]}},{"d":[]},{"a":{}}]`,
		` [ {"a" : 1} ,
		  {"a":"two"} , {} ] `,
		`[{"a":1},{"a":"},{\"a\":"},{"a":3}]`,
		`[{"a":1},{"a":2}`,
		`[{"a":1},{"a":2}]x`,
		`[{"a":1},{"a":tru}]`,
		`[1,"a",true,null,[],{}]`,
		`[]`,
	} {
		f.Add([]byte(s), uint16(0))
		f.Add([]byte(s), uint16(len(s)/2))
	}
	f.Fuzz(func(t *testing.T, data []byte, at uint16) {
		if len(data) > 1<<12 {
			return
		}
		_ = SplitPoint(data)
		want := wholeWalk(data)
		stops := []int{int(at) % (len(data) + 1), SplitPoint(data)}
		for _, stop := range stops {
			got, split := splitWalk(data, stop)
			if !split && want.Err == "" && isElementStart(want, stop) {
				t.Fatalf("AddElementsUntil(%q, %d) did not split at an element's start", data, stop)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Fatalf("walk of %q split at %d (split %v) (-one walk +split):\n%s", data, stop, split, diff)
			}
		}
	})
}

// isElementStart reports whether an element of r starts at offset i, other
// than the first (which AddElementsUntil may split at too).
func isElementStart(r walkResult, i int) bool {
	for _, rec := range r.Records {
		if strings.HasPrefix(rec, fmt.Sprintf("%d ", i)) {
			return true
		}
	}
	return false
}

func TestSplitPoint(t *testing.T) {
	tests := []struct {
		in     string
		want   string // the text the element split at starts with; "" for none
		reason string
	}{
		{`[{"id":1,"t":"a"},{"id":2,"t":"b"},{"id":3,"t":"c"},{"id":4,"t":"d"}]`, `{"id":3`, "compact records: the first opening past the middle"},
		{"[\n  {\"id\": 1},\n  {\"id\": 2},\n  {\"id\": 3}\n]", `{"id": 3`, "indented records: the opening as written"},
		{`[{"id":1,"t":"{\"id\":"},{"id":2}]`, `{"id":2`, "an opening inside a string, with no comma before it, is passed"},
		{`[1,2,3,4]`, "", "records that are not objects"},
		{`[{"id":1}]`, "", "one record"},
		{`{"id":1}`, "", "not an array"},
		{``, "", "empty"},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			want := -1
			if tt.want != "" {
				want = strings.Index(tt.in, tt.want)
			}
			if got := SplitPoint([]byte(tt.in)); got != want {
				t.Errorf("SplitPoint(%q) = %d, want %d", tt.in, got, want)
			}
		})
	}
}
