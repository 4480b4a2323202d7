package extract

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// maxDepth is the deepest nesting of arrays and objects a record may have:
// the limit of jsontext (and of encoding/json). It keeps the decoder's
// recursion, and every recursive function of gojq that later walks a
// decoded record, far from the Go stack limit. TestDecodeDepthLimitIsInclusive
// checks that it is jsontext's.
const maxDepth = 10000

// errSyntax is wrapped by every error of the decoder.
var errSyntax = errors.New("invalid JSON")

// decodeOptions make jsontext accept what encoding/json and jq accept:
// duplicate keys (the last one wins) and invalid UTF-8 in strings (which
// becomes U+FFFD).
var decodeOptions = []jsontext.Options{jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true)}

// decoder turns one JSON text into the values gojq works on: nil, bool, int
// (integers that fit), float64 (other numbers), string, []any and
// map[string]any. A decoder is reused for the records of one call, and is
// not safe for concurrent use.
//
// jsontext reads and checks the text; the values are built here rather than
// by unmarshaling into any, because decoding is most of the cost of a query:
// gojq wants ints where it can have them (encoding/json would give float64s
// to convert in a second pass), the records of a file share their keys, and
// the strings of a record share one copy of its text.
type decoder struct {
	dec  jsontext.Decoder
	in   bytes.Buffer      // the text being decoded: jsontext reads it in place
	text string            // the text as one string: plain string values are slices of it
	keys map[string]string // interned object keys, shared across records
	hint int               // number of keys of the last top-level object
	unq  []byte            // scratch for unquoting strings with escapes
}

// maxInterned bounds the key table, so that records with ever-new keys cannot
// grow it without limit.
const maxInterned = 4096

func newDecoder() *decoder { return &decoder{keys: make(map[string]string, 64)} }

// reset starts reading data, which the decoder must not keep once text is
// set.
func (d *decoder) reset(data []byte) {
	d.in = *bytes.NewBuffer(data)
	d.dec.Reset(&d.in, decodeOptions...)
}

// decode decodes data, which must hold exactly one JSON value.
func (d *decoder) decode(data []byte) (any, error) {
	d.reset(data)
	// One copy of the whole text: every string value without escapes is then
	// a slice of it, which saves an allocation and a copy per string.
	d.text = string(data)
	v, err := d.value()
	if err == nil {
		err = d.end()
	}
	if err != nil {
		return nil, d.syntaxError(err)
	}
	return v, nil
}

// valid reports whether data holds exactly one JSON value that decode
// accepts, without building it.
func (d *decoder) valid(data []byte) bool {
	d.reset(data)
	// ReadValue checks a whole value in one pass, twice as fast as
	// SkipValue, which reads it token by token (measured on the records of
	// BenchmarkRecipeVsJQ); it copies nothing, the input being in memory.
	_, err := d.dec.ReadValue()
	return err == nil && d.end() == nil
}

// project decodes data, if it is a valid JSON object, into a map of only
// the keys in fields (the last of duplicates, as decode does): the values
// of the other keys are checked but not built. ok is false if data is not
// a valid object; decode then gives the value or the error. It leaves
// d.text empty: a projected record is never printed as written, and the few
// strings it keeps are copied rather than sliced from a copy of the line.
func (d *decoder) project(data []byte, fields []string) (m map[string]any, ok bool) {
	d.reset(data)
	d.text = ""
	if d.dec.PeekKind() != '{' {
		return nil, false
	}
	if _, err := d.dec.ReadToken(); err != nil {
		return nil, false
	}
	m = make(map[string]any, len(fields))
	for d.dec.PeekKind() != '}' {
		raw, err := d.dec.ReadValue()
		if err != nil {
			return nil, false
		}
		if i := d.fieldIndex(raw, fields); i >= 0 {
			v, err := d.value()
			if err != nil {
				return nil, false
			}
			m[fields[i]] = v
		} else if _, err := d.dec.ReadValue(); err != nil {
			return nil, false
		}
	}
	if _, err := d.dec.ReadToken(); err != nil {
		return nil, false
	}
	return m, d.end() == nil
}

