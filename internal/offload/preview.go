package offload

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zircote/lro-go/lro/descriptor"
)

// DefaultPreview is how many records a descriptor previews when
// Config.Preview is zero: the first two and the last.
const DefaultPreview = 3

// MaxPreview is the most records a descriptor previews: those it shows
// first are among the SampleSize that the tally keeps.
const MaxPreview = SampleSize

// The bounds of a previewed record: strings longer than previewChars
// characters are cut, with cutMark; objects and arrays more than
// previewDepth levels into the record are shown as cutMark; an object
// shows its first previewMembers members, an array as many elements and
// then cutMark.
const (
	previewChars   = 40
	previewDepth   = 1
	previewMembers = 8
	cutMark        = "…"
)

// previewer cuts records down for a preview, and notes how.
type previewer struct {
	fields    [][]string // the projection (recipes.Projection); nil for whole records
	cut       bool       // a string, an object or an array was cut
	projected bool       // members were left out
	asText    bool       // a number was written as a string
}

// previewOf returns the preview of n of the count records of t, the first
// n-1 and the last (all of them when count <= n), or nil for none. noun
// names the records ("records", "lines" or "rows").
func previewOf(t *tally, count, n int, fields [][]string, noun string) *descriptor.Preview {
	n = min(n, count, len(t.sample)+1)
	if n <= 0 || len(t.sample) == 0 {
		return nil
	}
	pr := &previewer{fields: fields}
	var recs [][]byte
	first := n - 1
	if count <= n {
		first = count // every record: the sample holds them all
	}
	first = min(first, len(t.sample))
	for _, rec := range t.sample[:first] {
		recs = append(recs, rec)
	}
	if first < count && t.last != nil {
		var buf []byte
		last, err := compactLine(t.last, &buf)
		if err != nil {
			return nil
		}
		recs = append(recs, last)
	}
	pv := &descriptor.Preview{Records: make([]json.RawMessage, 0, len(recs))}
	for _, rec := range recs {
		out, err := pr.record(rec)
		if err != nil {
			return nil
		}
		pv.Records = append(pv.Records, out)
	}
	var b strings.Builder
	shown := len(pv.Records)
	switch {
	case shown == count:
		fmt.Fprintf(&b, "all %d %s", count, noun)
	case first == 0:
		fmt.Fprintf(&b, "the last of %d %s", count, noun)
	default:
		fmt.Fprintf(&b, "the first %d and the last of %d %s", first, count, noun)
	}
	var how []string
	if pr.projected {
		how = append(how, "projected")
	}
	if pr.cut {
		how = append(how, "cut at "+cutMark)
	}
	if pr.asText {
		how = append(how, "numbers beyond float64 as strings")
	}
	if len(how) > 0 {
		b.WriteString(", " + strings.Join(how, ", "))
	}
	b.WriteString("; count and filter on the file")
	pv.Note = b.String()
	return pv
}

// record returns the preview of the valid JSON value rec: its projection
// when there is one and rec is an object, else rec, cut down.
func (pr *previewer) record(rec []byte) ([]byte, error) {
	if pr.fields != nil && jsontext.Value(rec).Kind() == '{' {
		return pr.project(rec)
	}
	var b bytes.Buffer
	enc := jsontext.NewEncoder(&b, jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
	dec := jsontext.NewDecoder(bytes.NewReader(rec), decodeOptions...)
	if err := pr.value(dec, enc, 0); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}

// project returns the object record rec with the members of pr.fields that
// it holds and that are not null, each cut down, named by their path.
func (pr *previewer) project(rec []byte) ([]byte, error) {
	var b bytes.Buffer
	enc := jsontext.NewEncoder(&b, jsontext.AllowInvalidUTF8(true), jsontext.AllowDuplicateNames(true))
	if err := enc.WriteToken(jsontext.BeginObject); err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, path := range pr.fields {
		v := lookup(rec, path)
		if v == nil || string(v) == "null" {
			continue
		}
		names[path[0]] = true
		if err := enc.WriteToken(jsontext.String(strings.Join(path, "."))); err != nil {
			return nil, err
		}
		if err := pr.value(jsontext.NewDecoder(bytes.NewReader(v), decodeOptions...), enc, 1); err != nil {
			return nil, err
		}
	}
	if ms, _ := members(rec); len(ms) > len(names) {
		pr.projected = true
	}
	if err := enc.WriteToken(jsontext.EndObject); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}

// lookup returns the value at path in the JSON object doc (the last member
// of a name, as jq reads it), or nil.
func lookup(doc []byte, path []string) []byte {
	for _, name := range path {
		if jsontext.Value(doc).Kind() != '{' {
			return nil
		}
		ms, err := members(doc)
		if err != nil {
			return nil
		}
		var found []byte
		for _, m := range ms {
			if m.name == name && m.last {
				found = doc[m.start:m.end]
			}
		}
		if found == nil {
			return nil
		}
		doc = found
	}
	return doc
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
		if utf8.RuneCountInString(s) > previewChars {
			pr.cut = true
			s = string([]rune(s)[:previewChars]) + cutMark
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

// decodable reports whether the JSON number num is one every client
// decodes: one a float64 holds (go-sdk's client fails a whole call on
// 1e400).
func decodable(num string) bool {
	_, err := strconv.ParseFloat(num, 64)
	return err == nil
}
