package extract

import (
	"encoding/binary"
	"math/bits"
)

// The functions below scan JSON text for the decoder: each finds where a
// string, number or literal ends and checks it. With decoder.walk they
// accept exactly what encoding/json accepts (FuzzDecode). They are written
// by hand for speed: they check eight bytes at a time, in one pass.

// Masks of the eight bytes of a word, for the string scan.
const (
	ones    = 0x0101010101010101
	highs   = 0x8080808080808080
	quotes  = '"' * ones
	slashes = '\\' * ones
	spaces  = ' ' * ones
)

// skipSpace returns the offset of the first byte from i that is not JSON
// white space.
func skipSpace(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t') {
		i++
	}
	return i
}

// skipString returns the offset just past the JSON string at data[i] (a
// quote), or -1, and whether the string is plain: ASCII without escapes, so
// that it is the text between its quotes.
func skipString(data []byte, i int) (end int, plain bool) {
	i++
	plain = true
	var high uint64 // the high bits of the bytes scanned
	for {
		// m has the high bit of a byte set where a word has a quote, a
		// backslash or a control character (false bits only above the first).
		for ; i+8 <= len(data); i += 8 {
			w := binary.LittleEndian.Uint64(data[i:])
			q, s := w^quotes, w^slashes
			if m := ((q-ones)&^q | (s-ones)&^s | (w-spaces)&^w) & highs; m != 0 {
				k := bits.TrailingZeros64(m) &^ 7 // bit offset of that byte
				high |= w & (1<<k - 1)
				i += k >> 3
				break
			}
			high |= w
		}
		for i < len(data) && data[i] != '"' && data[i] != '\\' && data[i] >= ' ' {
			high |= uint64(data[i])
			i++
		}
		switch {
		case i >= len(data) || data[i] < ' ':
			return -1, false
		case data[i] == '"':
			return i + 1, plain && high&highs == 0
		}
		plain = false
		if i+1 >= len(data) {
			return -1, false
		}
		switch data[i+1] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			i += 2
		case 'u':
			if i+6 > len(data) || !isHex(data[i+2]) || !isHex(data[i+3]) || !isHex(data[i+4]) || !isHex(data[i+5]) {
				return -1, false
			}
			i += 6
		default:
			return -1, false
		}
	}
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func skipLiteral(data []byte, i int, word string) int {
	if len(data)-i < len(word) || string(data[i:i+len(word)]) != word {
		return -1
	}
	return i + len(word)
}

// skipNumber returns the offset just past the JSON number at data[i], or
// -1.
func skipNumber(data []byte, i int) int {
	if data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && '1' <= data[i] && data[i] <= '9':
		i = skipDigits(data, i)
	default:
		return -1
	}
	if i < len(data) && data[i] == '.' {
		if i+1 >= len(data) || !isDigit(data[i+1]) {
			return -1
		}
		i = skipDigits(data, i+1)
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || !isDigit(data[i]) {
			return -1
		}
		i = skipDigits(data, i)
	}
	return i
}

func skipDigits(data []byte, i int) int {
	for i < len(data) && isDigit(data[i]) {
		i++
	}
	return i
}
