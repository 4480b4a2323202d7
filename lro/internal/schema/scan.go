package schema

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zircote/lro-go/internal/rawjson"
)

// scanner reads a JSON text in place, a value at a time, accepting exactly
// what encoding/json's Valid accepts (invalid UTF-8, lone surrogate escapes
// and duplicate names included), with the Skip functions of
// internal/rawjson: it reads each byte once, and the bytes of strings, most
// of a record's, eight at a time.
type scanner struct {
	b      []byte
	pos    int  // the next byte to read
	spaced bool // white space was read outside strings
	jq16   jq16 // why jq 1.6 cannot parse the record being read
}

// peek skips white space and returns the next byte, or 0 at the end.
func (s *scanner) peek() byte {
	for s.pos < len(s.b) {
		if c := s.b[s.pos]; c > ' ' || c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return c
		}
		s.spaced = true
		s.pos++
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

// scalar reads a string, number or literal, whose first byte c is next, and
// returns its kind, with 'i' for an integer (a number without a fraction or
// an exponent).
func (s *scanner) scalar(c byte) (jsontext.Kind, error) {
	switch c {
	case '"':
		return '"', s.str()
	case 't':
		return 't', s.to(rawjson.SkipLiteral(s.b, s.pos, "true"), "in a literal")
	case 'f':
		return 'f', s.to(rawjson.SkipLiteral(s.b, s.pos, "false"), "in a literal")
	case 'n':
		return 'n', s.to(rawjson.SkipLiteral(s.b, s.pos, "null"), "in a literal")
	}
	end, integer := rawjson.SkipNumber(s.b, s.pos)
	if integer {
		return 'i', s.to(end, "in a number")
	}
	return '0', s.to(end, "in a number")
}

// str reads the string whose quote is next, and notes a lone surrogate
// escape in it.
func (s *scanner) str() error {
	start := s.pos
	end, plain := rawjson.SkipString(s.b, s.pos)
	if !plain && end > start && s.jq16 < jq16Surrogate && loneSurrogate(s.b[start:end]) {
		s.jq16 = jq16Surrogate
	}
	return s.to(end, "in a string")
}

// jq16 is why jq 1.6, the oldest jq in wide use, cannot parse a record
// (failing the whole file there), 0 when it can: a lone surrogate escape is
// named before the nesting.
type jq16 uint8

const (
	jq16Depth jq16 = 1 + iota
	jq16Surrogate
)

var jq16Reasons = [...]string{"", "nesting deeper than jq 1.6 reads", "a lone surrogate escape such as \\ud800"}

// jq16MaxDepth is jq 1.6's MAX_PARSING_DEPTH: it refuses to open an array or
// an object once its parser's stack holds that many entries, each open
// container and the key of each object whose member is being read counting
// one.
const jq16MaxDepth = 256

// loneSurrogate reports whether the valid JSON string str holds a high
// surrogate escape (\ud800 to \udbff) that no low one follows.
func loneSurrogate(str []byte) bool {
	for i := bytes.IndexByte(str, '\\'); i >= 0; {
		// In a valid string a backslash starts an escape.
		if str[i+1] == 'u' && surrogate(str[i+2:i+6], "89abAB") {
			next := str[i+6:]
			if len(next) < 6 || next[0] != '\\' || next[1] != 'u' || !surrogate(next[2:6], "cdefCDEF") {
				return true
			}
			i += 12
		} else {
			i += 2
		}
		j := bytes.IndexByte(str[i:], '\\')
		if j < 0 {
			break
		}
		i += j
	}
	return false
}

// surrogate reports whether the four hex digits h are a UTF-16 surrogate
// whose second digit is in second: "89abAB", high; "cdefCDEF", low.
func surrogate(h []byte, second string) bool {
	return len(h) == 4 && (h[0] == 'd' || h[0] == 'D') && strings.IndexByte(second, h[1]) >= 0
}

// to moves to end, which a rawjson Skip function returned, or fails at the
// byte ^end it reports, where it was.
func (s *scanner) to(end int, where string) error {
	if end < 0 {
		s.pos = ^end
		return s.errAt(where)
	}
	s.pos = end
	return nil
}

// memberName reads an object member's name and the colon after it, and returns
// the name as written, and whether it is hint as written (hint holds no quote,
// backslash or control character): then it is not scanned again.
func (s *scanner) memberName(hint string) (name []byte, hinted bool, err error) {
	if s.peek() != '"' {
		return nil, false, s.errAt("where a member name was expected")
	}
	start := s.pos
	if end := start + 1 + len(hint); hint != "" && end < len(s.b) && s.b[end] == '"' && string(s.b[start+1:end]) == hint {
		s.pos, hinted = end+1, true
	} else if err := s.str(); err != nil {
		return nil, false, err
	}
	name = s.b[start:s.pos]
	if s.peek() != ':' {
		return nil, false, s.errAt("after a member name")
	}
	s.pos++
	return name, hinted, nil
}
