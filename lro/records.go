package lro

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"unsafe"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/estimate"
	"github.com/zircote/lro-go/internal/jsonscan"
	"github.com/zircote/lro-go/lro/descriptor"
)

// recordSet is the records of one tool result, found without copying them.
// Records are the elements of one JSON document's records array (docArray),
// or a list of standalone record encodings (list).
type recordSet struct {
	// doc is the JSON document the records come from, when there is one.
	doc []byte
	// docArray is the records array inside doc; nil when the records are not
	// an array of doc.
	docArray []byte
	// arrayStart and arrayEnd locate docArray in doc, for truncation.
	arrayStart, arrayEnd int
	// list holds the records when they are not the elements of docArray.
	list [][]byte
	// lines is true when the records are text lines wrapped as
	// {"line":N,"text":"…"} objects.
	lines bool
	// structured is true when doc is the result's structured content.
	structured bool
	// elemType is the Go type of one record, when known.
	elemType reflect.Type
	// providedScores are the scores handed over with Provide.
	providedScores []float64
	// measured is true when count and tokens were taken while the records
	// were validated, so that they need not be read again to measure them.
	measured      bool
	count, tokens int
	// oneLine is true when every record is known to be on one line, so
	// that none needs to be looked at for line breaks.
	oneLine bool
	// tally holds the summary's statistics and the inferred schema when
	// they were gathered while the records were validated.
	tally *tally
	// bounds holds the start and end offsets in doc of the first records
	// (at most maxBounds of them), when they were noted while the records
	// were validated, so that reading them again needs no scan.
	bounds *[]uint32
}

// maxBounds is how many records' offsets validRecords notes: 64 KiB, pooled.
// Records past them are found by a scan when they are read again.
const maxBounds = 8192

var boundsPool = sync.Pool{New: func() any {
	b := make([]uint32, 0, 2*maxBounds)
	return &b
}}

// release returns the recordSet's pooled buffers. The recordSet must not be
// read afterwards.
func (rs *recordSet) release() {
	if rs.bounds != nil {
		boundsPool.Put(rs.bounds)
		rs.bounds = nil
	}
}

