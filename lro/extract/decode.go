package extract

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/zircote/lro-go/internal/jsonscan"
)

// maxDepth is the deepest nesting of arrays and objects the decoder accepts,
// the same bound as encoding/json's. It keeps the decoder's recursion, and
// every recursive function of gojq that later walks a decoded record, far
// from the Go stack limit.
const maxDepth = 10000

// errSyntax is wrapped by every error of the decoder.
var errSyntax = errors.New("invalid JSON")

// decoder turns one JSON text into the values gojq works on: nil, bool, int
// (integers that fit), float64 (other numbers), string, []any and
// map[string]any.
//
// It is written by hand because decoding dominates the cost of a query:
// encoding/json decodes into interface values at ~60 MB/s and its numbers
// must then be converted for gojq in a second pass, while this decoder makes
// gojq's values directly, shares the key strings of all records, and runs
// several times faster. It accepts exactly RFC 8259 JSON (one value, optional
// surrounding white space); invalid UTF-8 in strings becomes U+FFFD, as with
// encoding/json and jq.
type decoder struct {
	data  []byte
	text  string // data as one string: plain string values are slices of it
	pos   int
	depth int
	keys  map[string]string // interned object keys, shared across records
	hint  int               // number of keys of the last top-level object
	// seq holds the keys of the last record in the order they came, plain
	// ones only ("" for others); records often have the same keys in the
	// same order, so key number nkey of this record is checked against
	// seq[nkey] first, which costs a comparison instead of a scan and a
	// hash.
	seq  []string
	nkey int
	// copy: strings are copied from data one by one, and text is empty
	// (project, which needs a few strings of the line, not all of it).
	copy bool
}

// maxInterned bounds the key table, so that records with ever-new keys cannot
// grow it without limit.
const maxInterned = 4096

func newDecoder() *decoder { return &decoder{keys: make(map[string]string, 64)} }

// decode decodes data, which must hold exactly one JSON value.
func (d *decoder) decode(data []byte) (any, error) {
	d.data, d.pos, d.depth, d.copy, d.nkey = data, 0, 0, false, 0
	// One copy of the whole text: every string value without escapes is then
	// a slice of it, which saves an allocation and a copy per string.
	d.text = string(data)
	d.space()
	v, err := d.value()
	if err != nil {
		return nil, err
	}
	d.space()
	if d.pos != len(d.data) {
		return nil, d.errorf("unexpected %s after the value", d.describe())
	}
	return v, nil
}

func (d *decoder) errorf(format string, args ...any) error {
	return fmt.Errorf("%w at byte %d: %s", errSyntax, d.pos+1, fmt.Sprintf(format, args...))
}

// describe names the byte at the current position for an error message.
func (d *decoder) describe() string {
	if d.pos >= len(d.data) {
		return "end of input"
	}
	c := d.data[d.pos]
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return fmt.Sprintf("byte 0x%02x", c)
}

func (d *decoder) space() {
	for d.pos < len(d.data) {
		switch d.data[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *decoder) value() (any, error) {
	if d.pos >= len(d.data) {
		return nil, d.errorf("unexpected end of input")
	}
	switch c := d.data[d.pos]; c {
	case '{':
		return d.object()
	case '[':
		return d.array()
	case '"':
		return d.str()
	case 't':
		return true, d.literal("true")
	case 'f':
		return false, d.literal("false")
	case 'n':
		return nil, d.literal("null")
	default:
		if c == '-' || c >= '0' && c <= '9' {
			return d.number()
		}
		return nil, d.errorf("unexpected %s", d.describe())
	}
}

func (d *decoder) literal(word string) error {
	if len(d.data)-d.pos < len(word) || string(d.data[d.pos:d.pos+len(word)]) != word {
		return d.errorf("invalid literal, want %s", word)
	}
	d.pos += len(word)
	return nil
}

func (d *decoder) enter() error {
	if d.depth++; d.depth > maxDepth {
		return d.errorf("nested deeper than %d levels", maxDepth)
	}
	return nil
}

func (d *decoder) object() (any, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	d.pos++ // '{'
	var m map[string]any
	top := d.depth == 1
	if top {
		m = make(map[string]any, d.hint)
	} else {
		m = make(map[string]any)
	}
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		d.depth--
		return m, nil
	}
	for {
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, d.errorf("unexpected %s, want an object key", d.describe())
		}
		k, err := d.key()
		if err != nil {
			return nil, err
		}
		d.space()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, d.errorf("unexpected %s, want ':'", d.describe())
		}
		d.pos++
		d.space()
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		m[k] = v
		d.space()
		if d.pos >= len(d.data) {
			return nil, d.errorf("unexpected end of input in an object")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
			d.space()
		case '}':
			d.pos++
			d.depth--
			if top {
				d.hint = len(m)
			}
			return m, nil
		default:
			return nil, d.errorf("unexpected %s, want ',' or '}'", d.describe())
		}
	}
}

