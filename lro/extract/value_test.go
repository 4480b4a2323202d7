package extract

import (
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/itchyny/gojq"
)

// TestEncoderMatchesGojq wants the encoder to print values exactly as
// gojq.Marshal (jq's formatting) does.
func TestEncoderMatchesGojq(t *testing.T) {
	for _, v := range []any{
		nil, true, false, 0, -12, 1.5, 1e-7, 1e21, 123456789012345680000.0, math.NaN(), math.Inf(1), math.Inf(-1),
		math.Copysign(0, -1), 0.1 + 0.2, big.NewInt(0).Lsh(big.NewInt(1), 80),
		"plain", "quote \" backslash \\ tab \t newline \n nul \x00 del \x7f", "é 日本 😀", "bad \xff utf8", "<&>",
		[]any{}, map[string]any{}, []any{1, "a", []any{nil}}, map[string]any{"b": 1, "a": map[string]any{"z": []any{}, "é": 2}},
	} {
		want, err := gojq.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		e := encoder{limit: 1 << 20}
		if err := e.encode(v); err != nil {
			t.Fatal(err)
		}
		if string(e.buf) != string(want) {
			t.Errorf("encode(%#v) = %s, gojq.Marshal gives %s", v, e.buf, want)
		}
	}
}

func TestEncoderStopsAtLimit(t *testing.T) {
	// A value of 2^60 leaves, shared: the encoder must stop near the limit.
	var v any = 0
	for range 60 {
		v = []any{v, v}
	}
	e := encoder{limit: 1000}
	if err := e.encode(v); !errors.Is(err, errTooLarge) {
		t.Fatalf("err = %v, want errTooLarge", err)
	}
	if len(e.buf) > 1200 {
		t.Errorf("encoded %d bytes past a limit of 1000", len(e.buf))
	}
	var deep any = 1
	for range maxDepth + 1 {
		deep = []any{deep}
	}
	e = encoder{limit: 1 << 30}
	if err := e.encode(deep); !errors.Is(err, errTooDeep) {
		t.Errorf("err = %v, want errTooDeep", err)
	}
}

func TestTruncate(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"abcdef", 3, "abc…"},
		{"日本語", 4, "日…"},
	} {
		if got := truncate(tt.s, tt.n); got != tt.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

// TestErrorMessageOfALargeValue wants the message of error(v) for a large
// non-string v cut once, with one ellipsis.
func TestErrorMessageOfALargeValue(t *testing.T) {
	q, err := gojq.Parse(`error({a: ("x" * 2000)})`)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := q.Run(nil).Next()
	e, ok := v.(error)
	if !ok {
		t.Fatalf("got %v, want an error", v)
	}
	got := errorMessage(e)
	if !strings.HasPrefix(got, `error: {"a":"xxx`) || !strings.HasSuffix(got, "x…") || len(got) > len("error: …")+maxMessage {
		t.Errorf("errorMessage = %q (%d bytes), want the value cut once at %d bytes with one ellipsis", got, len(got), maxMessage)
	}
}
