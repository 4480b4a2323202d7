package event_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"

	"github.com/zircote/lro-go/lro/event"
)

// logKey is the logging key documented for a field: its name in snake case,
// except Err, which is logged as "error".
func logKey(field string) string {
	if field == "Err" {
		return "error"
	}
	var b strings.Builder
	runes := []rune(field)
	for i, r := range runes {
		if i > 0 && unicode.IsUpper(r) && unicode.IsLower(runes[i-1]) {
			b.WriteByte('_')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// TestLogAttrsCoverEveryField checks that each event logs every field of
// its payload, in order, under the key its documentation gives, so that a
// field added later cannot be forgotten in the logs.
func TestLogAttrsCoverEveryField(t *testing.T) {
	for _, e := range []event.Event{
		event.Offloaded{}, event.WriteFailed{Err: errors.New("x")}, event.FileExpired{},
		event.StoreUnavailable{Err: errors.New("x")},
	} {
		t.Run(e.Kind().String(), func(t *testing.T) {
			typ := reflect.TypeOf(e)
			var want, got []string
			for i := range typ.NumField() {
				want = append(want, logKey(typ.Field(i).Name))
			}
			for _, a := range e.LogAttrs() {
				got = append(got, a.Key)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%T.LogAttrs keys (-fields +attrs):\n%s", e, diff)
			}
		})
	}
}

func TestKindString(t *testing.T) {
	tests := []struct {
		kind   event.Kind
		want   string
		reason string
	}{
		{event.KindOffloaded, "OffloadCompleted", "the specification's name for a completed offload"},
		{event.KindWriteFailed, "OffloadWriteFailed", "the specification's name"},
		{event.KindFileExpired, "OffloadFileExpired", "the specification's name"},
		{event.KindStoreUnavailable, "OffloadStoreUnavailable", "named like the specification's events"},
		{event.Kind(0), "OffloadEvent(0)", "the zero Kind is no event"},
		{event.Kind(42), "OffloadEvent(42)", "unknown kinds show their number"},
	}
	for _, tt := range tests {
		if got := tt.kind.String(); got != tt.want {
			t.Errorf("Kind(%d).String() = %q, want %q: %s", int(tt.kind), got, tt.want, tt.reason)
		}
	}
}
