package extract

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zircote/lro-go/internal/rawjson"
)

// maxDepth is the deepest nesting of arrays and objects a record may have,
// as with encoding/json: far from the Go stack limit for gojq too.
const maxDepth = rawjson.MaxDepth

// errSyntax is wrapped by every error of the decoder.
var errSyntax = errors.New("invalid JSON")

// decoder turns one JSON text into the values gojq works on (int for the
// integers that fit), with the Skip functions of internal/rawjson, for
// speed (a decoder on jsontext is several times slower): records share
// their keys, the strings of a record one copy of its text. It is reused
// for the records of a call.
type decoder struct {
	text string            // the text as one string: plain string values are slices of it
	keys map[string]string // interned object keys, shared across records, at most maxInterned
	hint int               // number of keys of the last top-level object
	unq  []byte            // scratch for unquoting strings with escapes
	only []string          // while projecting: the keys of the top-level object to build
	// literal keeps an integer too long for an int as its text, a
	// numberText (lro_search matches it as written), not a float64.
	literal bool
}

const maxInterned = 4096

func newDecoder() *decoder { return &decoder{keys: make(map[string]string, 64)} }

// decode decodes data, which must hold exactly one JSON value.
func (d *decoder) decode(data []byte) (any, error) {
	// Every string value without escapes is a slice of one copy of the text.
	d.text = string(data)
	v, end := d.walk(data, rawjson.SkipSpace(data, 0), 0, true)
	if end < 0 || rawjson.SkipSpace(data, end) != len(data) {
		return nil, syntaxError(data)
	}
	return v, nil
}

// valid reports whether data holds exactly one JSON value that decode
// accepts, without building it.
func (d *decoder) valid(data []byte) bool {
	_, end := d.walk(data, rawjson.SkipSpace(data, 0), 0, false)
	return end >= 0 && rawjson.SkipSpace(data, end) == len(data)
}

// project decodes data, if it is a valid JSON object, into a map of only
// the keys in fields: the values of the other keys are checked but not
// built. ok is false if data is not a valid object, or fields is nil.
func (d *decoder) project(data []byte, fields []string) (m map[string]any, ok bool) {
	i := rawjson.SkipSpace(data, 0)
	if fields == nil || i >= len(data) || data[i] != '{' {
		return nil, false
	}
	d.text, d.only = "", fields
	v, end := d.container(data, i, 1, true)
	d.only = nil
	if end < 0 || rawjson.SkipSpace(data, end) != len(data) {
		return nil, false
	}
	return v.(map[string]any), true
}

// walk reads the JSON value at data[i], inside depth open arrays and
// objects, and returns it (with keep) and the offset past it, or a negative.
func (d *decoder) walk(data []byte, i, depth int, keep bool) (any, int) {
	if i >= len(data) {
		return nil, -1
	}
	switch data[i] {
	case '{', '[':
		return d.container(data, i, depth+1, keep)
	case '"':
		end, plain := rawjson.SkipString(data, i)
		if end < 0 || !keep {
			return nil, end
		}
		return d.str(data, i, end, plain), end
	case 't':
		return true, rawjson.SkipLiteral(data, i, "true")
	case 'f':
		return false, rawjson.SkipLiteral(data, i, "false")
	case 'n':
		return nil, rawjson.SkipLiteral(data, i, "null")
	}
	end, _ := rawjson.SkipNumber(data, i)
	if end < 0 || !keep {
		return nil, end
	}
	if raw := data[i:end]; d.literal && len(raw) > 18 && !bytes.ContainsAny(raw, ".eE") {
		return numberText(raw), end
	}
	return parseNumber(data[i:end]), end
}

