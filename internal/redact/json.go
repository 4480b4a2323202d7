package redact

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zircote/lro-go/internal/rawjson"
)

// JSON returns the JSON value doc with the credentials in its strings
// (names and values, decoded) replaced by their markers, adding what it
// redacted to n; every other byte stays as it was, but for the strings
// that held a secret: those are written again whole, unescaped where JSON
// allows it, with U+FFFD for invalid UTF-8 and lone surrogates. A string value is
// redacted whole when the name of its member, of the member whose array
// holds it, the string just before it in its array, or, for a member
// "value", the string of a member "name" or "key" before it in its object
// says what it is (as "Authorization") and it has the form of that secret
// (see level). It returns doc itself
// when it redacts nothing: without reading it as JSON when it holds no
// keyword of any rule (ok is then true whatever doc is); else ok is false,
// with n unchanged, when doc is not one JSON value.
func (r *Redactor) JSON(doc []byte, n Counts) (out []byte, ok bool) {
	if !r.Maybe(doc) && !letterEscape(doc) {
		return doc, true
	}
	dec := rawjson.NewDecoder(doc) // its values are slices of doc
	found := Counts{}
	var b []byte // nil until something is redacted
	last := 0    // doc[:last] is in b
	name := ""   // the member name before a value
	// levels[d] is what names the strings of the container at depth d.
	var levels []level
	var scratch []byte
	for {
		depth := dec.StackDepth()
		kind, length := dec.StackIndex(depth)
		isName := kind == '{' && length%2 == 0
		if next := dec.PeekKind(); next != '"' {
			if kind == '[' && depth < len(levels) {
				levels[depth].prev = ""
			}
			if _, err := dec.ReadToken(); err != nil {
				if err == io.EOF {
					break
				}
				return doc, false
			}
			if next == '[' || next == '{' {
				for len(levels) <= depth+1 {
					levels = append(levels, level{})
				}
				levels[depth+1] = level{}
				if next == '[' {
					levels[depth+1].name = name
				}
			}
			name = ""
			continue
		}
		raw, err := dec.ReadValue()
		if err != nil {
			return doc, false
		}
		end := int(dec.InputOffset())
		start := end - len(raw)
		var s string
		if bytes.IndexByte(raw, '\\') < 0 {
			s = rawjson.String(raw[1 : len(raw)-1])
		} else {
			scratch, err = jsontext.AppendUnquote(scratch[:0], raw)
			if err != nil {
				return doc, false
			}
			s = string(scratch)
		}
		red := s
		if isName {
			name = s
		} else {
			by, alt := name, ""
			if depth < len(levels) {
				switch l := &levels[depth]; {
				case kind == '[':
					by, alt = l.name, l.prev
					l.prev = s
				case strings.EqualFold(name, "name") || strings.EqualFold(name, "key"):
					l.name = s
				case strings.EqualFold(name, "value"):
					by = l.name
				}
			}
			if red, name = r.byName(by, s, found), ""; red == s {
				red = r.byName(alt, s, found)
			}
		}
		if red == s {
			red = r.String(s, found)
		}
		if red == s {
			continue
		}
		if b == nil {
			b = make([]byte, 0, len(doc)+64)
		}
		b = append(b, doc[last:start]...)
		b, _ = jsontext.AppendQuote(b, red) // valid: red is s, redacted
		last = end
	}
	if dec.StackDepth() != 0 {
		return doc, false
	}
	for k, v := range found {
		n[k] += v
	}
	if b == nil {
		return doc, true
	}
	return append(b, doc[last:]...), true
}

// level is what names the strings of a JSON array or object.
type level struct {
	// name is, for an array, the name of the member it is the value of
	// ({"Authorization":["…"]}, as Go writes an http.Header); for an
	// object, the string of its member "name" or "key", which names its
	// member "value" ({"name": "Authorization", "value": "…"}, as
	// Kubernetes writes an environment and HAR headers). "" for none.
	name string
	// prev is, for an array, its string element just before the next one,
	// which names it when name does not ([["Authorization", "…"]], as
	// Sentry writes headers, and Node's rawHeaders); "" for none.
	prev string
}

// byName returns s redacted whole, when the member name says what it is and
// s has that form, else s.
func (r *Redactor) byName(name, s string, n Counts) string {
	if name == "" || len(name) > 32 {
		return s
	}
	var buf [32]byte
	key := buf[:0]
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c == '-' || c == '_':
		case c >= utf8.RuneSelf: // as a Kelvin sign, which folds to 'k'
			key = []byte(strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(name)))
			i = len(name)
		default:
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			key = append(key, c)
		}
	}
	k, ok := keyRules[string(key)]
	if !ok {
		return s
	}
	m := k.re.FindStringSubmatchIndex(s)
	if m == nil {
		return s
	}
	a, b := m[len(m)-2], m[len(m)-1]
	if k.ok != nil && !k.ok(s[a:b]) {
		return s
	}
	n[k.kind]++
	return s[:a] + Marker(k.kind) + s[b:]
}

// letterEscape reports whether doc holds a \u escape of a letter, a digit,
// '-' or '_', or an escaped '/' (as PHP writes "https:\/\/"), which could
// hide a keyword from the scan of the raw bytes (the escapes of '<', '>'
// and '&' that encoders write are not).
func letterEscape(doc []byte) bool {
	for i := bytes.IndexByte(doc, '\\'); i >= 0; {
		switch rest := doc[i+1:]; {
		case len(rest) > 0 && rest[0] == '/':
			return true
		case len(rest) >= 5 && rest[0] == 'u' && rest[1] == '0' && rest[2] == '0':
			if c, err := strconv.ParseUint(string(rest[3:5]), 16, 8); err == nil {
				switch {
				case c >= '0' && c <= '9', c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c == '-', c == '_':
					return true
				}
			}
		}
		// The next backslash, the byte after this one included: one pass
		// finds both sequences wherever they start.
		j := bytes.IndexByte(doc[i+1:], '\\')
		if j < 0 {
			return false
		}
		i += 1 + j
	}
	return false
}
