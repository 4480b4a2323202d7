package extract

import (
	"errors"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/itchyny/gojq"
)

// Errors of the encoder.
var (
	errTooLarge = errors.New("too large")
	errTooDeep  = errors.New("too deeply nested")
)

// encoder appends the compact JSON text of gojq values to buf as jq prints
// them. Unlike gojq.Marshal, it stops with errTooLarge as soon as buf
// passes limit (a value of exponential size built in a few steps costs at
// most limit bytes of work), and with errTooDeep below maxDepth levels.
type encoder struct {
	buf   []byte
	limit int
	depth int
	keys  []string
}

func (e *encoder) encode(v any) error {
	switch v := v.(type) {
	case nil:
		e.buf = append(e.buf, "null"...)
	case bool:
		e.buf = strconv.AppendBool(e.buf, v)
	case int:
		e.buf = strconv.AppendInt(e.buf, int64(v), 10)
	case float64:
		e.buf = appendFloat(e.buf, v)
	case *big.Int:
		e.buf = v.Append(e.buf, 10)
	case string:
		e.buf = appendString(e.buf, v)
	case []any:
		if e.depth++; e.depth > maxDepth {
			return errTooDeep
		}
		e.buf = append(e.buf, '[')
		for i, x := range v {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			if err := e.encode(x); err != nil {
				return err
			}
		}
		e.buf = append(e.buf, ']')
		e.depth--
	case map[string]any:
		if e.depth++; e.depth > maxDepth {
			return errTooDeep
		}
		start := len(e.keys)
		for k := range v {
			e.keys = append(e.keys, k)
		}
		keys := e.keys[start:]
		slices.Sort(keys)
		e.buf = append(e.buf, '{')
		for i, k := range keys {
			if i > 0 {
				e.buf = append(e.buf, ',')
			}
			e.buf = appendString(e.buf, k)
			e.buf = append(e.buf, ':')
			if err := e.encode(v[k]); err != nil {
				return err
			}
		}
		e.buf = append(e.buf, '}')
		e.keys = e.keys[:start]
		e.depth--
	default:
		// gojq produces no other type; a custom function could.
		e.buf = appendString(e.buf, "<unsupported value>")
	}
	if len(e.buf) > e.limit {
		return errTooLarge
	}
	return nil
}

// appendFloat formats f as gojq does: NaN as null, infinities as the
// largest double.
func appendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) {
		return append(b, "null"...)
	}
	return jsontext.AppendFloat(b, min(max(f, -math.MaxFloat64), math.MaxFloat64), 64)
}

// appendString appends s as a JSON string escaped as jq does (DEL
// escaped, invalid UTF-8 as \ufffd), unlike jsontext.AppendQuote: as
// gojq.Marshal writes it, which only a string with a character outside
// printable ASCII or with a quote or backslash needs.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < ' ' || c > '~' || c == '"' || c == '\\' {
			q, _ := gojq.Marshal(s) // a string
			return append(b, q...)
		}
	}
	return append(append(append(b, '"'), s...), '"')
}

// truncate cuts s to at most n bytes on a rune boundary, marking the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimRight(s[:cut], " ") + "…"
}