func (d *decoder) array() (any, error) {
	if err := d.enter(); err != nil {
		return nil, err
	}
	d.pos++ // '['
	a := make([]any, 0, 4)
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == ']' {
		d.pos++
		d.depth--
		return a, nil
	}
	for {
		v, err := d.value()
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		d.space()
		if d.pos >= len(d.data) {
			return nil, d.errorf("unexpected end of input in an array")
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
			d.space()
		case ']':
			d.pos++
			d.depth--
			return a, nil
		default:
			return nil, d.errorf("unexpected %s, want ',' or ']'", d.describe())
		}
	}
}

// maxSeq bounds the keys remembered in decoder.seq.
const maxSeq = 256

// key decodes an object key, sharing the string with earlier records.
func (d *decoder) key() (string, error) {
	start := d.pos + 1
	n := d.nkey
	d.nkey++
	if n < len(d.seq) {
		// A key of seq is plain: no quote, backslash or control character,
		// valid UTF-8. If the text here is that key and a quote, the
		// string is that key.
		k := d.seq[n]
		if end := start + len(k); end < len(d.data) && d.data[end] == '"' && string(d.data[start:end]) == k {
			d.pos = end + 1
			return k, nil
		}
	}
	k, plain, err := d.newKey(start)
	if err != nil {
		return "", err
	}
	remembered := k
	if !plain {
		remembered = "" // matches only the empty key, which is plain
	}
	switch {
	case n < len(d.seq):
		d.seq[n] = remembered
	case n == len(d.seq) && n < maxSeq:
		d.seq = append(d.seq, remembered)
	}
	return k, nil
}

// newKey decodes a key that is not the one seq expects. plain reports
// whether the key is written without escapes, and valid UTF-8.
func (d *decoder) newKey(start int) (k string, plain bool, err error) {
	if end, ok := d.plainString(start); ok {
		d.pos = end + 1
		raw := d.data[start:end]
		if k, ok := d.keys[string(raw)]; ok { // no allocation for the lookup
			return k, true, nil
		}
		k := string(raw)
		if len(d.keys) < maxInterned && len(k) <= 64 {
			d.keys[k] = k
		}
		return k, true, nil
	}
	k, err = d.slowString()
	return k, false, err
}

func (d *decoder) str() (any, error) {
	start := d.pos + 1
	if end, ok := d.plainString(start); ok {
		d.pos = end + 1
		return d.textOf(start, end), nil
	}
	return d.slowString()
}

// plainString scans a string from start (just past the opening quote) and
// returns the index of the closing quote when the string has no escape, no
// control character and only ASCII or valid UTF-8, so it can be used as is.
// It finds the quote with bytes.IndexByte and checks the bytes before it
// eight at a time.
func (d *decoder) plainString(start int) (int, bool) {
	rest := d.data[start:]
	q := bytes.IndexByte(rest, '"')
	if q < 0 {
		return 0, false
	}
	seg := rest[:q]
	if bytes.IndexByte(seg, '\\') >= 0 {
		return 0, false
	}
	const (
		lo = 0x0101010101010101
		hi = 0x8080808080808080
	)
	ascii := true
	i := 0
	for ; i+8 <= len(seg); i += 8 {
		x := binary.LittleEndian.Uint64(seg[i:])
		if x&hi != 0 {
			ascii = false
		}
		// A byte below 0x20 has its high bit set after subtracting 0x20
		// while its own high bit was clear.
		if (x-0x20*lo)&^x&hi != 0 {
			return 0, false
		}
	}
	for ; i < len(seg); i++ {
		c := seg[i]
		if c < 0x20 {
			return 0, false
		}
		if c >= 0x80 {
			ascii = false
		}
	}
	if !ascii && !utf8.Valid(seg) {
		return 0, false
	}
	return start + q, true
}

