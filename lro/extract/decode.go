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
	utf8 bool              // the text is valid UTF-8
	// seq holds the keys of the last record in the order they came ("" for
	// a key with escapes); records often have the same keys in the same
	// order, so key nkey of a record is compared with seq[nkey] before it
	// is looked up in keys.
	seq  []string
	nkey int
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
	d.utf8 = utf8.Valid(data)
}

// decode decodes data, which must hold exactly one JSON value.
func (d *decoder) decode(data []byte) (any, error) {
	d.reset(data)
	d.nkey = 0
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
// accepts, without building it (see scan.go).
func (d *decoder) valid(data []byte) bool {
	end := skipValue(data, skipSpace(data, 0), 0)
	return end >= 0 && skipSpace(data, end) == len(data)
}

// project decodes data, if it is a valid JSON object, into a map of only
// the keys in fields (the last of duplicates, as decode does), which must be
// written without escapes: the values of the other keys are checked but not
// built (see scan.go). ok is false if data is not a valid object; decode
// then gives the value or the error. It leaves d.text empty: a projected
// record is never printed as written, and the few strings it keeps are
// copied rather than sliced from a copy of the line.
func (d *decoder) project(data []byte, fields []string) (m map[string]any, ok bool) {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return nil, false
	}
	m = make(map[string]any, len(fields))
	d.text = ""
	if i = skipSpace(data, i+1); i < len(data) && data[i] == '}' {
		return m, skipSpace(data, i+1) == len(data)
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return nil, false
		}
		end, escaped := skipString(data, i)
		if end < 0 {
			return nil, false
		}
		k := data[i+1 : end-1]
		if escaped {
			k, _ = jsontext.AppendUnquote(d.unq[:0], data[i:end])
			d.unq = k
		}
		if i = skipSpace(data, end); i >= len(data) || data[i] != ':' {
			return nil, false
		}
		i = skipSpace(data, i+1)
		if end = skipValue(data, i, 1); end < 0 {
			return nil, false
		}
		for _, f := range fields {
			if string(k) == f {
				d.reset(data[i:end])
				v, err := d.value()
				if err != nil {
					return nil, false
				}
				m[f] = v
			}
		}
		switch i = skipSpace(data, end); {
		case i >= len(data):
			return nil, false
		case data[i] == '}':
			return m, skipSpace(data, i+1) == len(data)
		case data[i] != ',':
			return nil, false
		}
		i = skipSpace(data, i+1)
	}
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
func (d *decoder) plain(raw []byte) ([]byte, bool) {
	s := raw[1 : len(raw)-1]
	return s, bytes.IndexByte(s, '\\') < 0 && (d.utf8 || utf8.Valid(s))
}

// key returns the object key raw, sharing the string with earlier records.
func (d *decoder) key(raw []byte) string {
	n := d.nkey
	d.nkey++
	s, ok := d.plain(raw)
	if !ok {
		d.remember(n, "") // matches only the empty key, which is plain
		return d.unquote(raw)
	}
	if n < len(d.seq) && d.seq[n] == string(s) {
		return d.seq[n]
	}
	k, found := d.keys[string(s)] // no allocation for the lookup
	if !found {
		k = string(s)
		if len(d.keys) < maxInterned && len(k) <= 64 {
			d.keys[k] = k
		}
	}
	d.remember(n, k)
	return k
}

// remember sets key n of the record in seq.
func (d *decoder) remember(n int, k string) {
	switch {
	case n < len(d.seq):
		d.seq[n] = k
	case n == len(d.seq) && n < maxSeq:
		d.seq = append(d.seq, k)
	}
}

// maxSeq bounds the keys remembered in decoder.seq.
const maxSeq = 256

// str returns the string value raw: a slice of d.text if it is written as
// is.
func (d *decoder) str(raw []byte) string {
	s, ok := d.plain(raw)
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
