package lro_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zircote/lro-go/cleanup"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/descriptor"
	"github.com/zircote/lro-go/lro/event"
	"github.com/zircote/lro-go/lro/extract"
	"github.com/zircote/lro-go/lro/store"
	"github.com/zircote/lro-go/recipes"
)

// namedObserver is an Observer that go-cmp compares by its name.
type namedObserver struct{ Name string }

func (namedObserver) Observe(context.Context, event.Event) {}

// TestOptionsCompare compares Options with go-cmp, as users do in their
// tests: with every field set, cmp.Equal and cmp.Diff do not panic (no
// unexported field: what lro keeps of its own is not in Options), given a
// Comparer for the two opaque types that users compare by identity, the
// Store and the record type. The Options of the other packages have only
// exported fields too.
func TestOptionsCompare(t *testing.T) {
	st, err := store.Open(context.Background(), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	profile := descriptor.ProfileNoSchema
	opts := lro.Options{
		Disabled:           true,
		ThresholdTokens:    100,
		TTL:                time.Hour,
		CleanupInterval:    time.Minute,
		OutputDir:          st.Dir(),
		Store:              st,
		ClientDir:          "/client",
		Prefix:             "p",
		Operation:          "op",
		QueryArgument:      "q",
		DetailArgument:     "d",
		DefaultDetail:      recipes.Light,
		RecordsField:       "items",
		Profile:            descriptor.ProfileBarePointer,
		PreviewRecords:     2,
		RecordType:         reflect.TypeFor[struct{ A int }](),
		SchemaDescriptions: true,
		Tokenizer:          idTokenizer{},
		Observer:           namedObserver{"a"},
		ExtractTools:       true,
		Always:             true,
		Tools:              map[string]lro.Options{"t": {Disabled: true, ThresholdTokens: 5, Profile: profile, Always: true, DisableRedaction: true, RedactPatterns: []string{"x"}}},
		DisableRedaction:   true,
		RedactPatterns:     []string{"(?P<k>secret)"},
	}
	v := reflect.ValueOf(opts)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Errorf("Options.%s is not set: set every field", v.Type().Field(i).Name)
		}
	}
	other := opts
	other.Observer = namedObserver{"b"}
	identity := cmp.Options{
		cmp.Comparer(func(a, b *store.Store) bool { return a == b }),
		cmp.Comparer(func(a, b reflect.Type) bool { return a == b }),
	}
	for _, tt := range []struct {
		name string
		b    lro.Options
		want bool
	}{
		{"a copy", opts, true},
		{"another Observer", other, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := cmp.Equal(opts, tt.b, identity); got != tt.want {
				t.Errorf("cmp.Equal = %v, want %v", got, tt.want)
			}
			if diff := cmp.Diff(opts, tt.b, identity); (diff == "") != tt.want {
				t.Errorf("cmp.Diff = %q", diff)
			}
		})
	}
	for _, typ := range []reflect.Type{
		reflect.TypeFor[lro.Options](), reflect.TypeFor[extract.Options](),
		reflect.TypeFor[store.Options](), reflect.TypeFor[cleanup.Options](),
	} {
		for _, f := range reflect.VisibleFields(typ) {
			if !f.IsExported() {
				t.Errorf("%v has the unexported field %s, which go-cmp refuses", typ, f.Name)
			}
		}
	}
}
