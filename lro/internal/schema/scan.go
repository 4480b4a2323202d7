package schema

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/go-json-experiment/json/jsontext"
)

// maxNesting is how deep arrays and objects may nest, as encoding/json's
// Valid and jsontext allow.
const maxNesting = 10000

// scanner reads a JSON text in place, a value at a time, accepting exactly
// what encoding/json's Valid accepts (invalid UTF-8, lone surrogate escapes
// and duplicate names included). It reads each byte once, and the bytes of
// strings, most of a record's, eight at a time.
type scanner struct {
	b      []byte
	pos    int  // the next byte to read
	spaced bool // white space was read outside strings
}

// peek skips white space and returns the next byte, or 0 at the end.
func (s *scanner) peek() byte {
	for s.pos < len(s.b) {
		switch c := s.b[s.pos]; c {
		case ' ', '\t', '\n', '\r':
			s.spaced = true
			s.pos++
		default:
			return c
		}
	}
	return 0
}

// end fails unless only white space follows.
func (s *scanner) end() error {
	if s.peek() != 0 || s.pos < len(s.b) {
		return s.errAt("after the value")
	}
	return nil
}

// errAt returns the error of the byte at pos, or of the end of the input.
func (s *scanner) errAt(where string) error {
	if s.pos >= len(s.b) {
		return fmt.Errorf("unexpected end of JSON input %s", where)
	}
	return fmt.Errorf("invalid character %q %s at offset %d", s.b[s.pos], where, s.pos)
}

// scalar reads a string, number or literal and returns its kind, with 'i'
// for an integer (a number without a fraction or an exponent).
func (s *scanner) scalar() (jsontext.Kind, error) {
	switch c := s.peek(); c {
	case '"':
		return '"', s.str()
	case 't':
		return 't', s.literal("true")
	case 'f':
		return 'f', s.literal("false")
	case 'n':
		return 'n', s.literal("null")
	default:
		return s.number()
	}
}

// literal reads the literal lit.
func (s *scanner) literal(lit string) error {
	if len(s.b)-s.pos < len(lit) || string(s.b[s.pos:s.pos+len(lit)]) != lit {
		return s.errAt("in a literal")
	}
	s.pos += len(lit)
	return nil
}

// number reads a number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func (s *scanner) number() (jsontext.Kind, error) {
	b, i := s.b, s.pos
	kind := jsontext.Kind('i')
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = digits(b, i+1)
	default:
		s.pos = i
		return 0, s.errAt("in a number")
	}
	if i < len(b) && b[i] == '.' {
		kind = '0'
		j := digits(b, i+1)
		if j == i+1 {
			s.pos = j
			return 0, s.errAt("in a number's fraction")
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		kind = '0'
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			s.pos = j
			return 0, s.errAt("in a number's exponent")
		}
		i = j
	}
	s.pos = i
	return kind, nil
}

// digits returns the index of the first byte of b from i that is not a
// decimal digit.
func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

// The bytes of a word of eight bytes that are each 0x01 and 0x80 and a
// given byte.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// specials returns the high bit of each of the eight bytes of w that ends a
// string or needs a look, a quote, a backslash or a control character, and
// maybe of bytes after the first such: the lowest bit set is the first.
func specials(w uint64) uint64 {
	q := w ^ ('"' * ones)
	e := w ^ ('\\' * ones)
	return ((w-0x20*ones)&^w | (q-ones)&^q | (e-ones)&^e) & highs
}

// str reads a string whose quote is at pos.
func (s *scanner) str() error {
	b, i := s.b, s.pos+1
	for {
		// To the next quote, backslash or control character, eight bytes
		// at a time, then one at a time.
		for i+8 <= len(b) {
			if m := specials(binary.LittleEndian.Uint64(b[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		for i < len(b) && b[i] != '"' && b[i] != '\\' && b[i] >= 0x20 {
			i++
		}
		if i >= len(b) {
			s.pos = i
			return s.errAt("in a string")
		}
		switch b[i] {
		case '"':
			s.pos = i + 1
			return nil
		case '\\':
			if i+1 >= len(b) {
				s.pos = len(b)
				return s.errAt("in a string")
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if len(b)-i < 6 || !hex(b[i+2]) || !hex(b[i+3]) || !hex(b[i+4]) || !hex(b[i+5]) {
					s.pos = min(i+2, len(b))
					return s.errAt("in a \\u escape")
				}
				i += 6
			default:
				s.pos = i + 1
				return s.errAt("in an escape")
			}
		default: // a control character
			s.pos = i
			return s.errAt("in a string")
		}
	}
}

func hex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

// memberName reads an object member's name and the colon after it, and returns
// the name as written.
func (s *scanner) memberName() ([]byte, error) {
	if s.peek() != '"' {
		return nil, s.errAt("where a member name was expected")
	}
	start := s.pos
	if err := s.str(); err != nil {
		return nil, err
	}
	name := s.b[start:s.pos]
	if s.peek() != ':' {
		return nil, s.errAt("after a member name")
	}
	s.pos++
	return name, nil
}
