package tabular

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zircote/lro-go/internal/rawjson"
)

// readPython reads text as Python's str() of a list or tuple of rows (dicts
// with string keys, tuples or lists; all of one kind) of None, True, False,
// numbers, strings, lists and dicts, as printPython prints them, writing
// each row's record as it reads it (no syntax tree; nothing is evaluated).
// A text that printPython would not print is no table anyway: Read checks
// what it reads by printing it back, so that text may be misread here.
func readPython(text string) (Table, error) {
	src, nl := strings.CutSuffix(text, "\n")
	p := pyReader{s: src, i: 1}
	outer, rowKind := src[0], src[1] // src[0] is '[' or '(', as Read checks
	var recs records
	for len(recs.recs) == 0 || p.skip(", ") {
		if p.i >= len(src) || src[p.i] != rowKind || strings.IndexByte("{([", rowKind) < 0 {
			return Table{}, errors.New("tabular: not a list or tuple of rows of one kind")
		}
		var err error
		if recs.buf, err = p.value(recs.buf[:0], 0); err != nil {
			return Table{}, err
		}
		recs.add(recs.buf)
	}
	if outer == '(' && len(recs.recs) == 1 {
		p.skip(",")
	}
	if !p.skip(string(closer(outer))) || p.i != len(src) {
		return Table{}, errors.New("tabular: rows not separated as Python prints them")
	}
	return Table{Format: Python, Layout: string([]byte{outer, rowKind}) + " " + endWord(nl), Records: recs.recs}, nil
}

// pyReader reads a Python literal s from i.
type pyReader struct {
	s   string
	i   int
	str []byte // a string's decoding
}

// skip reports whether s continues with t at i, and then reads it.
func (p *pyReader) skip(t string) bool {
	ok := strings.HasPrefix(p.s[p.i:], t)
	if ok {
		p.i += len(t)
	}
	return ok
}

var errPython = errors.New("tabular: not a Python literal as Python prints it")

// value appends the JSON of the Python value at i, at depth in the row: a
// row (depth 0) may be a tuple; below it, only lists and dicts are.
func (p *pyReader) value(dst []byte, depth int) ([]byte, error) {
	if p.i >= len(p.s) || depth > rawjson.MaxDepth {
		return nil, errPython
	}
	switch c := p.s[p.i]; {
	case p.skip("None"):
		return append(dst, "null"...), nil
	case p.skip("True"):
		return append(dst, "true"...), nil
	case p.skip("False"):
		return append(dst, "false"...), nil
	case c == '-' || c >= '0' && c <= '9': // a number that is also JSON's
		end := p.i + 1
		for end < len(p.s) && strings.IndexByte("0123456789.eE+-", p.s[end]) >= 0 {
			end++
		}
		num := p.s[p.i:end]
		// Python prints inf for a float beyond float64's range, not a
		// literal.
		if _, err := strconv.ParseFloat(num, 64); !jsonNumber(num) || err != nil && strings.ContainsAny(num, ".eE") {
			return nil, errPython
		}
		dst, p.i = append(dst, num...), end
		return dst, nil
	case c == '\'' || c == '"':
		s, err := p.quoted(c)
		if err != nil {
			return nil, err
		}
		return rawjson.AppendQuote(dst, s), checkStable(s)
	case c == '{' || c == '[' || c == '(' && depth == 0:
		p.i++
		open := c
		if c == '(' {
			open = '['
		}
		dst = append(dst, open)
		for n := 0; !p.skip(string(closer(c))); n++ {
			if n == 1 && c == '(' && p.skip(",)") { // a tuple of one
				break
			}
			if n > 0 {
				if !p.skip(", ") {
					return nil, errPython
				}
				dst = append(dst, ',')
			}
			var err error
			if c == '{' {
				if p.i >= len(p.s) || p.s[p.i] != '\'' && p.s[p.i] != '"' {
					return nil, errors.New("tabular: a dict key that is not a string")
				}
				if dst, err = p.value(dst, depth+1); err != nil {
					return nil, err
				}
				if !p.skip(": ") {
					return nil, errPython
				}
				dst = append(dst, ':')
			}
			if dst, err = p.value(dst, depth+1); err != nil {
				return nil, err
			}
		}
		return append(dst, closer(open)), nil
	}
	return nil, errPython
}

// quoted reads the string literal at i, quoted with q, with the escapes
// that appendRepr writes, and returns its value.
func (p *pyReader) quoted(q byte) (string, error) {
	p.str = p.str[:0]
	for p.i++; p.i < len(p.s); p.i++ {
		switch c := p.s[p.i]; c {
		case q:
			p.i++
			return rawjson.String(p.str), nil // used before the next string is read
		case '\\':
			p.i++
			if p.i >= len(p.s) {
				return "", errPython
			}
			if k := strings.IndexByte(`\'"tnr`, p.s[p.i]); k >= 0 {
				p.str = append(p.str, "\\'\"\t\n\r"[k])
				continue
			}
			// \x, \u and \U: their digits, as many as the letter's index.
			n := strings.IndexByte("..x.u...U", p.s[p.i])
			if n <= 0 || p.i+n >= len(p.s) {
				return "", errPython
			}
			r, err := strconv.ParseUint(p.s[p.i+1:p.i+1+n], 16, 32)
			if err != nil {
				return "", errPython
			}
			p.str, p.i = utf8.AppendRune(p.str, rune(r)), p.i+n
		default:
			p.str = append(p.str, c)
		}
	}
	return "", errors.New("tabular: a string without its end")
}

