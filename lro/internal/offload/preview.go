package offload

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zircote/lro-go/internal/rawjson"
	"github.com/zircote/lro-go/lro/internal/describe"
)

// DefaultPreview is how many records a descriptor previews when
// Config.Preview is zero: the first two and the last.
const DefaultPreview = 3

// MaxPreview is the most records a descriptor previews: the first ones are
// among the tally's sample.
const MaxPreview = SampleSize

// The bounds of a previewed record: longer strings are cut, with cutMark;
// objects and arrays deeper than previewDepth are shown as cutMark; an object
// shows its first previewMembers members, an array as many elements and then
// cutMark.
const (
	previewChars     = 40
	previewLineChars = 100 // for the text of lines
	previewDepth     = 1
	previewMembers   = 8
	cutMark          = "…"
	// maxPreviewBytes is the largest record cut down; a larger one is cutMark.
	maxPreviewBytes = 64 << 10
)

// previewer cuts records down for a preview, and notes how.
type previewer struct {
	fields [][]string // the projection (recipes.Projection); nil for whole records
	chars  int        // the longest string shown whole, in characters
	how
}

// how says how a record was cut down.
type how struct {
	cut       bool // a string, an object or an array was cut
	projected bool // members were left out
	asText    bool // a number was written as a string
}

// shown is a record cut down for a preview.
type shown struct {
	rec json.RawMessage
	how
}

// previews are the records a preview may show, cut down once.
type previews struct {
	count int     // records in the file
	noun  string  // names them: "records", "memories", "lines" or "rows"
	first []shown // the first records, all of them when there are no more than most
	last  *shown  // the last record, when not among first
}

// newPreviews returns the records of t, of which there are count, that a
// preview of up to most records shows, cut down to fields, or nil.
func newPreviews(t *tally, count, most int, fields [][]string, noun string) *previews {
	if most <= 0 || count <= 0 || len(t.sample) == 0 {
		return nil
	}
	ps := &previews{count: count, noun: noun}
	first := max(most-1, 1)
	if count <= most {
		first = count // every record: the sample holds them all
	}
	show := func(rec []byte) (shown, error) {
		pr := &previewer{fields: fields, chars: previewChars}
		if noun == "lines" {
			pr.chars = previewLineChars // a line's text is all there is to it
		}
		out, err := pr.record(rec)
		return shown{out, pr.how}, err
	}
	for _, rec := range t.sample[:min(first, len(t.sample))] {
		sh, err := show(rec)
		if err != nil {
			return nil
		}
		ps.first = append(ps.first, sh)
	}
	if count > len(ps.first) && t.last != nil {
		var buf []byte
		rec, err := compactLine(t.last, &buf)
		if err != nil {
			return nil
		}
		sh, err := show(rec)
		if err != nil {
			return nil
		}
		ps.last = &sh
	}
	if ps.last == nil && len(ps.first) == count && count > 1 {
		ps.last = &ps.first[count-1] // for a preview of fewer
	}
	return ps
}