// textOf returns data[start:end] as a string: a slice of text, without a
// copy, unless d.copy.
func (d *decoder) textOf(start, end int) string {
	if d.copy {
		return string(d.data[start:end])
	}
	return d.text[start:end]
}

// slowString decodes a string with escapes or invalid UTF-8, from d.pos at
// the opening quote.
func (d *decoder) slowString() (string, error) {
	d.pos++ // opening quote
	buf := make([]byte, 0, 64)
	for {
		if d.pos >= len(d.data) {
			return "", d.errorf("unexpected end of input in a string")
		}
		c := d.data[d.pos]
		switch {
		case c == '"':
			d.pos++
			return string(buf), nil
		case c < 0x20:
			return "", d.errorf("control character 0x%02x in a string", c)
		case c == '\\':
			if d.pos+1 >= len(d.data) {
				return "", d.errorf("unexpected end of input in a string")
			}
			e := d.data[d.pos+1]
			d.pos += 2
			switch e {
			case '"', '\\', '/':
				buf = append(buf, e)
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				r, ok := d.hex4()
				if !ok {
					return "", d.errorf("invalid \\u escape")
				}
				if utf16.IsSurrogate(r) {
					r = d.lowSurrogate(r)
				}
				buf = utf8.AppendRune(buf, r)
			default:
				d.pos--
				return "", d.errorf("invalid escape \\%c", e)
			}
		case c < 0x80:
			buf = append(buf, c)
			d.pos++
		default:
			r, size := utf8.DecodeRune(d.data[d.pos:])
			if r == utf8.RuneError && size == 1 {
				buf = utf8.AppendRune(buf, utf8.RuneError)
			} else {
				buf = append(buf, d.data[d.pos:d.pos+size]...)
			}
			d.pos += size
		}
	}
}

// hex4 reads the four hex digits of a \u escape.
func (d *decoder) hex4() (rune, bool) {
	if len(d.data)-d.pos < 4 {
		return 0, false
	}
	var r rune
	for _, c := range d.data[d.pos : d.pos+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	d.pos += 4
	return r, true
}

// lowSurrogate completes the surrogate pair that starts with hi, or returns
// U+FFFD for an unpaired surrogate, as encoding/json does.
func (d *decoder) lowSurrogate(hi rune) rune {
	save := d.pos
	if len(d.data)-d.pos >= 6 && d.data[d.pos] == '\\' && d.data[d.pos+1] == 'u' {
		d.pos += 2
		if lo, ok := d.hex4(); ok {
			if r := utf16.DecodeRune(hi, lo); r != utf8.RuneError {
				return r
			}
		}
	}
	d.pos = save
	return utf8.RuneError
}

// number decodes a JSON number: an int when it is an integer literal that
// fits, else a float64 (as jq 1.6, which keeps every number as a double).
func (d *decoder) number() (any, error) {
	start := d.pos
	end, integer, msg := scanNumber(d.data, start)
	if msg != "" {
		d.pos = end
		return nil, d.errorf("%s", msg)
	}
	d.pos = end
	lit := d.data[start:end]
	if integer && len(lit) <= 18 && !(len(lit) == 2 && lit[0] == '-' && lit[1] == '0') {
		n := 0
		neg := lit[0] == '-'
		digits := lit
		if neg {
			digits = lit[1:]
		}
		for _, c := range digits {
			n = n*10 + int(c-'0')
		}
		if neg {
			n = -n
		}
		return n, nil
	}
	f, err := strconv.ParseFloat(d.textOf(start, end), 64)
	if err != nil {
		// Out of range: jq clamps to the largest double, keeping the sign.
		f = math.Copysign(math.MaxFloat64, f)
	}
	return f, nil
}

// scanNumber scans the JSON number that starts at data[i] (a '-' or a
// digit) and returns the index just past it and whether it is an integer
// literal (no fraction, no exponent). For an invalid number, msg says why
// and end is where it fails.
func scanNumber(data []byte, i int) (end int, integer bool, msg string) {
	if data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && data[i] >= '1' && data[i] <= '9':
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
	default:
		return i, false, "invalid number"
	}
	integer = true
	if i < len(data) && data[i] == '.' {
		integer = false
		i++
		if i >= len(data) || data[i] < '0' || data[i] > '9' {
			return i, false, "invalid number: no digit after '.'"
		}
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		integer = false
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i >= len(data) || data[i] < '0' || data[i] > '9' {
			return i, false, "invalid number: no digit in the exponent"
		}
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
	}
	return i, integer, ""
}

