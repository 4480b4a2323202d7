// Package jsonscan validates JSON, giving exactly the answer of
// encoding/json several times faster ([Valid] and the primitives [ValidValue], [ValidString] and [ValidNumber]), and walks the
// top level of a JSON document without decoding it: the elements of an array
// and the fields of an object, each as a slice of the input, with no copy.
//
// It is written by hand because offloading needs byte-exact, zero-copy slices
// of the records (string values with their quotes, numbers as written), which
// encoding/json's Decoder (it copies every RawMessage) and the popular
// streaming parsers (they strip quotes from strings) do not give. The scanner
// trusts its input to be valid JSON: callers check with [Valid] (or validate
// as they walk, as package descriptor's Inferrer does) first. On invalid input it
// returns [ErrSyntax] or garbage slices, never panics.
package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
)

// ErrSyntax is returned when the input is not the kind of JSON value asked
// for, or is cut short.
var ErrSyntax = errors.New("jsonscan: syntax error")

// Kind returns the first non-space byte of data: '{', '[', '"', 't', 'f',
// 'n', a digit or '-'; or 0 for empty or blank data.
func Kind(data []byte) byte {
	i := skipSpace(data, 0)
	if i >= len(data) {
		return 0
	}
	return data[i]
}

// Elements calls fn with each element of the JSON array data, in order.
// It stops at and returns the first error of fn.
func Elements(data []byte, fn func(elem []byte) error) error {
	_, _, err := elements(data, fn)
	return err
}

// ArraySpan returns the offsets of the first '[' and one past the closing
// ']' of the array data, so callers can splice a shortened array back.
func ArraySpan(data []byte) (start, end int, err error) {
	return elements(data, func([]byte) error { return nil })
}

func elements(data []byte, fn func(elem []byte) error) (start, end int, err error) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '[' {
		return 0, 0, ErrSyntax
	}
	start = i
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == ']' {
		return start, i + 1, nil
	}
	for {
		e, err := skipValue(data, i)
		if err != nil {
			return 0, 0, err
		}
		if err := fn(data[i:e]); err != nil {
			return 0, 0, err
		}
		i = skipSpace(data, e)
		if i >= len(data) {
			return 0, 0, ErrSyntax
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case ']':
			return start, i + 1, nil
		default:
			return 0, 0, ErrSyntax
		}
	}
}

// Field is one member of a JSON object.
type Field struct {
	Key        []byte // the key without its quotes, escape sequences decoded
	Value      []byte // the value as written
	ValueStart int    // offset of Value in the object's data
}

// Fields calls fn with each member of the JSON object data, in order. It
// stops at and returns the first error of fn. Keys with escape sequences are
// unescaped (and then copied).
func Fields(data []byte, fn func(f Field) error) error {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return ErrSyntax
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return nil
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return ErrSyntax
		}
		ke, err := skipString(data, i)
		if err != nil {
			return err
		}
		key := data[i+1 : ke-1]
		if bytes.IndexByte(key, '\\') >= 0 {
			var s string
			if err := json.Unmarshal(data[i:ke], &s); err != nil {
				return ErrSyntax
			}
			key = []byte(s)
		}
		i = skipSpace(data, ke)
		if i >= len(data) || data[i] != ':' {
			return ErrSyntax
		}
		i = skipSpace(data, i+1)
		ve, err := skipValue(data, i)
		if err != nil {
			return err
		}
		if err := fn(Field{Key: key, Value: data[i:ve], ValueStart: i}); err != nil {
			return err
		}
		i = skipSpace(data, ve)
		if i >= len(data) {
			return ErrSyntax
		}
		switch data[i] {
		case ',':
			i = skipSpace(data, i+1)
		case '}':
			return nil
		default:
			return ErrSyntax
		}
	}
}

// Lookup returns the value of the top-level member key of the JSON object
// data, or nil when data is not an object or has no such member.
func Lookup(data []byte, key string) []byte {
	var found []byte
	stop := errors.New("found")
	_ = Fields(data, func(f Field) error {
		if string(f.Key) == key {
			found = f.Value
			return stop
		}
		return nil
	})
	return found
}

// SkipSpace returns the offset of the first byte at or after i that is not
// JSON white space, or len(data).
func SkipSpace(data []byte, i int) int { return skipSpace(data, i) }

// SkipValue returns the offset just past the JSON value that starts at
// data[i], trusting it to be valid. It returns [ErrSyntax] when no value can
// be found there.
func SkipValue(data []byte, i int) (int, error) { return skipValue(data, i) }

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipValue returns the offset just past the value starting at i.
func skipValue(data []byte, i int) (int, error) {
	if i >= len(data) {
		return 0, ErrSyntax
	}
	switch c := data[i]; c {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for i < len(data) {
			switch data[i] {
			case '"':
				e, err := skipString(data, i)
				if err != nil {
					return 0, err
				}
				i = e
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, nil
				}
			}
			i++
		}
		return 0, ErrSyntax
	default:
		start := i
		for i < len(data) {
			switch data[i] {
			case ',', '}', ']', ' ', '\t', '\n', '\r':
				if i == start {
					return 0, ErrSyntax
				}
				return i, nil
			}
			i++
		}
		if i == start {
			return 0, ErrSyntax
		}
		return i, nil
	}
}

// skipString returns the offset just past the string starting at data[i]=='"'.
// It jumps from quote to quote with bytes.IndexByte (vectorized), and treats
// a quote as escaped when an odd number of backslashes precede it.
func skipString(data []byte, i int) (int, error) {
	i++
	for {
		j := bytes.IndexByte(data[i:], '"')
		if j < 0 {
			return 0, ErrSyntax
		}
		q := i + j
		backslashes := 0
		for k := q - 1; k >= i && data[k] == '\\'; k-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return q + 1, nil
		}
		i = q + 1
	}
}