// container is walk for the object or array at data[i], at level depth.
func (d *decoder) container(data []byte, i, depth int, keep bool) (any, int) {
	if depth > maxDepth {
		return nil, -1
	}
	object, end := data[i] == '{', data[i]+2 // '}' or ']'
	var m map[string]any
	var a []any
	switch {
	case !keep:
	case !object:
		a = make([]any, 0, 4)
	case depth == 1:
		m = make(map[string]any, d.hint)
	default:
		m = make(map[string]any)
	}
	done := func(i int) (any, int) {
		switch {
		case !keep:
			return nil, i
		case !object:
			return a, i
		case depth == 1 && d.only == nil:
			d.hint = len(m)
		}
		return m, i
	}
	if i = rawjson.SkipSpace(data, i+1); i < len(data) && data[i] == end {
		return done(i + 1)
	}
	for {
		var k string
		if object {
			if i >= len(data) || data[i] != '"' {
				return nil, -1
			}
			var e int
			if keep {
				k, e = d.key(data, i)
			} else {
				e, _ = rawjson.SkipString(data, i)
			}
			if e < 0 {
				return nil, -1
			}
			if i = rawjson.SkipSpace(data, e); i >= len(data) || data[i] != ':' {
				return nil, -1
			}
			i = rawjson.SkipSpace(data, i+1)
		}
		keepV := keep && (d.only == nil || depth > 1 || slices.Contains(d.only, k))
		v, e := d.walk(data, i, depth, keepV)
		if e < 0 {
			return nil, -1
		}
		switch {
		case !keepV:
		case object:
			m[k] = v
		default:
			a = append(a, v)
		}
		switch i = rawjson.SkipSpace(data, e); {
		case i >= len(data):
			return nil, -1
		case data[i] == end:
			return done(i + 1)
		case data[i] != ',':
			return nil, -1
		}
		i = rawjson.SkipSpace(data, i+1)
	}
}

// key reads the object key at data[i] (a quote) and returns it, sharing
// the string with earlier records, and the offset past it, or -1.
func (d *decoder) key(data []byte, i int) (string, int) {
	end, plain := rawjson.SkipString(data, i)
	if end < 0 {
		return "", -1
	}
	if !plain && !asWritten(data[i+1:end-1]) {
		return d.unquote(data[i:end]), end
	}
	s := data[i+1 : end-1]
	k, found := d.keys[string(s)] // no allocation for the lookup
	if !found {
		k = string(s)
		if len(d.keys) < maxInterned && len(k) <= 64 {
			d.keys[k] = k
		}
	}
	return k, end
}

// str returns the string value data[start:end] (quotes included), plain as
// rawjson.SkipString says: a slice of d.text if it is written as is.
func (d *decoder) str(data []byte, start, end int, plain bool) string {
	switch {
	case !plain && !asWritten(data[start+1:end-1]):
		return d.unquote(data[start:end])
	case d.text == "":
		return string(data[start+1 : end-1])
	}
	return d.text[start+1 : end-1]
}

// asWritten reports whether the text s of a string is the string: it has
// no escape and is valid UTF-8.
func asWritten(s []byte) bool { return bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s) }

// unquote decodes a string with escapes or invalid UTF-8, which becomes
// U+FFFD as with encoding/json and jq (not an error here).
func (d *decoder) unquote(raw []byte) string {
	d.unq, _ = jsontext.AppendUnquote(d.unq[:0], raw)
	return string(d.unq)
}

// parseNumber decodes a JSON number: an int when it is an integer literal
// that fits, else a float64 (as jq 1.6).
func parseNumber(raw []byte) any {
	if len(raw) <= 18 && !bytes.ContainsAny(raw, ".eE") && string(raw) != "-0" {
		n, _ := strconv.Atoi(string(raw))
		return n
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil {
		// Out of range: jq clamps to the largest double, keeping the sign.
		f = math.Copysign(math.MaxFloat64, f)
	}
	return f
}

// syntaxError explains why data is not one JSON value, in jsontext's words.
func syntaxError(data []byte) error {
	// Accepting what the decoder accepts: duplicate keys and invalid UTF-8.
	dec := jsontext.NewDecoder(bytes.NewReader(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	_, err := dec.ReadValue()
	switch {
	case err == io.EOF:
		return fmt.Errorf("%w: unexpected end of input", errSyntax)
	case err == nil:
		if _, err = dec.ReadToken(); err == nil {
			return fmt.Errorf("%w: unexpected data after the value, at byte %d", errSyntax, dec.InputOffset())
		}
	}
	return fmt.Errorf("%w: %s", errSyntax, strings.TrimPrefix(err.Error(), "jsontext: "))
}
