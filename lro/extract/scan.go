package extract

import "encoding/binary"

// The functions below check JSON text without building it, for the two fast
// paths of a plan (see plan.go): a record it skips is only checked, and a
// projection only checks the values of the keys it does not keep. They
// accept exactly what decode accepts (FuzzDecode checks it): RFC 8259, any
// byte from 0x80 in strings, at most maxDepth levels.
//
// They are written by hand, rather than reading with jsontext as decode
// does, because these paths are the plan's gains and jsontext, which reads
// a string one byte at a time, made them slower by more than the project
// allows: on the records of BenchmarkRecipeVsJQ, the checking of a record
// and a projection took 1.3x and 1.6x the time; strings are checked here
// eight bytes at a time.

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

// skipValue returns the offset just past the JSON value at data[i], which
// is inside depth open arrays and objects, or -1 if no valid value starts
// there.
func skipValue(data []byte, i, depth int) int {
	if i >= len(data) {
		return -1
	}
	switch c := data[i]; c {
	case '"':
		end, _ := skipString(data, i)
		return end
	case '{', '[':
		return skipContainer(data, i, depth+1)
	case 't':
		return skipLiteral(data, i, "true")
	case 'f':
		return skipLiteral(data, i, "false")
	case 'n':
		return skipLiteral(data, i, "null")
	}
	return skipNumber(data, i)
}

// skipContainer is skipValue for the object or array at data[i], which is
// at level depth.
func skipContainer(data []byte, i, depth int) int {
	if depth > maxDepth {
		return -1
	}
	object := data[i] == '{'
	end := byte(']')
	if object {
		end = '}'
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == end {
		return i + 1
	}
	for {
		if object {
			if i >= len(data) || data[i] != '"' {
				return -1
			}
			if i, _ = skipString(data, i); i < 0 {
				return -1
			}
			if i = skipSpace(data, i); i >= len(data) || data[i] != ':' {
				return -1
			}
			i = skipSpace(data, i+1)
		}
		if i = skipValue(data, i, depth); i < 0 {
			return -1
		}
		switch i = skipSpace(data, i); {
		case i >= len(data):
			return -1
		case data[i] == end:
			return i + 1
		case data[i] != ',':
			return -1
		}
		i = skipSpace(data, i+1)
	}
}

// skipString returns the offset just past the JSON string at data[i] (a
// quote), or -1, and whether the string has escapes.
func skipString(data []byte, i int) (end int, escaped bool) {
	i++
	for {
		// Plain bytes eight at a time: a word has a quote, a backslash or
		// a control character where the high bit of a byte is set here
		// (and may have false bits above the first, never below).
		for ; i+8 <= len(data); i += 8 {
			w := binary.LittleEndian.Uint64(data[i:])
			q, s := w^quotes, w^slashes
			if ((q-ones)&^q|(s-ones)&^s|(w-spaces)&^w)&highs != 0 {
				break
			}
		}
		for i < len(data) && data[i] != '"' && data[i] != '\\' && data[i] >= ' ' {
			i++
		}
		switch {
		case i >= len(data) || data[i] < ' ':
			return -1, false
		case data[i] == '"':
			return i + 1, escaped
		}
		escaped = true
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
