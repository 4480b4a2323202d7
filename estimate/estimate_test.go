package estimate_test

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/zircote/lro-go/estimate"
)

var cases = []struct {
	name   string
	text   string
	want   int
	reason string
}{
	{"empty", "", 0, "no text costs nothing"},
	{"one char", "a", 1, "any non-empty text costs at least one token"},
	{"four chars", "abcd", 1, "four Latin characters are one token"},
	{"five chars", "abcde", 2, "the fifth character starts a second token (ceil)"},
	{"eight chars", "abcdefgh", 2, "exactly two tokens; exercises the 8-byte fast path"},
	{"nine chars", "abcdefghi", 3, "fast path followed by a one-byte tail"},
	{"latin accents", "éééé", 1, "characters are runes, not bytes: 4 runes in 8 bytes"},
	{"chinese", "大型结果卸载", 6, "each ideograph is about one token, not a quarter"},
	{"japanese kana", "ひらがなカタカナ", 8, "Hiragana and Katakana count one token per rune"},
	{"halfwidth katakana", "ｶﾀｶﾅ", 4, "halfwidth forms are still kana"},
	{"cjk punctuation", "「」、。", 4, "CJK symbols and punctuation count like ideographs"},
	{"korean", "안녕하세요", 5, "each Hangul syllable is about one token"},
	{"mixed", "LRO는 결과를 JSONL로 씀", 6 + 3, "6 Hangul syllables add one each, the other 11 runes add ceil(11/4)"},
	{"emoji", "👍👍👍👍👍", 2, "emoji are narrow runes: ceil(5/4)"},
	{"single emoji", "🎉", 1, "one 4-byte rune is one character"},
	{"invalid utf8", "\xff\xfe\xfd", 1, "each invalid byte is one narrow character"},
	{"truncated rune", "ab\xe5\xa4", 1, "a truncated 3-byte rune is two invalid bytes: 4 characters"},
	{"invalid between ascii", "abcdefgh\x80abcdefgh", 5, "17 characters, the bad byte counted once"},
	{"below first wide", "\u10ff\u10ff\u10ff\u10ff", 1, "U+10FF (Georgian) is just below Hangul Jamo: narrow"},
	{"hangul jamo", "\u1100\u1100\u1100\u1100", 4, "U+1100 is the first wide rune"},
	{"fullwidth latin", "ＡＢＣＤ", 4, "fullwidth forms count one token per rune"},
	{"cyrillic", "привет", 2, "other alphabets are narrow: ceil(6/4)"},
	{"ideograph extension b", "\U00020000\U0002A6D6", 2, "supplementary-plane ideographs are wide"},
	{"long ascii", strings.Repeat("x", 4000), 1000, "the spec's chars/4 for Latin script"},
}

func TestTokens(t *testing.T) {
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := estimate.Tokens(tc.text); got != tc.want {
				t.Errorf("Tokens(%.40q) = %d, want %d: %s", tc.text, got, tc.want, tc.reason)
			}
		})
	}
}

// TestWideIsNotUnderestimated checks the reason the package departs from a
// plain chars/4: Chinese text must cost about four times more per rune than
// Latin text of the same rune count.
func TestWideIsNotUnderestimated(t *testing.T) {
	latin := strings.Repeat("a", 400)
	han := strings.Repeat("字", 400)
	if l, h := estimate.Tokens(latin), estimate.Tokens(han); h != 4*l {
		t.Errorf("Tokens(400 Han) = %d, want 4 × Tokens(400 Latin) = %d", h, 4*l)
	}
}

func TestNoAllocs(t *testing.T) {
	s := strings.Repeat("Large results 大型结果 👍 \xff", 50)
	for name, f := range map[string]func(){
		"Tokens": func() { estimate.Tokens(s) },
	} {
		if n := testing.AllocsPerRun(100, f); n != 0 {
			t.Errorf("%s allocates %v times per call, want 0", name, n)
		}
	}
}

