package offload

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/rawjson"
	"github.com/zircote/lro-go/internal/tabular"
)

// The ways records sit in a result.
const (
	asArray = "array" // the elements of the array at the placement
	asValue = "value" // the value at the placement, one record
	asLines = "lines" // the lines of the text at the placement, as {"line","text"} records
	// Otherwise, the format of rows printed as the text (see tabular).
)

// run is one stretch of records and where they go back in the result.
type run struct {
	Placement      // as the header records it
	exact     bool // the text of a text item's run comes back byte for byte
	compact   bool // asArray: doc is the array, and its read saw no white space outside strings
	oneLine   bool // asArray: its read saw no white space outside strings, so each element is one line

	doc        []byte   // asArray, asValue: the document holding the records
	start, end int      // the span of the array or value in doc
	members    []member // the members of the object document whose array member holds the records; nil otherwise
	text       string   // asLines, rows: the text (asLines: without its final newline)
	firstLine  int      // asLines: the number of the first line
	rows       [][]byte // rows, and a provided set (asArray): the records

	// elems are the spans in doc[start:end] of the elements of an asArray
	// run, for the write; none beyond maxKept, so that memory stays flat.
	elems []span
}

// span is the place of an element in its array: arr[start:end].
type span struct{ start, end uint32 }

const maxKept = 1 << 12

// plan is where the records of a result are and what stays beside them.
type plan struct {
	t      *tally // what the descriptor says of the records, read as the runs are found
	result []byte // the header's "result": the result without its records; nil for a provided set
	runs   []*run
	copies []Copy
	scores []float64 // the scores of a provided set
	tokens int       // the estimate of the whole result
	inline int       // the estimate of what the client would receive inline; 0 means tokens
	beside []besideValue

	redacted map[string]int // the credentials replaced by markers, by kind; nil for none

	nextLine int  // the number of the next text line of an asLines run
	retally  bool // a text's array failed after its records were described: describe the runs again
}

// plan finds the records of r, reading them once (see run.read), and builds
// the header's "result". The records are the structured content's, unless
// it holds no array while a text item that does not repeat it is at least
// half its size (the text beside {"content": "..."}).
func (c *Config) plan(ctx context.Context, r *result) (*plan, error) {
	p := &plan{t: newTally(), nextLine: 1}
	copies := make([]bool, len(r.items))
	fromStructured := r.structured != nil
	if fromStructured {
		for i, it := range r.items {
			if it.text != nil {
				copies[i] = sameJSON(it.text.Text, r.structured)
			}
		}
		fromStructured = !textHolds(r, copies) || hasArray(r.structured)
	}
	kept := texts{} // the texts given back byte for byte, which the structured content may repeat
	// The spacings of the texts that are copies of the structured content;
	// one that is it byte for byte has no white space when its read saw none.
	var layouts []pendingSpacing
	setSpacings := func(compact bool) {
		for _, l := range layouts {
			same := compact && bytes.Equal(trimSpace(readOnlyBytes(l.text)), r.structured)
			p.copies[l.copy].Layout, _ = textSpacing(l.text, same)
		}
	}
	var b bytes.Buffer
	b.WriteString(`{"content":[`)
	for i, it := range r.items {
		if err := checkEvery(ctx, i); err != nil {
			setSpacings(false)
			return p, err // canceled: what is found so far, for the fallback
		}
		if i > 0 {
			b.WriteByte(',')
		}
		at := "/content/" + strconv.Itoa(i) + "/text"
		path := func() string { return ".content[" + strconv.Itoa(i) + "]" } // only for what is kept beside
		switch {
		case it.text == nil:
			raw := it.raw
			if raw == nil {
				var err error
				if raw, err = json.Marshal(it.item); err != nil {
					return nil, err
				}
			}
			b.Write(raw)
			if !it.media {
				p.beside = append(p.beside, besideValue{path: path(), what: "content item"})
			}
		case copies[i]:
			// Its spacing is found once the structured content is read.
			layouts = append(layouts, pendingSpacing{len(p.copies), it.text.Text})
			p.copies = append(p.copies, Copy{At: at, Of: "/structuredContent"})
			writeTextItem(&b, it.text, []byte("null"))
		case fromStructured:
			writeTextItem(&b, it.text, rawjson.AppendQuote(nil, it.text.Text))
			p.beside = append(p.beside, describeText(path()+".text", it.text.Text))
			kept.add(it.text.Text, at)
		default:
			ru, skeleton := c.textRun(p, it.text.Text, at)
			p.runs = append(p.runs, ru)
			writeTextItem(&b, it.text, skeleton)
			if ru.As != asLines {
				p.beside = append(p.beside, besideMembers(path()+".text", ru)...)
			}
			if ru.exact {
				kept.add(it.text.Text, at)
			}
		}
	}
	b.WriteByte(']')
	if r.structured != nil {
		doc := r.structured
		var ru *run
		if fromStructured {
			var err error
			if ru, err = c.docRun(r.structured, "/structuredContent", p.t); err != nil {
				return nil, err
			}
			p.runs = append(p.runs, ru)
			doc = skeletonOf(ru)
		} else if !jsontext.Value(doc).IsValid(rawjson.DecodeOptions...) {
			return nil, errors.New("offload: structured content is not one JSON value")
		}
		setSpacings(ru != nil && ru.compact)
		// A string that repeats a text given back exactly is kept once,
		// there; put back first, since a JSON copy may repeat it.
		doc, copies, all := stringCopies(doc, kept, "/structuredContent")
		b.WriteString(`,"structuredContent":`)
		b.Write(doc)
		p.copies = append(copies, p.copies...)
		switch {
		case ru != nil:
			p.beside = append(p.beside, besideMembers(".structuredContent", ru)...)
		case !all:
			p.beside = append(p.beside, describeValue(".structuredContent", r.structured))
		}
	}
	b.WriteByte('}')
	p.result = b.Bytes()
	if p.retally {
		p.t = newTally()
		for _, ru := range p.runs {
			_ = ru.read(p.t) // read once already: valid
		}
	}
	return p, nil
}

