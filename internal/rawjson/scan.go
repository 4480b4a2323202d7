package rawjson

import (
	"encoding/binary"
	"math/bits"
)

// The Skip functions scan JSON text in place, without jsontext, for the
// decoder of lro/extract and the Inferrer of lro/internal/schema: each
// finds where a string, number or literal ends and checks it, and with
// their callers' walks they accept exactly what encoding/json's Valid
// accepts (invalid UTF-8, lone surrogate escapes and duplicate names
// included). They are written by hand for speed (on jsontext the two are
// 1.6-2.3x slower): one pass, strings eight bytes at a time. Each returns
// the offset just past what it read or, when that is not valid, ^off, off
// the offset of the byte at fault (len(b) at the end of b): a negative.

// MaxDepth is how deep arrays and objects may nest, as encoding/json's
// Valid and jsontext allow.
const MaxDepth = 10000

// Masks of the eight bytes of a word.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// SkipSpace returns the offset of the first byte of b from i that is not
// JSON white space.
func SkipSpace(b []byte, i int) int {
	for i < len(b) && b[i] <= ' ' && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t') {
		i++
	}
	return i
}

// quoteOrEscape returns the high bit of each of the eight bytes of w that
// is a quote or a backslash, and maybe of bytes after the first such: the
// lowest bit set is the first.
func quoteOrEscape(w uint64) uint64 {
	q, e := w^('"'*ones), w^('\\'*ones)
	return ((q-ones)&^q | (e-ones)&^e) & highs
}

// SkipString reads the JSON string whose quote is at b[i], and reports
// whether it is plain: ASCII without escapes, so that it is the text between
// its quotes.
func SkipString(b []byte, i int) (end int, plain bool) {
	// To the next quote, backslash, control character or non-ASCII byte,
	// eight bytes at a time (a byte below ' ' or above 0x7f has its high bit
	// set in w|w-' '*ones, with false bits only above the first).
	for i++; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i:])
		if m := (w|(w-' '*ones))&highs | quoteOrEscape(w); m != 0 {
			i += bits.TrailingZeros64(m) >> 3
			break
		}
	}
	for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i]-' ' < 0x80-' ' {
		i++
	}
	if i < len(b) && b[i] == '"' {
		return i + 1, true
	}
	return skipEscaped(b, i), false
}

// skipEscaped is SkipString from b[i] on, where the string is not plain.
func skipEscaped(b []byte, i int) int {
	for {
		// To the next quote, backslash or control character.
		for ; i+8 <= len(b); i += 8 {
			w := binary.LittleEndian.Uint64(b[i:])
			if m := (w-' '*ones)&^w&highs | quoteOrEscape(w); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
		}
		for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= ' ' {
			i++
		}
		switch {
		case i >= len(b) || b[i] < ' ':
			return ^i
		case b[i] == '"':
			return i + 1
		case i+1 >= len(b):
			return ^len(b)
		}
		switch b[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			for j := i + 2; j < i+6; j++ {
				if j >= len(b) || !isHex(b[j]) {
					return ^j
				}
			}
			i += 6
		default:
			return ^(i + 1)
		}
	}
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// SkipValue reads the JSON value at b[i], after white space, held in depth
// arrays and objects: nested at most MaxDepth deep in all, as encoding/json's
// Valid and jsontext allow. Members of one name may repeat, and strings
// hold invalid UTF-8, as they accept too.
func SkipValue(b []byte, i, depth int) int {
	i = SkipSpace(b, i)
	if i >= len(b) {
		return ^i
	}
	switch b[i] {
	case '"':
		end, _ := SkipString(b, i)
		return end
	case 't':
		return SkipLiteral(b, i, "true")
	case 'f':
		return SkipLiteral(b, i, "false")
	case 'n':
		return SkipLiteral(b, i, "null")
	case '[', '{':
		return SkipContainer(b, i, depth, nil)
	}
	end, _ := SkipNumber(b, i)
	return end
}

// SkipContainer reads the array or object that starts at b[i], held in depth
// arrays and objects, as [SkipValue] does, and calls each, if not nil, with
// each element, or each member's name (its JSON string as written) and
// value, in order; name is nil for an element. A call may come before the
// text turns out not to be valid.
func SkipContainer(b []byte, i, depth int, each func(name, value []byte)) int {
	c := b[i]
	if depth >= MaxDepth {
		return ^i
	}
	if i = SkipSpace(b, i+1); i < len(b) && b[i] == c+2 { // ']' or '}'
		return i + 1
	}
	for {
		var name []byte
		if c == '{' {
			if i >= len(b) || b[i] != '"' {
				return ^i
			}
			end, _ := SkipString(b, i)
			if end < 0 {
				return end
			}
			name = b[i:end]
			if i = SkipSpace(b, end); i >= len(b) || b[i] != ':' {
				return ^i
			}
			i = SkipSpace(b, i+1)
		}
		end := SkipValue(b, i, depth+1)
		if end < 0 {
			return end
		}
		if each != nil {
			each(name, b[i:end:end])
		}
		switch i = SkipSpace(b, end); {
		case i < len(b) && b[i] == ',':
			i = SkipSpace(b, i+1)
		case i < len(b) && b[i] == c+2:
			return i + 1
		default:
			return ^i
		}
	}
}

// SkipLiteral reads the literal lit (true, false or null) at b[i].
func SkipLiteral(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return ^i
	}
	return i + len(lit)
}

// SkipNumber reads the JSON number at b[i],
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?, and reports whether it is
// an integer: without a fraction or an exponent.
func SkipNumber(b []byte, i int) (end int, integer bool) {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = skipDigits(b, i+1)
	default:
		return ^i, false
	}
	integer = true
	if i < len(b) && b[i] == '.' {
		integer = false
		if i = skipDigits(b, i+1); b[i-1] == '.' {
			return ^i, false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		integer = false
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := skipDigits(b, i)
		if j == i {
			return ^i, false
		}
		i = j
	}
	return i, integer
}

// skipDigits returns the offset of the first byte of b from i that is not a
// decimal digit.
func skipDigits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}
