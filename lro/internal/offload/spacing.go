package offload

import (
	"bytes"
	"cmp"
	"errors"
	"io"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/zircote/lro-go/internal/rawjson"
)

// spacing is how a printer spaced a JSON text, which Rebuild needs besides
// the document to give the text back byte for byte: the "layout" words of a
// placement or a copy. The empty one is the compact form, and that of any
// JSON text that no spacing gives back.
type spacing struct {
	form        string // "compact", "spaced", "indent" or "rows"
	indent      string // for "indent": the unit of indentation
	crlf        bool
	lead, trail string
}

// The longest indentation unit and white space around a document kept.
const (
	maxIndent = 16
	maxAround = 16
)

// String returns l as its words.
func (l spacing) String() string {
	w := []string{l.form}
	if l.form == "indent" {
		if l.indent == "\t" {
			w[0] = "indent=tab"
		} else {
			w[0] = "indent=" + strconv.Itoa(len(l.indent))
		}
	}
	if l.crlf {
		w = append(w, "crlf")
	}
	if l.lead != "" {
		w = append(w, "lead="+spaces.Replace(l.lead))
	}
	if l.trail != "" {
		w = append(w, "trail="+spaces.Replace(l.trail))
	}
	if len(w) == 1 && w[0] == "compact" {
		return ""
	}
	return strings.Join(w, " ")
}

// spaces and letters write white space as letters, and back.
var (
	spaces  = strings.NewReplacer(" ", "s", "\t", "t", "\n", "n", "\r", "r")
	letters = strings.NewReplacer("s", " ", "t", "\t", "n", "\n", "r", "\r")
)

var errSpacing = errors.New("offload: bad JSON text layout")

// parseSpacing parses the words of a spacing, as String writes them.
func parseSpacing(s string) (spacing, error) {
	l := spacing{form: "compact"}
	for i, w := range strings.Split(s, " ") {
		k, v, _ := strings.Cut(w, "=")
		ok := true
		switch {
		case i == 0 && (w == "" || w == "compact" || w == "spaced" || w == "rows"):
			l.form = cmp.Or(w, "compact")
		case i == 0 && w == "indent=tab":
			l.form, l.indent = "indent", "\t"
		case i == 0 && k == "indent":
			n, err := strconv.Atoi(v)
			ok = err == nil && n >= 0 && n <= maxIndent
			l.form, l.indent = "indent", strings.Repeat(" ", min(max(n, 0), maxIndent))
		case w == "crlf":
			l.crlf = true
		case k == "lead" || k == "trail":
			ok = v != "" && len(v) <= maxAround && strings.Trim(v, "stnr") == ""
			if k == "lead" {
				l.lead = letters.Replace(v)
			} else {
				l.trail = letters.Replace(v)
			}
		default:
			ok = false
		}
		if !ok {
			return spacing{}, errSpacing
		}
	}
	// One spelling and one order: String's.
	if got := l.String(); got != s && !(got == "" && s == "compact") {
		return spacing{}, errSpacing
	}
	return l, nil
}

// textSpacing returns the words of the spacing that prints the JSON document
// of text back as text, byte for byte; ok is false when none does. It tries
// the few the text's first bytes allow, each failing at its first byte that
// differs. compact says that the document has no white space outside its
// strings (its read saw none).
func textSpacing(text string, compact bool) (words string, ok bool) {
	b := readOnlyBytes(text)
	doc := trimSpace(b)
	if len(doc) == 0 {
		return "", false
	}
	start := len(b) - len(bytes.TrimLeft(b, " \t\r\n"))
	lead, trail := text[:start], text[start+len(doc):]
	if len(lead) > maxAround || len(trail) > maxAround {
		return "", false
	}
	var tries []spacing
	switch {
	case doc[0] != '{' && doc[0] != '[':
		// A number, string or literal is printed as written.
		return spacing{form: "compact", lead: lead, trail: trail}.String(), true
	case len(doc) > 2 && (doc[1] == '\n' || doc[1] == '\r'):
		l := spacing{form: "indent", crlf: doc[1] == '\r'}
		rest := doc[2:]
		if l.crlf {
			rest = doc[3:]
		}
		l.indent = string(rest[:len(rest)-len(bytes.TrimLeft(rest, " \t"))])
		if len(l.indent) > maxIndent || (strings.Trim(l.indent, " ") != "" && l.indent != "\t") {
			return "", false
		}
		tries = append(tries, l)
	case compact || noSpace(doc):
		// Most tools send such JSON: printed compact, it is itself.
		return spacing{form: "compact", lead: lead, trail: trail}.String(), true
	default:
		tries = append(tries, spacing{form: "compact"}, spacing{form: "spaced"})
		if doc[0] == '[' {
			tries = append(tries, spacing{form: "rows"}, spacing{form: "rows", crlf: true})
		}
	}
	for _, l := range tries {
		l.lead, l.trail = lead, trail
		m := &matcher{want: b}
		if l.print(m, doc) == nil && m.at == len(b) {
			return l.String(), true
		}
	}
	return "", false
}