// each calls fn with each record, in order.
func (rs *recordSet) each(fn func(rec []byte) error) error {
	if rs.bounds != nil && len(*rs.bounds) > 0 {
		return rs.eachBounded(fn)
	}
	if rs.docArray != nil {
		return jsonscan.Elements(rs.docArray, fn)
	}
	for _, r := range rs.list {
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}

// eachBounded is each for the records of a validated array whose first
// records' offsets were noted.
func (rs *recordSet) eachBounded(fn func(rec []byte) error) error {
	doc, b := rs.doc, *rs.bounds
	for k := 0; k < len(b); k += 2 {
		if err := fn(doc[b[k]:b[k+1]]); err != nil {
			return err
		}
	}
	// The records past the first maxBounds: ", record" after the last one.
	i := int(b[len(b)-1])
	for n := len(b) / 2; n < rs.count; n++ {
		if i = jsonscan.SkipSpace(doc, i); i >= len(doc) || doc[i] != ',' {
			return jsonscan.ErrSyntax
		}
		start := jsonscan.SkipSpace(doc, i+1)
		end, err := jsonscan.SkipValue(doc, start)
		if err != nil {
			return err
		}
		if err := fn(doc[start:end]); err != nil {
			return err
		}
		i = end
	}
	return nil
}

// eachLine calls fn with each record as the single line it is in the file:
// the record itself, or its compact form when it spans lines. The slice
// passed to fn is valid only until fn returns.
func (rs *recordSet) eachLine(fn func(line []byte) error) error {
	var buf bytes.Buffer
	return rs.each(func(rec []byte) error {
		line, err := rs.line(rec, &buf)
		if err != nil {
			return err
		}
		return fn(line)
	})
}

// line returns the record rec as the single line it is in the file: rec
// itself, or its compact form, made in buf, when it spans lines.
func (rs *recordSet) line(rec []byte, buf *bytes.Buffer) ([]byte, error) {
	if rs.oneLine || bytes.IndexByte(rec, '\n') < 0 && bytes.IndexByte(rec, '\r') < 0 {
		return rec, nil
	}
	buf.Reset()
	if err := json.Compact(buf, rec); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// recordsFromDoc finds the records of a JSON document: the document itself
// when it is an array; the array field named field, or else the only (or
// longest) array field, of an object; otherwise the document is one record.
func recordsFromDoc(doc []byte, field string) (*recordSet, error) {
	rs := &recordSet{doc: doc}
	switch jsonscan.Kind(doc) {
	case '[':
		s, e, err := jsonscan.ArraySpan(doc)
		if err != nil {
			return nil, err
		}
		rs.docArray, rs.arrayStart, rs.arrayEnd = doc[s:e], s, e
		return rs, nil
	case '{':
		var best jsonscan.Field
		arrays := 0
		err := jsonscan.Fields(doc, func(f jsonscan.Field) error {
			if jsonscan.Kind(f.Value) != '[' {
				return nil
			}
			if field != "" {
				if string(f.Key) == field {
					best, arrays = f, 1
				}
				return nil
			}
			arrays++
			if len(f.Value) > len(best.Value) {
				best = f
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if arrays > 0 {
			rs.docArray = best.Value
			rs.arrayStart, rs.arrayEnd = best.ValueStart, best.ValueStart+len(best.Value)
			return rs, nil
		}
	}
	rs.list = [][]byte{bytes.TrimSpace(doc)}
	return rs, nil
}

// textLine is the record written for one line of a plain-text result.
type textLine struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

// recordsFromText makes one {"line":N,"text":"…"} record per line of the
// texts, numbering lines across them from 1. A final empty line is dropped.
func recordsFromText(texts []string) (*recordSet, error) {
	rs := &recordSet{lines: true}
	n := 0
	for _, text := range texts {
		text = strings.TrimSuffix(text, "\n")
		for line := range strings.SplitSeq(text, "\n") {
			n++
			rec, err := json.Marshal(textLine{Line: n, Text: strings.TrimSuffix(line, "\r")})
			if err != nil {
				return nil, err
			}
			rs.list = append(rs.list, rec)
		}
	}
	return rs, nil
}

// recordsFromProvided marshals the records a handler handed over with
// [Provide].
func recordsFromProvided(p ResultSet) (*recordSet, error) {
	rs := &recordSet{providedScores: p.Scores}
	switch recs := p.Records.(type) {
	case nil:
		return rs, nil
	case []json.RawMessage:
		for _, r := range recs {
			rs.list = append(rs.list, r)
		}
		return rs, validList(rs.list)
	case [][]byte:
		rs.list = recs
		return rs, validList(rs.list)
	}
	v := reflect.ValueOf(p.Records)
	if v.Kind() != reflect.Slice && v.Kind() != reflect.Array {
		return nil, fmt.Errorf("lro: Provide: Records is a %T, want a slice", p.Records)
	}
	rs.elemType = v.Type().Elem()
	rs.list = make([][]byte, v.Len())
	for i := range v.Len() {
		rec, err := json.Marshal(v.Index(i).Interface())
		if err != nil {
			return nil, fmt.Errorf("lro: Provide: record %d: %w", i, err)
		}
		rs.list[i] = rec
	}
	return rs, nil
}

// validList checks that every record handed over already encoded is one
// JSON value, so that no line of the file is broken.
func validList(list [][]byte) error {
	for i, r := range list {
		if !jsonscan.Valid(r) {
			return fmt.Errorf("lro: Provide: record %d is not one JSON value", i)
		}
	}
	return nil
}

// structuredJSON returns the JSON encoding of a result's structured content.
func structuredJSON(sc any) ([]byte, error) {
	switch v := sc.(type) {
	case json.RawMessage:
		return v, nil
	case []byte:
		return v, nil
	}
	return json.Marshal(sc)
}

// textOnly reports whether every content item is text, and returns the texts.
// Results with images, audio, resources or links pass through untouched.
func textOnly(content []mcp.Content) ([]string, bool) {
	texts := make([]string, 0, len(content))
	for _, c := range content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			return nil, false
		}
		texts = append(texts, tc.Text)
	}
	return texts, true
}

// findRecords returns the records of a tool result: from its structured
// content, else from its text content when that is one JSON document, else
// from its text lines.
func (c *config) findRecords(res *mcp.CallToolResult) (*recordSet, error) {
	if res.StructuredContent != nil {
		doc, err := structuredJSON(res.StructuredContent)
		if err != nil {
			return nil, fmt.Errorf("lro: structured content: %w", err)
		}
		if rs, ok := c.validRecords(doc); ok {
			rs.structured = true
			return rs, nil
		}
	}
	texts, _ := textOnly(res.Content)
	if len(texts) == 1 {
		doc := readOnlyBytes(texts[0])
		if k := jsonscan.Kind(doc); k == '[' || k == '{' {
			if rs, ok := c.validRecords(doc); ok {
				return rs, nil
			}
		}
	}
	return recordsFromText(texts)
}

// validRecords returns the records of doc, or false when doc is not valid
// JSON. An array, the common case, is validated, split and measured in one
// pass, which also gathers the summary's statistics and infers the schema
// when the schema is to be inferred.
func (c *config) validRecords(doc []byte) (*recordSet, bool) {
	if jsonscan.Kind(doc) != '[' {
		if !jsonscan.Valid(doc) {
			return nil, false
		}
		rs, err := recordsFromDoc(doc, c.RecordsField)
		return rs, err == nil
	}
	rs := &recordSet{doc: doc, measured: true, oneLine: true}
	_, heuristic := c.Tokenizer.(estimate.Heuristic)
	var buf bytes.Buffer
	// measure counts and estimates one record and returns it as a line.
	measure := func(rec []byte, multiline, ascii bool) ([]byte, error) {
		line := rec
		if multiline {
			rs.oneLine = false
			buf.Reset()
			if err := json.Compact(&buf, rec); err != nil {
				return nil, err
			}
			line = buf.Bytes()
		}
		rs.count++
		if heuristic && ascii {
			rs.tokens += estimate.ASCIITokens(len(line))
		} else {
			rs.tokens += c.Tokenizer.Tokens(line)
		}
		return line, nil
	}
	var err error
	if c.inferSchema(c.RecordType) {
		t := &tally{schema: &descriptor.Inferrer{}}
		var bounds *[]uint32
		if len(doc) <= math.MaxUint32 {
			bounds = boundsPool.Get().(*[]uint32)
			*bounds = (*bounds)[:0]
		}
		err = t.schema.AddElements(doc, t.field, func(e descriptor.Element) error {
			line, err := measure(e.Value, e.Multiline, e.ASCII)
			if err != nil {
				return err
			}
			t.keep(line)
			if bounds != nil && len(*bounds) < 2*maxBounds {
				*bounds = append(*bounds, uint32(e.Offset), uint32(e.Offset+len(e.Value)))
			}
			return nil
		})
		rs.tally, rs.bounds = t, bounds
	} else {
		err = jsonscan.ValidElements(doc, func(e jsonscan.Element) error {
			_, err := measure(e.Value, e.Multiline, e.ASCII)
			return err
		})
	}
	if err != nil {
		rs.release()
		return nil, false
	}
	// A valid array is the document without the white space around it.
	rs.arrayStart = len(doc) - len(bytes.TrimLeft(doc, " \t\r\n"))
	rs.arrayEnd = len(bytes.TrimRight(doc, " \t\r\n"))
	rs.docArray = doc[rs.arrayStart:rs.arrayEnd]
	return rs, true
}

// scores returns the scores handed over with Provide, if any.
func (rs *recordSet) scores() []float64 { return rs.providedScores }

// readOnlyBytes returns the bytes of s without copying them, so that a result
// of a million records is not held twice. The records found in them are only
// ever read (scanned, estimated, written, or copied), never modified.
func readOnlyBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}