// pendingSpacing is a text that p.copies[copy] gives back, whose spacing is
// not found yet.
type pendingSpacing struct {
	copy int
	text string
}

// checkEvery returns ctx's error every 1024th i.
func checkEvery(ctx context.Context, i int) error {
	if i&1023 != 0 {
		return nil
	}
	return ctx.Err()
}

// minCopy is the shortest string kept once as a copy of another: a shorter
// one costs less than the copy's entry in the header.
const minCopy = 64

// texts maps texts of at least minCopy bytes to the pointer of the first
// text item that holds each.
type texts map[string]string

func (t texts) add(text, at string) {
	if _, ok := t[text]; !ok && len(text) >= minCopy {
		t[text] = at
	}
}

// stringCopies returns the valid JSON value doc, placed at at, with each
// string member (or doc itself) that is one of texts replaced by null, and the
// copies that put them back. Only the last member of a name, which a pointer
// names, is replaced. all reports that every member of the object doc was:
// {"content": "..."} beside the text itself, which tells nothing more.
func stringCopies(doc []byte, texts texts, at string) (_ []byte, _ []Copy, all bool) {
	if len(texts) == 0 {
		return doc, nil, false
	}
	ofText := func(v []byte) string {
		if s, err := jsontext.AppendUnquote(nil, v); err == nil {
			return texts[string(s)]
		}
		return ""
	}
	switch jsontext.Value(doc).Kind() {
	case '"':
		if of := ofText(doc); of != "" {
			return []byte("null"), []Copy{{At: at, Of: of, As: "string"}}, false
		}
		return doc, nil, false
	case '{':
	default:
		return doc, nil, false
	}
	ms, _ := members(doc) // valid
	var out []byte
	var copies []Copy
	prev := 0
	for _, m := range ms {
		if !m.last || m.kind != '"' || m.end-m.start < minCopy {
			continue
		}
		if of := ofText(doc[m.start:m.end]); of != "" {
			out = append(append(out, doc[prev:m.start]...), "null"...)
			prev = m.end
			copies = append(copies, Copy{At: at + "/" + pointerEscapes.Replace(m.name), Of: of, As: "string"})
		}
	}
	if copies == nil {
		return doc, nil, false
	}
	return append(out, doc[prev:]...), copies, len(copies) == len(ms)
}

// textHolds reports whether a text item of r that is not a copy of the
// structured content is at least half as large as it.
func textHolds(r *result, copies []bool) bool {
	for i, it := range r.items {
		if it.text != nil && !copies[i] && 2*len(trimSpace(readOnlyBytes(it.text.Text))) >= len(r.structured) {
			return true
		}
	}
	return false
}

// hasArray reports whether the valid JSON value doc is an array or an
// object with an array member.
func hasArray(doc []byte) bool {
	if jsontext.Value(doc).Kind() == '[' {
		return true
	}
	_, i, _ := findArray(doc, "") // -1 for anything but an object
	return i >= 0
}