// checkStable fails for a string with a character that Unicode has not
// assigned as far as this program knows: appendRepr escapes it, as Python
// does for an unassigned character, but a later Unicode may assign it, and
// a later build print it as it is, and so no longer print the text back.
func checkStable(s string) error {
	for _, r := range s {
		if r > 0xff && !unicode.IsPrint(r) && !unicode.In(r, unicode.Cc, unicode.Cf, unicode.Co, unicode.Zl, unicode.Zp, unicode.Zs) {
			return fmt.Errorf("tabular: the unassigned character %U", r)
		}
	}
	return nil
}

// printPython prints records as Python's str() of them, with layout (see
// Print).
func printPython(dst []byte, layout string, records [][]byte) ([]byte, error) {
	words := strings.Fields(layout)
	if len(words) != 2 || len(words[0]) != 2 {
		return nil, errLayout
	}
	open, rowOpen, end := words[0][0], words[0][1], words[1]
	if strings.IndexByte("[(", open) < 0 || strings.IndexByte("[({", rowOpen) < 0 {
		return nil, errLayout
	}
	dst = append(dst, open)
	for i, rec := range records {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		dec := jsontext.NewDecoder(bytes.NewReader(rec), jsontext.AllowDuplicateNames(true))
		var err error
		if dst, err = printPythonValue(dst, dec, rowOpen); err != nil {
			return nil, err
		}
	}
	if open == '(' && len(records) == 1 {
		dst = append(dst, ',')
	}
	return ending(append(dst, closer(open), '\n'), end, "\n")
}

// closer returns the bracket that closes open: ')' for '(', else '}' or
// ']', which follow '{' and '[' by two in ASCII.
func closer(open byte) byte {
	if open == '(' {
		return ')'
	}
	return open + 2
}

// printPythonValue prints the next JSON value of dec as Python's repr of
// it; an array as a tuple when as is '('.
func printPythonValue(dst []byte, dec *jsontext.Decoder, as byte) ([]byte, error) {
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch k := tok.Kind(); k {
	case 'n':
		return append(dst, "None"...), nil
	case 't':
		return append(dst, "True"...), nil
	case 'f':
		return append(dst, "False"...), nil
	case '0':
		return append(dst, tok.String()...), nil
	case '"':
		return appendRepr(dst, tok.String()), nil
	case '{', '[':
		if (k == '{') != (as == '{') {
			return nil, errors.New("tabular: a row of another kind")
		}
		dst = append(dst, as)
		n := 0
		for ; dec.PeekKind() != k+2; n++ { // '}' or ']'
			if n > 0 {
				dst = append(dst, ", "...)
			}
			if k == '{' {
				name, err := dec.ReadToken()
				if err != nil {
					return nil, err
				}
				dst = append(appendRepr(dst, name.String()), ": "...)
			}
			// Below a row, arrays are lists and objects dicts.
			if dst, err = printPythonValue(dst, dec, byte(dec.PeekKind())); err != nil {
				return nil, err
			}
		}
		if _, err := dec.ReadToken(); err != nil {
			return nil, err
		}
		if as == '(' && n == 1 {
			dst = append(dst, ',')
		}
		return append(dst, closer(as)), nil
	}
	return nil, errors.New("tabular: not a JSON value")
}

// appendRepr appends Python 3's repr of s: single quotes unless s holds one
// and no double quote; \t, \n, \r, \\ and the quote escaped; other
// characters that are not printable as \xhh, \uhhhh or \Uhhhhhhhh.
// Printable is unicode.IsPrint, Python's str.isprintable for the Unicode
// versions both know.
func appendRepr(dst []byte, s string) []byte {
	q := byte('\'')
	if strings.IndexByte(s, '\'') >= 0 && strings.IndexByte(s, '"') < 0 {
		q = '"'
	}
	dst = append(dst, q)
	for _, r := range s {
		switch {
		case r == rune(q) || r == '\\':
			dst = append(dst, '\\', byte(r))
		case r == '\t':
			dst = append(dst, `\t`...)
		case r == '\n':
			dst = append(dst, `\n`...)
		case r == '\r':
			dst = append(dst, `\r`...)
		case r >= ' ' && r < 0x7f:
			dst = append(dst, byte(r))
		case unicode.IsPrint(r):
			dst = utf8.AppendRune(dst, r)
		case r <= 0xff:
			dst = fmt.Appendf(dst, `\x%02x`, r)
		case r <= 0xffff:
			dst = fmt.Appendf(dst, `\u%04x`, r)
		default:
			dst = fmt.Appendf(dst, `\U%08x`, r)
		}
	}
	return append(dst, q)
}
