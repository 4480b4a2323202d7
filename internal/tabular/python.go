package tabular

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"go.starlark.net/syntax"

	"github.com/zircote/lro-go/internal/rawjson"
)

// readPython reads text as Python's str() of a list or tuple of rows (dicts
// with string keys, tuples or lists; all of one kind) of None, True, False,
// numbers, strings, lists and dicts, as go.starlark.net/syntax parses it (a
// Python dialect; nothing is evaluated).
//
// Each row is parsed alone, so that the syntax tree of one row is held at a
// time (a tree takes tens of times its text): the rows are found as Python
// prints them, separated by ", " (a text printed otherwise would not be
// printed back, and is no table anyway).
func readPython(text string) (Table, error) {
	src, nl := strings.CutSuffix(text, "\n")
	outer, rows, err := pythonRows(src)
	if err != nil {
		return Table{}, err
	}
	var rowKind byte
	recs := records{recs: make([][]byte, 0, len(rows))}
	opts := &syntax.FileOptions{}
	for i, text := range rows {
		row, err := opts.ParseExpr("", pythonHexEscapes(text), 0)
		if err != nil {
			return Table{}, err
		}
		kind, _ := pythonSequence(row)
		if kind == 0 || i > 0 && kind != rowKind {
			return Table{}, errors.New("tabular: rows of different kinds")
		}
		rowKind = kind
		if recs.buf, err = appendPython(recs.buf[:0], row, true); err != nil {
			return Table{}, err
		}
		recs.add(recs.buf)
	}
	return Table{Format: Python, Layout: string([]byte{outer, rowKind}) + " " + endWord(nl), Records: recs.recs}, nil
}

// pythonRows splits src, a list or tuple display of rows as Python prints
// it, into the opening bracket and the text of each row: a dict, tuple or
// list display, whose brackets and string literals (quoted with ' or ",
// with backslash escapes) it follows. A one-row tuple ends with ",)". src
// starts with '[' or '(', as Read checks.
func pythonRows(src string) (byte, []string, error) {
	notRows := errors.New("tabular: not a list or tuple of rows")
	outer := src[0]
	body, ok := strings.CutSuffix(src[1:], string(closer(outer)))
	if !ok {
		return 0, nil, notRows
	}
	var rows []string
	for len(body) > 0 {
		n, err := pythonDisplay(body)
		if err != nil {
			return 0, nil, err
		}
		rows = append(rows, body[:n])
		body = body[n:]
		if outer == '(' && len(rows) == 1 && body == "," {
			break
		}
		if body != "" {
			var ok bool
			if body, ok = strings.CutPrefix(body, ", "); !ok || body == "" {
				return 0, nil, errors.New("tabular: rows not separated as Python prints them")
			}
		}
	}
	if len(rows) == 0 {
		return 0, nil, notRows
	}
	return outer, rows, nil
}

// pythonDisplay returns the length of the dict, tuple or list display that
// s starts with.
func pythonDisplay(s string) (int, error) {
	if s == "" || strings.IndexByte("{([", s[0]) < 0 {
		return 0, errors.New("tabular: a row that is not a dict, tuple or list")
	}
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'', '"':
			j := i + 1
			for ; j < len(s) && s[j] != c; j++ {
				if s[j] == '\\' {
					j++
				}
			}
			if j >= len(s) {
				return 0, errors.New("tabular: a string without its end")
			}
			i = j
		case '{', '(', '[':
			depth++
		case '}', ')', ']':
			if depth--; depth == 0 {
				return i + 1, nil
			}
		}
	}
	return 0, errors.New("tabular: a row without its end")
}

// pythonSequence returns the opening bracket of a dict, list or tuple
// display and its elements (a dict's are its entries); 0 for any other
// expression.
func pythonSequence(e syntax.Expr) (byte, []syntax.Expr) {
	switch e := e.(type) {
	case *syntax.DictExpr:
		return '{', e.List
	case *syntax.ListExpr:
		return '[', e.List
	case *syntax.ParenExpr:
		if t, ok := e.X.(*syntax.TupleExpr); ok {
			return '(', t.List
		}
	case *syntax.TupleExpr:
		if e.Lparen.IsValid() { // ()
			return '(', e.List
		}
	}
	return 0, nil
}

// pythonHexEscapes rewrites the \xhh escapes above \x7f, which Python's
// repr writes for the characters U+0080 to U+00FF that are not printable
// and Starlark refuses in a string, as the \u00hh Starlark reads the same.
// An escape is a backslash and what follows it, so that an escaped
// backslash is not read as the start of one.
func pythonHexEscapes(s string) string {
	if !strings.Contains(s, `\x`) {
		return s
	}
	return pythonEscape.ReplaceAllStringFunc(s, func(e string) string {
		if len(e) == 4 && e[1] == 'x' {
			return `\u00` + e[2:]
		}
		return e
	})
}

var pythonEscape = regexp.MustCompile(`(?s)\\(x[89a-f][0-9a-f]|.)`)

// appendPython appends the JSON of the Python value e: a row (row is true)
// may be a tuple; below it, only lists and dicts are.
func appendPython(dst []byte, e syntax.Expr, row bool) ([]byte, error) {
	switch e := e.(type) {
	case *syntax.Ident:
		switch e.Name {
		case "None":
			return append(dst, "null"...), nil
		case "True":
			return append(dst, "true"...), nil
		case "False":
			return append(dst, "false"...), nil
		}
	case *syntax.Literal:
		switch e.Token {
		case syntax.STRING:
			if err := checkStable(e.Value.(string)); err != nil {
				return nil, err
			}
			return rawjson.AppendQuote(dst, e.Value.(string)), nil
		case syntax.INT, syntax.FLOAT:
			return appendNumber(dst, "", e.Raw)
		}
	case *syntax.UnaryExpr:
		if lit, ok := e.X.(*syntax.Literal); ok && e.Op == syntax.MINUS && (lit.Token == syntax.INT || lit.Token == syntax.FLOAT) {
			return appendNumber(dst, "-", lit.Raw)
		}
	case *syntax.DictEntry: // of a dict display, below
		if key, ok := e.Key.(*syntax.Literal); !ok || key.Token != syntax.STRING {
			return nil, errors.New("tabular: a dict key that is not a string")
		}
		dst, err := appendPython(dst, e.Key, false)
		if err != nil {
			return nil, err
		}
		return appendPython(append(dst, ':'), e.Value, false)
	default:
		kind, elems := pythonSequence(e)
		if kind == '(' && row {
			kind = '['
		}
		if kind == '{' || kind == '[' {
			dst = append(dst, kind)
			for i, x := range elems {
				if i > 0 {
					dst = append(dst, ',')
				}
				var err error
				if dst, err = appendPython(dst, x, false); err != nil {
					return nil, err
				}
			}
			return append(dst, closer(kind)), nil
		}
	}
	return nil, fmt.Errorf("tabular: not a value: %T", e)
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

// appendNumber appends a Python number literal that is also a JSON one.
func appendNumber(dst []byte, sign, raw string) ([]byte, error) {
	n := len(dst)
	dst = append(append(dst, sign...), raw...)
	if v := jsontext.Value(dst[n:]); v.Kind() != '0' || !v.IsValid() {
		return nil, errors.New("tabular: a number JSON does not write so")
	}
	return dst, nil
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