// textRun returns the run of a text item's records, the next of p, and what
// its text becomes in the header's "result".
func (c *Config) textRun(p *plan, text, at string) (*run, []byte) {
	if doc := trimSpace(readOnlyBytes(text)); len(doc) > 0 && jsontext.Value(doc).Kind() != 0 {
		ru, err := c.docRun(doc, at, p.t)
		if err == nil {
			ru.InText = at
			ru.Layout, ru.exact = textSpacing(text, ru.compact)
			return ru, skeletonOf(ru)
		}
		if jsontext.Value(doc).Kind() == '[' {
			// Not one JSON document, but described: the records are
			// described again once every run is found.
			p.retally = true
		}
	}
	if tab, ok := tabular.Read(text); ok {
		ru := &run{text: text, rows: tab.Records, exact: true}
		ru.Placement = Placement{At: at, As: tab.Format, Count: len(tab.Records), Layout: tab.Layout}
		_ = ru.read(p.t) // valid: tabular wrote them
		return ru, []byte(`""`)
	}
	ru := &run{Placement: Placement{At: at, As: asLines}, text: text, firstLine: p.nextLine, exact: true}
	if text != "" {
		ru.text, ru.FinalNewline = strings.CutSuffix(text, "\n")
		ru.Count = strings.Count(ru.text, "\n") + 1
	}
	p.nextLine += ru.Count
	_ = ru.read(p.t) // lines are always valid records
	return ru, []byte(`""`)
}

// docRun returns the run of the records of the JSON document doc, placed at
// at: doc itself when an array; else its array member named RecordsField,
// else its largest one; else doc as one record. It fails when doc is not one
// JSON value.
func (c *Config) docRun(doc []byte, at string, t *tally) (*run, error) {
	ru := &run{Placement: Placement{At: at, As: asValue, Count: 1}, doc: doc, start: 0, end: len(doc)}
	switch jsontext.Value(doc).Kind() {
	case '{':
		ms, i, err := findArray(doc, c.RecordsField)
		if err != nil {
			return nil, err
		}
		if i >= 0 {
			ru.As, ru.members, ru.start, ru.end = asArray, ms, ms[i].start, ms[i].end
			ru.At = at + "/" + pointerEscapes.Replace(ms[i].name)
		}
	case '[':
		ru.As = asArray
	default:
		// A scalar, or text that is not JSON: checked before it is described.
		if !jsontext.Value(doc).IsValid(rawjson.DecodeOptions...) {
			return nil, errors.New("offload: not one JSON value")
		}
	}
	if err := ru.read(t); err != nil {
		return nil, err
	}
	return ru, nil
}

// read reads the records of ru once: it validates and counts them, notes the
// elements of an array for the write (up to maxKept), and describes them
// into t.
func (ru *run) read(t *tally) error {
	var buf []byte
	switch ru.As {
	case asArray:
		arr := ru.doc[ru.start:ru.end]
		ru.elems = ru.elems[:0]
		i := 0
		if len(arr) > math.MaxUint32 {
			i = maxKept + 1 // not noted: read again when written
		}
		n, err := t.schema.AddElements(arr, t.fieldFn, func(elem []byte) error {
			if len(t.sample) < SampleSize {
				line, err := compactLine(elem, &buf)
				if err != nil {
					return err
				}
				t.note(line)
			}
			t.last = elem // compacted when shown
			t.jq16.add(t.schema.JQ16())
			switch {
			case i < maxKept:
				// elem is a slice of arr: its capacity tells where it starts.
				start := cap(arr) - cap(elem)
				ru.elems = append(ru.elems, span{uint32(start), uint32(start + len(elem))})
			case i == maxKept:
				ru.elems = nil
			}
			i++
			return nil
		})
		ru.Count = n
		ru.oneLine = err == nil && !t.schema.Spaced()
		ru.compact = ru.oneLine && ru.members == nil
		return err
	case asValue:
		line, err := compactLine(ru.doc[ru.start:ru.end], &buf)
		if err != nil {
			return err
		}
		return t.add(line)
	}
	return ru.each(&t.buf, t.add)
}

// each calls fn with each record of ru, an asLines run or one of rows; the
// records of lines are made in *buf, valid until fn returns.
func (ru *run) each(buf *[]byte, fn func(rec []byte) error) error {
	if ru.As != asLines {
		for _, rec := range ru.rows {
			if err := fn(rec); err != nil {
				return err
			}
		}
		return nil
	}
	if ru.Count == 0 {
		return nil
	}
	n := ru.firstLine
	for l := range strings.SplitSeq(ru.text, "\n") {
		b := append((*buf)[:0], `{"line":`...)
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, `,"text":`...)
		b = rawjson.AppendQuote(b, l)
		b = append(b, '}')
		*buf = b
		if err := fn(b); err != nil {
			return err
		}
		n++
	}
	return nil
}

