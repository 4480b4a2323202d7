// Package estimate estimates how many tokens a text costs a language model,
// which Large Result Offloading compares with a threshold to decide whether
// a tool result is offloaded.
//
// The specification's heuristic is about one token per four characters of
// Latin-script text; [Tokens] also counts each rune of Chinese, Japanese or
// Korean text as one token, as model tokenizers roughly do. It makes one pass
// over the text and allocates nothing. A model-specific tokenizer can be used
// instead as a [Tokenizer]; where one is accepted, nil means [Tokens].
// Every function in this package is safe for concurrent use.
package estimate

import (
	"encoding/binary"
	"unicode/utf8"
	"unsafe"
)

// A Tokenizer counts the tokens of a UTF-8 text. Implementations must be safe
// for concurrent use and must return at least 1 for non-empty text. Where a
// Tokenizer is accepted, nil means [Tokens].
type Tokenizer interface {
	Tokens(text []byte) int
}

// Tokens estimates the tokens of the UTF-8 text s with the specification's
// heuristic, one token per CJK, Hangul or Kana rune:
//
//	ceil(narrow/4) + wide
//
// where wide is the number of runes of East Asian scripts that tokenizers
// spend about one token on (CJK ideographs and radicals, CJK symbols and
// punctuation, Hiragana, Katakana, Bopomofo, Hangul syllables and jamo,
// halfwidth and fullwidth forms) and narrow is the number of every other
// character. Characters are runes, not bytes, so "é" counts as one character
// like "e". Emoji are narrow, one character per rune. Each byte of invalid
// UTF-8 counts as one narrow character.
//
// The result is 0 for empty input and at least 1 otherwise, and it never
// exceeds len(s) nor the number of runes in s. Tokens allocates nothing and
// is safe for concurrent use.
func Tokens(s string) int {
	return tokens(unsafe.Slice(unsafe.StringData(s), len(s))) // read only
}

// tokens is [Tokens] of the bytes b.
func tokens(b []byte) int {
	narrow, wide, le := 0, 0, binary.LittleEndian
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			// Fast path: 64, then eight ASCII bytes at a time, then one
			// by one.
			for i+64 <= len(b) {
				w := b[i : i+64]
				if (le.Uint64(w[0:8])|le.Uint64(w[8:16])|le.Uint64(w[16:24])|le.Uint64(w[24:32])|
					le.Uint64(w[32:40])|le.Uint64(w[40:48])|le.Uint64(w[48:56])|le.Uint64(w[56:64]))&highBits != 0 {
					break
				}
				narrow += 64
				i += 64
			}
			for i+8 <= len(b) && le.Uint64(b[i:i+8])&highBits == 0 {
				narrow += 8
				i += 8
			}
			for i < len(b) && b[i] < utf8.RuneSelf {
				narrow++
				i++
			}
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if uint32(r)-0x2E80 <= 0x9FFF-0x2E80 || r >= wideBlocks[0].lo && isWide(r) { // the main CJK range first
			wide++
		} else {
			narrow++ // includes utf8.RuneError for an invalid byte (size 1)
		}
		i += size
	}
	return (narrow+3)/4 + wide
}

// highBits has the high bit of each of eight bytes set: a word of eight ASCII
// bytes has none of them.
const highBits = 0x8080808080808080

// wideBlocks are the Unicode blocks, in order, of the scripts that
// tokenizers spend about one token per rune on; they also cover the CJK
// symbols and fullwidth forms that the unicode.Han, Hangul, ... tables
// leave out.
var wideBlocks = [...]struct{ lo, hi rune }{
	{0x1100, 0x11FF},   // Hangul Jamo
	{0x2E80, 0x9FFF},   // from CJK Radicals Supplement to CJK Unified Ideographs
	{0xA960, 0xA97F},   // Hangul Jamo Extended-A
	{0xAC00, 0xD7FF},   // Hangul Syllables, Jamo Extended-B
	{0xF900, 0xFAFF},   // CJK Compatibility Ideographs
	{0xFE30, 0xFE4F},   // CJK Compatibility Forms
	{0xFF00, 0xFFEF},   // Halfwidth and Fullwidth Forms
	{0x16FE0, 0x16FFF}, // Ideographic Symbols and Punctuation
	{0x1AFF0, 0x1B16F}, // Kana Extended-A/B, Supplement, Small Kana
	{0x1F200, 0x1F2FF}, // Enclosed Ideographic Supplement
	{0x20000, 0x3FFFF}, // Supplementary and Tertiary Ideographic Planes
}

// isWide reports whether r is in one of the wide blocks.
func isWide(r rune) bool {
	for _, w := range wideBlocks {
		if r <= w.hi {
			return r >= w.lo
		}
	}
	return false
}
