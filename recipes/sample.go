package recipes

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/zircote/lro-go/internal/rawjson"
)

// Bounds of the work done on a sample, so that a huge or hostile sample
// cannot make recipe generation slow. What they leave out only affects
// which recipes are chosen and their default values, never whether a
// recipe runs.
const (
	maxSampleRecords = 1000
	maxSampleBytes   = 4 << 20
	maxScanBytes     = 4096
	maxDistinct      = 64
	maxValueBytes    = 200
	maxDerived       = 64   // fields of a record compared with each other
	maxFields        = 1024 // leading fields of a record examined
)

// bounded returns the leading records of sample that are examined.
func bounded(sample []json.RawMessage) []json.RawMessage {
	sample = sample[:min(len(sample), maxSampleRecords)]
	total := 0
	for i, raw := range sample {
		if total += len(raw); total > maxSampleBytes {
			return sample[:i]
		}
	}
	return sample
}

// jsonString decodes raw, a valid JSON value, if it is a string. A string
// without escapes whose bytes are UTF-8 is its own decoding: with view (for
// a string that is read and not kept), it is returned as a view of raw, not
// a copy. In others, bytes that are not UTF-8 and lone surrogates become
// U+FFFD, as encoding/json decodes them.
func jsonString(raw []byte, view bool) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	switch body := raw[1 : len(raw)-1]; {
	case bytes.IndexByte(body, '\\') >= 0 || !utf8.Valid(body):
		return rawjson.Unquote(raw), true
	case view:
		return rawjson.String(body), true
	default:
		return string(body), true
	}
}

// record is a sample record as the one read of the sample finds it: its
// JSON text and, for an object, the members that the memory library reads.
// The analysis decodes the rest from the text (see values).
type record struct {
	raw    []byte
	object bool
	memory memoryRecord
}

// readSample reads the records of the bounded sample that are one valid
// JSON value each, in order; the others are left out.
func readSample(sample []json.RawMessage) []record {
	sample = bounded(sample)
	recs := make([]record, 0, len(sample))
	for _, raw := range sample {
		r := record{raw: raw}
		if readRecord(&r) {
			recs = append(recs, r)
		}
	}
	return recs
}

// readRecord reads the record r.raw in place, with the Skip functions of
// rawjson (which accept what encoding/json's Valid does), and sets r.object
// and r.memory. It reports false when r.raw is not one valid JSON value.
func readRecord(r *record) bool {
	b := r.raw
	i := rawjson.SkipSpace(b, 0)
	end := 0
	if r.object = i < len(b) && b[i] == '{'; r.object {
		end = rawjson.SkipContainer(b, i, 0, func(name, value []byte) {
			if field := r.memory.field(name); field != nil {
				*field = value // the last of duplicate names wins
			}
		})
	} else {
		end = rawjson.SkipValue(b, i, 0)
	}
	return end >= 0 && rawjson.SkipSpace(b, end) == len(b)
}

// value is a sample record decoded for the analysis: numbers as
// json.Number, strings and names as encoding/json decodes them, and for an
// object its distinct names in order of appearance.
type value struct {
	v    any
	keys []string
	size int // bytes of its JSON text
}

// values decodes the records recs, which readSample found valid, for the
// analysis.
func values(recs []record) []value {
	vs := make([]value, len(recs))
	var buf bytes.Buffer
	var dec jsontext.Decoder // one for all, reading each record in place (not copied)
	for i, r := range recs {
		buf = *bytes.NewBuffer(r.raw)
		dec.Reset(&buf, rawjson.DecodeOptions...)
		vs[i].size = len(r.raw)
		vs[i].v = decodeNext(&dec, &vs[i].keys)
	}
	return vs
}

// decodeNext decodes the next value of dec, valid JSON, as encoding/json
// decodes it into an any with UseNumber. When keys is not nil and the value
// is an object, its distinct names are appended to *keys in order of
// appearance, and its members are decoded up to the one that brings them to
// maxFields (the last of duplicate names wins, as with json.Unmarshal): the
// others are left out, so that a record of very many fields costs about
// what one of maxFields does.
func decodeNext(dec *jsontext.Decoder, keys *[]string) any {
	switch dec.PeekKind() {
	case '{':
		o := map[string]any{}
		rawjson.Object(dec, func(name jsontext.Value) bool {
			k, _ := jsonString(name, false)
			if _, dup := o[k]; keys != nil && !dup {
				*keys = append(*keys, k)
			}
			o[k] = decodeNext(dec, nil)
			return keys == nil || len(*keys) < maxFields
		})
		return o
	case '[':
		a := []any{}
		rawjson.Elements(dec, '[', func() bool {
			a = append(a, decodeNext(dec, nil))
			return true
		})
		return a
	}
	switch v, _ := dec.ReadValue(); v.Kind() {
	case '"':
		s, _ := jsonString(v, false)
		return s
	case '0':
		return json.Number(v)
	case 't', 'f':
		return v.Kind() == 't'
	}
	return nil // null
}