// findArray returns the members of the JSON object doc and the index among
// them of its array member named field, else of its largest one, else -1. Of
// members that share a name only the last counts, as a pointer names it. It
// fails when doc is not one JSON object.
func findArray(doc []byte, field string) (ms []member, best int, err error) {
	ms, err = members(doc)
	best = -1
	for i, m := range ms {
		if m.kind != '[' || !m.last {
			continue
		}
		if field != "" && m.name == field {
			best = i
			break
		}
		if best < 0 || m.end-m.start > ms[best].end-ms[best].start {
			best = i
		}
	}
	return ms, best, err
}

// member is a member of a JSON object document.
type member struct {
	name       string
	start, end int
	kind       jsontext.Kind
	last       bool // the last member of its name, which a pointer names
}

// members returns the members of the JSON object doc, in order, and fails
// when doc is not one JSON object.
func members(doc []byte) ([]member, error) {
	var ms []member
	last := map[string]int{}
	dec := rawjson.NewDecoder(doc)
	ok := rawjson.Object(dec, func(quoted jsontext.Value) bool {
		v, err := dec.ReadValue()
		end, name := int(dec.InputOffset()), rawjson.Unquote(quoted)
		if i, ok := last[name]; ok {
			ms[i].last = false
		}
		last[name] = len(ms)
		ms = append(ms, member{name: name, start: end - len(v), end: end, kind: v.Kind(), last: true})
		return err == nil
	})
	if !ok || !rawjson.AtEnd(dec) {
		return nil, errors.New("offload: not one JSON object")
	}
	return ms, nil
}

// eachElement calls fn with each element of the JSON array arr, as written,
// valid until fn returns, and fails when arr is not one JSON array, or with
// fn's error.
func eachElement(arr []byte, fn func(elem []byte) error) (err error) {
	dec := rawjson.NewDecoder(arr)
	ok := rawjson.Elements(dec, '[', func() bool {
		v, e := dec.ReadValue() // at once, where SkipValue reads token by token
		if e == nil {
			e = fn(v)
		}
		err = e
		return e == nil
	})
	if err == nil && (!ok || !rawjson.AtEnd(dec)) {
		err = errors.New("offload: not one JSON array")
	}
	return err
}

// skeletonOf returns the document of ru with its records taken out.
func skeletonOf(ru *run) []byte {
	if ru.As == asValue {
		return []byte("null")
	}
	return ru.with(nil)
}

// with returns the document of the asArray run ru with recs in its array.
func (ru *run) with(recs [][]byte) []byte {
	out := append(make([]byte, 0, len(ru.doc)-(ru.end-ru.start)+2), ru.doc[:ru.start]...)
	out = append(append(out, '['), bytes.Join(recs, []byte{','})...)
	return append(append(out, ']'), ru.doc[ru.end:]...)
}

// writeTextItem writes the text item t with the JSON value text as its text.
func writeTextItem(b *bytes.Buffer, t *mcp.TextContent, text []byte) {
	b.WriteString(`{"type":"text","text":`)
	b.Write(text)
	if len(t.Meta) > 0 {
		if m, err := json.Marshal(t.Meta); err == nil {
			b.WriteString(`,"_meta":`)
			b.Write(m)
		}
	}
	if t.Annotations != nil {
		if a, err := json.Marshal(t.Annotations); err == nil {
			b.WriteString(`,"annotations":`)
			b.Write(a)
		}
	}
	b.WriteByte('}')
}

// sameJSON reports whether text is the JSON of the valid JSON value doc, up
// to white space.
func sameJSON(text string, doc []byte) bool {
	t := trimSpace(readOnlyBytes(text))
	if bytes.Equal(t, doc) {
		return true
	}
	if len(t) < len(doc) || !jsontext.Value(t).IsValid(rawjson.DecodeOptions...) {
		return false
	}
	a, b := jsontext.Value(bytes.Clone(t)), jsontext.Value(bytes.Clone(doc))
	return a.Compact() == nil && b.Compact() == nil && bytes.Equal(a, b)
}

// The escapes of a member name in a JSON Pointer (RFC 6901), and back.
var (
	pointerEscapes   = strings.NewReplacer("~", "~0", "/", "~1")
	pointerUnescapes = strings.NewReplacer("~1", "/", "~0", "~")
)

// count returns the number of records of p.
func (p *plan) count() int {
	n := 0
	for _, ru := range p.runs {
		n += ru.Count
	}
	return n
}

// trimSpace trims JSON's white space (and only it) around b.
func trimSpace(b []byte) []byte { return bytes.Trim(b, " \t\r\n") }

// readOnlyBytes returns the bytes of s without copying them, to be only
// read: compactLine copies before it compacts.
func readOnlyBytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
