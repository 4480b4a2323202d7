package rawjson

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// refSkipString is SkipString a byte at a time.
func refSkipString(b []byte, i int) (int, bool) {
	plain := true
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, plain
		case c < ' ':
			return ^i, false
		case c >= 0x80:
			plain = false
		case c == '\\':
			plain = false
			if i+1 >= len(b) {
				return ^len(b), false
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				for j := i + 2; j < i+6; j++ {
					if j >= len(b) || !strings.ContainsRune("0123456789abcdefABCDEF", rune(b[j])) {
						return ^j, false
					}
				}
				i += 5
			default:
				return ^(i + 1), false
			}
		}
	}
	return ^len(b), false
}

// TestSkipString puts each byte or sequence that ends a string, stops the
// scan of eight bytes at a time or must not, at every offset of a word and
// across words, and checks SkipString against refSkipString on the string and
// on every prefix of it (so also at the end of the input, a byte at a time),
// and against json.Valid.
func TestSkipString(t *testing.T) {
	specials := []string{
		``, ` `, `!`, `#`, `[`, `]`, "\x7f", `\"`, `\\`, `\/`, `\b`, `\n`, `\u00e9`, `\uD800`, `\uABCDx`,
		`\u12`, `\u12x4`, `\x`, `\`, "\\\x01", "\x00", "\x01", "\x1f", "\x80", "\x9f", "\xa0", "\xbf", "\xff",
		"é", "€", "😀", "\xe2\x82", "\xf0\x9f\x98", `é\n`, "\\n\x80", "a\"",
	}
	// After the string: bytes that must not change what it is.
	suffixes := []string{``, `"`, `\`, "\x01", "é", "\xff", `"é\x01`}
	for _, sp := range specials {
		for pad := range 18 {
			for _, suffix := range suffixes {
				b := []byte(`"` + strings.Repeat("a", pad) + sp + strings.Repeat("b", 17-pad) + `"` + suffix)
				for n := 1; n <= len(b); n++ {
					checkSkipString(t, b[:n])
				}
			}
		}
	}
}

func checkSkipString(t *testing.T, b []byte) {
	t.Helper()
	wantEnd, wantPlain := refSkipString(b, 0)
	end, plain := SkipString(b, 0)
	if end != wantEnd || plain != wantPlain {
		t.Fatalf("SkipString(%q) = %d, %t; want %d, %t", b, end, plain, wantEnd, wantPlain)
	}
	if end > 0 && !json.Valid(b[:end]) || end < 0 && json.Valid(b) {
		t.Fatalf("SkipString(%q) = %d; json.Valid says otherwise", b, end)
	}
	// A string inside a longer input, at an offset.
	c := append([]byte(" ["), b...)
	if end, plain := SkipString(c, 2); end != shift(wantEnd, 2) || plain != wantPlain {
		t.Fatalf("SkipString(%q, 2) = %d, %t; want %d, %t", c, end, plain, shift(wantEnd, 2), wantPlain)
	}
}

// FuzzSkipString checks SkipString against refSkipString and json.Valid on
// any input that starts with a quote.
func FuzzSkipString(f *testing.F) {
	for _, s := range []string{`"abc"`, `"a\u00e9\n"x`, "\"\xff\xe2\x82\"", "\"0123456789\x01\"", `"\u12`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<12 {
			return
		}
		checkSkipString(t, append([]byte{'"'}, b...))
	})
}

// shift returns end, a Skip function's result, for an input with n more
// bytes before it.
func shift(end, n int) int {
	if end < 0 {
		return ^(^end + n)
	}
	return end + n
}

func TestSkipNumberLiteral(t *testing.T) {
	type result struct {
		End     int
		Integer bool
	}
	for _, tt := range []struct {
		in   string
		want result
	}{
		{"0", result{1, true}},
		{"-0,", result{2, true}},
		{"120]", result{3, true}},
		{"01", result{1, true}}, // the value is 0: what follows is the caller's
		{"-12.5e+3 ", result{8, false}},
		{"1E9", result{3, false}},
		{"1.0", result{3, false}},
		{"-", result{^1, false}},
		{"-a", result{^1, false}},
		{"1.", result{^2, false}},
		{"1.e", result{^2, false}},
		{"1e", result{^2, false}},
		{"1e+", result{^3, false}},
		{"1e+x", result{^3, false}},
		{".5", result{^0, false}},
	} {
		var got result
		got.End, got.Integer = SkipNumber([]byte(tt.in), 0)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("SkipNumber(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
	for _, tt := range []struct {
		in, lit string
		want    int
	}{
		{"true", "true", 4},
		{"null]", "null", 4},
		{"tru", "true", ^0},
		{"fals", "false", ^0},
		{"nulL", "null", ^0},
	} {
		if got := SkipLiteral([]byte(tt.in), 0, tt.lit); got != tt.want {
			t.Errorf("SkipLiteral(%q, %q) = %d; want %d", tt.in, tt.lit, got, tt.want)
		}
	}
	if got := SkipSpace([]byte(" \t\r\n x"), 0); got != 5 {
		t.Errorf("SkipSpace = %d; want 5", got)
	}
}