// fieldIndex returns the index in fields of the quoted object key raw, or
// -1. It compares the key's bytes: project needs no string of a key.
func (d *decoder) fieldIndex(raw []byte, fields []string) int {
	k, ok := plain(raw)
	if !ok {
		k, _ = jsontext.AppendUnquote(d.unq[:0], raw)
		d.unq = k
	}
	for i, f := range fields {
		if string(k) == f {
			return i
		}
	}
	return -1
}

// end checks that only white space follows the value read.
func (d *decoder) end() error {
	switch _, err := d.dec.ReadToken(); err {
	case io.EOF:
		return nil
	case nil:
		return fmt.Errorf("unexpected data after the value, at byte %d", d.dec.InputOffset())
	default:
		return err
	}
}

// syntaxError turns an error of jsontext into one that wraps errSyntax.
func (d *decoder) syntaxError(err error) error {
	if err == io.EOF {
		return fmt.Errorf("%w: unexpected end of input", errSyntax)
	}
	return fmt.Errorf("%w: %s", errSyntax, strings.TrimPrefix(err.Error(), "jsontext: "))
}

func (d *decoder) value() (any, error) {
	switch d.dec.PeekKind() {
	case '{':
		return d.object()
	case '[':
		return d.array()
	}
	raw, err := d.dec.ReadValue()
	if err != nil {
		return nil, err
	}
	switch raw.Kind() {
	case 'n':
		return nil, nil
	case 'f':
		return false, nil
	case 't':
		return true, nil
	case '"':
		return d.str(raw), nil
	}
	return parseNumber(raw), nil
}

func (d *decoder) object() (any, error) {
	top := d.dec.StackDepth() == 0
	if _, err := d.dec.ReadToken(); err != nil {
		return nil, err
	}
	var m map[string]any
	if top {
		m = make(map[string]any, d.hint)
	} else {
		m = make(map[string]any)
	}
	for d.dec.PeekKind() != '}' {
		raw, err := d.dec.ReadValue()
		if err != nil {
			return nil, err
		}
		k := d.key(raw)
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		m[k] = v
	}
	if _, err := d.dec.ReadToken(); err != nil {
		return nil, err
	}
	if top {
		d.hint = len(m)
	}
	return m, nil
}

func (d *decoder) array() (any, error) {
	if _, err := d.dec.ReadToken(); err != nil {
		return nil, err
	}
	a := make([]any, 0, 4)
	for d.dec.PeekKind() != ']' {
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		a = append(a, v)
	}
	if _, err := d.dec.ReadToken(); err != nil {
		return nil, err
	}
	return a, nil
}

// plain returns the text of the quoted string raw when it is written as is:
// no escape, and valid UTF-8 (jsontext has checked the rest).
func plain(raw []byte) ([]byte, bool) {
	s := raw[1 : len(raw)-1]
	return s, bytes.IndexByte(s, '\\') < 0 && utf8.Valid(s)
}

// key returns the object key raw, sharing the string with earlier records.
func (d *decoder) key(raw []byte) string {
	s, ok := plain(raw)
	if !ok {
		return d.unquote(raw)
	}
	if k, ok := d.keys[string(s)]; ok { // no allocation for the lookup
		return k
	}
	k := string(s)
	if len(d.keys) < maxInterned && len(k) <= 64 {
		d.keys[k] = k
	}
	return k
}

// str returns the string value raw: a slice of d.text if it is written as
// is.
func (d *decoder) str(raw []byte) string {
	s, ok := plain(raw)
	switch {
	case !ok:
		return d.unquote(raw)
	case d.text == "":
		return string(s)
	}
	end := int(d.dec.InputOffset()) - 1 // the closing quote
	return d.text[end-len(s) : end]
}

// unquote decodes a string with escapes or invalid UTF-8: an unpaired
// surrogate escape or an invalid byte becomes U+FFFD, as with encoding/json
// and jq (AppendUnquote reports them with an error, which is not one here).
func (d *decoder) unquote(raw []byte) string {
	d.unq, _ = jsontext.AppendUnquote(d.unq[:0], raw)
	return string(d.unq)
}

// parseNumber decodes a JSON number: an int when it is an integer literal that
// fits, else a float64 (as jq 1.6, which keeps every number as a double).
func parseNumber(raw []byte) any {
	if len(raw) <= 18 && bytes.IndexAny(raw, ".eE") < 0 && string(raw) != "-0" {
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