// take returns the preview of n records: the first n-1 and the last, the
// first alone when n is 1, or every record when there are no more than n.
func (ps *previews) take(n int) *describe.Preview {
	var recs []shown
	first := 0
	switch {
	case ps.count <= n && len(ps.first) == ps.count:
		recs, first = ps.first, ps.count
	case n == 1 || ps.last == nil:
		first = min(n, len(ps.first))
		recs = ps.first[:first]
	default:
		first = min(n-1, len(ps.first))
		recs = append(slices.Clip(ps.first[:first]), *ps.last)
	}
	if len(recs) == 0 {
		return nil
	}
	pv := &describe.Preview{Records: make([]json.RawMessage, len(recs))}
	var h how
	for i, r := range recs {
		pv.Records[i] = r.rec
		h.cut, h.projected, h.asText = h.cut || r.cut, h.projected || r.projected, h.asText || r.asText
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d of %d %s", len(recs), ps.count, ps.noun)
	switch {
	case len(recs) == ps.count:
	case first == len(recs):
		fmt.Fprintf(&b, ": the first %d", first)
	default:
		fmt.Fprintf(&b, ": the first %d and the last", first)
	}
	if h.projected {
		b.WriteString(", projected")
	}
	if h.cut {
		b.WriteString(", cut at " + cutMark)
	}
	if h.asText {
		b.WriteString(", numbers beyond float64 as strings")
	}
	b.WriteString("; count and filter on the file")
	pv.Note = b.String()
	return pv
}

// record returns the preview of the valid JSON value rec, projected when an
// object, cut down.
func (pr *previewer) record(rec []byte) ([]byte, error) {
	if len(rec) > maxPreviewBytes {
		pr.cut = true
		return rawjson.AppendQuote(nil, cutMark), nil
	}
	var b bytes.Buffer
	enc := jsontext.NewEncoder(&b, jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
	var err error
	if pr.fields != nil && jsontext.Value(rec).Kind() == '{' {
		err = pr.project(rec, enc)
	} else {
		err = pr.value(rawjson.NewDecoder(rec), enc, 0)
	}
	if err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}

// project writes to enc the members of the object rec named by pr.fields
// that are not null, each cut down, named by their path.
func (pr *previewer) project(rec []byte, enc *jsontext.Encoder) error {
	if err := enc.WriteToken(jsontext.BeginObject); err != nil {
		return err
	}
	ms, err := members(rec) // read once for every field
	top := ms
	if err != nil {
		top = nil // as lookup: no member
	}
	names := map[string]bool{}
	var buf bytes.Buffer
	dec := jsontext.NewDecoder(&buf)
	for _, path := range pr.fields {
		v := lookupIn(rec, top, path[0])
		if len(path) > 1 {
			v = lookup(v, path[1:])
		}
		if v == nil || string(v) == "null" {
			continue
		}
		names[path[0]] = true
		if err := enc.WriteToken(jsontext.String(strings.Join(path, "."))); err != nil {
			return err
		}
		buf = *bytes.NewBuffer(v) // read in place, not copied
		dec.Reset(&buf, rawjson.DecodeOptions...)
		if err := pr.value(dec, enc, 1); err != nil {
			return err
		}
	}
	if len(ms) > len(names) {
		pr.projected = true
	}
	return enc.WriteToken(jsontext.EndObject)
}

// lookup returns the value at path in the JSON object doc, or nil.
func lookup(doc []byte, path []string) []byte {
	for _, name := range path {
		if jsontext.Value(doc).Kind() != '{' {
			return nil
		}
		ms, err := members(doc)
		if err != nil {
			return nil
		}
		if doc = lookupIn(doc, ms, name); doc == nil {
			return nil
		}
	}
	return doc
}

// lookupIn returns the value of the last member named name of the object doc,
// whose members are ms, or nil.
func lookupIn(doc []byte, ms []member, name string) []byte {
	for _, m := range ms {
		if m.name == name && m.last { // one member of a name is the last
			return doc[m.start:m.end]
		}
	}
	return nil
}

// value copies the next value of dec, depth levels into a record, to enc,
// cut down.
func (pr *previewer) value(dec *jsontext.Decoder, enc *jsontext.Encoder, depth int) error {
	switch dec.PeekKind() {
	case '{', '[':
		if depth > previewDepth {
			pr.cut = true
			if err := dec.SkipValue(); err != nil {
				return err
			}
			return enc.WriteToken(jsontext.String(cutMark))
		}
		open, err := dec.ReadToken()
		if err != nil {
			return err
		}
		isObject := open.Kind() == '{'
		if err := enc.WriteToken(open); err != nil {
			return err
		}
		for i := 0; dec.PeekKind() != '}' && dec.PeekKind() != ']'; i++ {
			var name jsontext.Token
			if isObject {
				if name, err = dec.ReadToken(); err != nil {
					return err
				}
			}
			switch {
			case i >= previewMembers:
				// Members left out; elements cut after one mark.
				if isObject {
					pr.projected = true
				} else if i == previewMembers {
					pr.cut = true
					if err := enc.WriteToken(jsontext.String(cutMark)); err != nil {
						return err
					}
				}
				if err := dec.SkipValue(); err != nil {
					return err
				}
				continue
			case isObject:
				if err := enc.WriteToken(name); err != nil {
					return err
				}
			}
			if err := pr.value(dec, enc, depth+1); err != nil {
				return err
			}
		}
		end, err := dec.ReadToken()
		if err != nil {
			return err
		}
		return enc.WriteToken(end)
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	switch tok.Kind() {
	case '"':
		s := tok.String()
		if cut := runePrefix(s, pr.chars); cut < len(s) {
			pr.cut = true
			s = s[:cut] + cutMark
		}
		return enc.WriteToken(jsontext.String(s))
	case '0':
		if !decodable(tok.String()) {
			pr.asText = true
			return enc.WriteToken(jsontext.String(tok.String()))
		}
	}
	return enc.WriteToken(tok)
}

// runePrefix returns the length in bytes of the first n runes of s.
func runePrefix(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}

// decodable reports whether a float64 holds the JSON number num (go-sdk's
// client fails a whole call on 1e400).
func decodable(num string) bool {
	_, err := strconv.ParseFloat(num, 64)
	return err == nil
}