// The functions below check JSON text without building its value, for the
// records a recipe's plan (see plan.go) does not need whole. They accept
// exactly what value accepts, nesting limit included, and report only
// whether the text is valid: on false, the caller decodes the record in
// full, which fails with the decoder's own message.

// valid reports whether data holds exactly one JSON value that decode
// accepts.
func (d *decoder) valid(data []byte) bool {
	d.data, d.pos, d.depth = data, 0, 0
	d.space()
	if !d.skip() {
		return false
	}
	d.space()
	return d.pos == len(d.data)
}

// skip moves past the value at d.pos, checking it with the validator that
// offloading uses (exactly encoding/json's grammar and nesting limit).
func (d *decoder) skip() bool {
	end, _ := jsonscan.ValidValue(d.data, d.pos, d.depth)
	if end < 0 {
		return false
	}
	d.pos = end
	return true
}

// project decodes data, if it is a valid JSON object, into a map of only
// the keys in fields (the last of duplicates, as decode does): the values
// of the other keys are checked but not built. ok is false if data is not
// a valid object; decode then gives the value or the error. It leaves
// d.text empty: a projected record is never printed as written.
func (d *decoder) project(data []byte, fields []string) (m map[string]any, ok bool) {
	d.data, d.pos, d.depth, d.nkey = data, 0, 0, 0
	d.space()
	if d.pos >= len(d.data) || d.data[d.pos] != '{' {
		return nil, false
	}
	// The few strings kept are copied, not sliced from a copy of the line.
	d.text, d.copy = "", true
	d.depth = 1
	d.pos++
	m = make(map[string]any, len(fields))
	d.space()
	if d.pos < len(d.data) && d.data[d.pos] == '}' {
		d.pos++
		return m, d.end()
	}
	for {
		if d.pos >= len(d.data) || d.data[d.pos] != '"' {
			return nil, false
		}
		want := -1
		start := d.pos + 1
		if end, plain := d.plainString(start); plain {
			raw := d.data[start:end]
			for i, f := range fields {
				if string(raw) == f {
					want = i
					break
				}
			}
			d.pos = end + 1
		} else {
			k, err := d.slowString()
			if err != nil {
				return nil, false
			}
			for i, f := range fields {
				if k == f {
					want = i
					break
				}
			}
		}
		d.space()
		if d.pos >= len(d.data) || d.data[d.pos] != ':' {
			return nil, false
		}
		d.pos++
		d.space()
		if want >= 0 {
			v, err := d.value()
			if err != nil {
				return nil, false
			}
			m[fields[want]] = v
		} else if !d.skip() {
			return nil, false
		}
		d.space()
		if d.pos >= len(d.data) {
			return nil, false
		}
		switch d.data[d.pos] {
		case ',':
			d.pos++
			d.space()
		case '}':
			d.pos++
			return m, d.end()
		default:
			return nil, false
		}
	}
}

// end reports whether only white space follows d.pos.
func (d *decoder) end() bool {
	d.space()
	return d.pos == len(d.data)
}