// noSpace reports whether the JSON text doc has no white space outside its
// strings, looking for quotes with the fast bytes.IndexByte.
func noSpace(doc []byte) bool {
	for i := 0; i < len(doc); {
		q := bytes.IndexByte(doc[i:], '"')
		if q < 0 {
			return !bytes.ContainsAny(doc[i:], " \t\r\n")
		}
		if bytes.ContainsAny(doc[i:i+q], " \t\r\n") {
			return false
		}
		// The string ends at a quote after an even number of backslashes.
		i += q + 1
		for {
			e := bytes.IndexByte(doc[i:], '"')
			if e < 0 {
				return true // not JSON: no matter, it is checked elsewhere
			}
			i += e + 1
			n := 0
			for n < i-1 && doc[i-2-n] == '\\' {
				n++
			}
			if n%2 == 0 {
				break
			}
		}
	}
	return true
}

// matcher is a writer that only accepts the bytes of want, in order.
type matcher struct {
	want []byte
	at   int // the bytes of want written so far
}

var errDiffers = errors.New("offload: the text differs")

func (m *matcher) Write(p []byte) (int, error) {
	if !bytes.HasPrefix(m.want[m.at:], p) {
		return 0, errDiffers
	}
	m.at += len(p)
	return len(p), nil
}

// options returns the jsontext options that print a document as l, its
// strings and numbers as written.
func (l spacing) options() []jsontext.Options {
	o := append([]jsontext.Options{jsontext.PreserveRawStrings(true)}, rawjson.DecodeOptions...)
	switch l.form {
	case "spaced":
		o = append(o, jsontext.SpaceAfterColon(true), jsontext.SpaceAfterComma(true))
	case "indent":
		o = append(o, jsontext.WithIndent(l.indent))
	}
	return o
}

// print writes the valid JSON value doc to w spaced as l, a token at a time,
// holding no copy of it.
func (l spacing) print(w io.Writer, doc []byte) error {
	if _, err := io.WriteString(w, l.lead); err != nil {
		return err
	}
	out := &lineEnds{w: w, crlf: l.crlf}
	var dec *jsontext.Decoder
	if len(doc) > 0 && (doc[0] == '{' || doc[0] == '[') {
		dec = rawjson.NewDecoder(doc)
	}
	switch {
	case dec == nil:
		// A number, string or literal, as written.
		if _, err := w.Write(doc); err != nil {
			return err
		}
	case l.form == "rows":
		// jsontext has no such form: the elements compacted one at a time.
		if doc[0] != '[' {
			return errSpacing
		}
		sep, buf := "[", []byte(nil)
		err := eachElement(doc, func(elem []byte) error {
			buf = append(append(buf[:0], sep...), elem...)
			c := jsontext.Value(buf[len(sep):])
			if err := c.Compact(); err != nil {
				return err
			}
			_, err := out.Write(append(buf[:len(sep)], c...))
			sep = ",\n"
			return err
		})
		if err != nil {
			return err
		}
		if _, err := io.WriteString(out, strings.TrimPrefix(sep, ",\n")+"]"); err != nil {
			return err
		}
	default:
		enc := jsontext.NewEncoder(out, l.options()...)
		for {
			tok, err := dec.ReadToken()
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
			if err := enc.WriteToken(tok); err != nil {
				return err
			}
		}
		out.held = false // the encoder's newline after the value
	}
	_, err := io.WriteString(w, l.trail)
	return err
}

// lineEnds writes what a printer of JSON writes to w, with "\r\n" for each
// "\n" when crlf, holding back a final newline until something follows it.
type lineEnds struct {
	w    io.Writer
	crlf bool
	held bool
}

func (e *lineEnds) Write(p []byte) (int, error) {
	n := len(p)
	if n == 0 {
		return 0, nil
	}
	nl := "\n"
	if e.crlf {
		nl = "\r\n"
	}
	if e.held {
		if _, err := io.WriteString(e.w, nl); err != nil {
			return 0, err
		}
		e.held = false
	}
	if p[len(p)-1] == '\n' {
		p, e.held = p[:len(p)-1], true
	}
	if e.crlf {
		p = bytes.ReplaceAll(p, []byte{'\n'}, []byte(nl))
	}
	if _, err := e.w.Write(p); err != nil {
		return 0, err
	}
	return n, nil
}
