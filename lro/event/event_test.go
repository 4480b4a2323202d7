package event

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode"

	"github.com/google/go-cmp/cmp"
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
	for _, e := range []Event{
		Offloaded{}, WriteFailed{Err: errors.New("x")}, FileExpired{},
		StoreUnavailable{Err: errors.New("x")},
	} {
		t.Run(e.name(), func(t *testing.T) {
			typ := reflect.TypeOf(e)
			var want, got []string
			for i := range typ.NumField() {
				want = append(want, logKey(typ.Field(i).Name))
			}
			for _, a := range attrs(e) {
				got = append(got, a.Key)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%T.attrs keys (-fields +attrs):\n%s", e, diff)
			}
		})
	}
}

// TestName checks the name of each event, which Slog logs as the message.
func TestName(t *testing.T) {
	tests := []struct {
		event  Event
		want   string
		reason string
	}{
		{Offloaded{}, "OffloadCompleted", "the specification's name for a completed offload"},
		{WriteFailed{}, "OffloadWriteFailed", "the specification's name"},
		{FileExpired{}, "OffloadFileExpired", "the specification's name"},
		{StoreUnavailable{}, "OffloadStoreUnavailable", "named like the specification's events"},
	}
	for _, tt := range tests {
		if got := tt.event.name(); got != tt.want {
			t.Errorf("%T.name() = %q, want %q: %s", tt.event, got, tt.want, tt.reason)
		}
	}
}