// checkInvariants verifies the properties every estimate must have.
func checkInvariants(t *testing.T, b []byte) {
	t.Helper()
	got := estimate.Tokens(string(b))
	ascii := true
	for _, c := range b {
		ascii = ascii && c < utf8.RuneSelf
	}
	if n := (len(b) + 3) / 4; ascii && n != got {
		t.Errorf("Bytes(%.40q) = %d, want ceil(%d/4) = %d on ASCII text", b, got, len(b), n)
	}
	switch {
	case len(b) == 0 && got != 0:
		t.Errorf("Bytes(%.40q) = %d, want 0 for empty input", b, got)
	case len(b) > 0 && got < 1:
		t.Errorf("Bytes(%.40q) = %d, want >= 1 for non-empty input", b, got)
	case got > len(b):
		t.Errorf("Bytes(%.40q) = %d, want <= len %d", b, got, len(b))
	case got > utf8.RuneCount(b):
		t.Errorf("Bytes(%.40q) = %d, want <= rune count %d", b, got, utf8.RuneCount(b))
	}
	// East Asian text is never under-estimated: each rune of the Han,
	// Hangul, Hiragana, Katakana and Bopomofo scripts costs a whole token,
	// and the other characters at least a quarter each. (Counting more runes
	// as wide only raises the estimate, so this bound holds whatever else the
	// estimator counts as wide.)
	if wide, chars := scriptRunes(b), utf8.RuneCount(b); got < wide+(chars-wide+3)/4 {
		t.Errorf("Bytes(%.40q) = %d, want >= %d for %d East Asian runes of %d characters",
			b, got, wide+(chars-wide+3)/4, wide, chars)
	}
	// Splitting valid text at a rune boundary changes the estimate by at most
	// one token (the rounding of the narrow count), so the offload decision
	// does not depend on how a result set is chunked.
	if utf8.Valid(b) && len(b) > 1 {
		h := len(b) / 2
		for !utf8.RuneStart(b[h]) {
			h--
		}
		sum := estimate.Tokens(string(b[:h])) + estimate.Tokens(string(b[h:]))
		if got > sum || got < sum-1 {
			t.Errorf("Bytes(%.40q) = %d, halves sum to %d; want sum-1 <= got <= sum", b, got, sum)
		}
	}
}

// eastAsian are the scripts whose every rune is about one token.
var eastAsian = []*unicode.RangeTable{unicode.Han, unicode.Hangul, unicode.Hiragana, unicode.Katakana, unicode.Bopomofo}

// scriptRunes counts the runes of b in the eastAsian scripts, except the two
// Bopomofo tone marks among the Latin modifier letters (see TestWideScripts).
// It is the test's own count, from the Unicode tables, independent of the
// ranges the estimator uses.
func scriptRunes(b []byte) int {
	n := 0
	for _, r := range string(b) {
		if r != 0x02EA && r != 0x02EB && unicode.IsOneOf(eastAsian, r) {
			n++
		}
	}
	return n
}

func TestInvariants(t *testing.T) {
	for _, tc := range cases {
		checkInvariants(t, []byte(tc.text))
	}
}

func FuzzBytes(f *testing.F) {
	for _, tc := range cases {
		f.Add([]byte(tc.text))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkInvariants(t, b)
	})
}

// TestWideScripts checks every rune that Unicode assigns to the Han, Hangul,
// Hiragana, Katakana or Bopomofo scripts: each must count as one token. The
// two Bopomofo tone marks U+02EA and U+02EB, in the Spacing Modifier Letters
// block among Latin modifiers, are the documented exception.
func TestWideScripts(t *testing.T) {
	scripts := map[string]*unicode.RangeTable{
		"Han": unicode.Han, "Hangul": unicode.Hangul, "Hiragana": unicode.Hiragana,
		"Katakana": unicode.Katakana, "Bopomofo": unicode.Bopomofo,
	}
	for name, table := range scripts {
		missed := 0
		for r := rune(0); r <= unicode.MaxRune; r++ {
			if !unicode.Is(table, r) || r == 0x02EA || r == 0x02EB {
				continue
			}
			if got := estimate.Tokens(strings.Repeat(string(r), 4)); got != 4 {
				if missed++; missed <= 5 {
					t.Errorf("Tokens(4 × %U, %s) = %d, want 4", r, name, got)
				}
			}
		}
		if missed > 5 {
			t.Errorf("%s: %d runes missed in all", name, missed)
		}
	}
}

// TestTokensFastPathEdges puts one non-ASCII rune at every offset of texts
// of up to 140 bytes, across the fast path's blocks of 64 and 8 bytes, and
// compares with the formula counted rune by rune.
func TestTokensFastPathEdges(t *testing.T) {
	for n := 0; n <= 140; n++ {
		for at := 0; at <= n; at++ {
			for _, r := range []string{"é", "字", "\x80"} {
				text := strings.Repeat("a", at) + r + strings.Repeat("b", n-at)
				narrow, wide := 0, 0
				for _, c := range text {
					if c >= 0x2E80 && c <= 0x9FFF {
						wide++
					} else {
						narrow++
					}
				}
				if got, want := estimate.Tokens(text), (narrow+3)/4+wide; got != want {
					t.Fatalf("Tokens of %d ASCII bytes with %q at %d = %d, want %d", n, r, at, got, want)
				}
			}
		}
	}
}
