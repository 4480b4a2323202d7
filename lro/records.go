package lro

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
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
// JSON. The records array (doc itself, the common case, or an array field of
// it) is validated, split and measured in one walk, which also gathers the
// summary's statistics and infers the records' schema (see gather).
func (c *config) validRecords(doc []byte) (*recordSet, bool) {
	var rs *recordSet
	if jsonscan.Kind(doc) == '[' {
		// A valid array is the document without the white space around it;
		// the walk validates it.
		rs = &recordSet{doc: doc}
		rs.arrayStart = len(doc) - len(bytes.TrimLeft(doc, " \t\r\n"))
		rs.arrayEnd = len(bytes.TrimRight(doc, " \t\r\n"))
		rs.docArray = doc[rs.arrayStart:rs.arrayEnd]
	} else {
		if !jsonscan.Valid(doc) {
			return nil, false
		}
		var err error
		if rs, err = recordsFromDoc(doc, c.RecordsField); err != nil {
			return nil, false
		}
		if rs.docArray == nil {
			return rs, true // one record
		}
	}
	if _, err := c.gather(rs); err != nil {
		return nil, false
	}
	return rs, true
}

// walk is the state of one walk over an array of records: what it has
// measured and gathered of the records it has seen.
type walk struct {
	base          int // the offset in the document of the array walked
	heuristic     bool
	tokenizer     estimate.Tokenizer
	count, tokens int
	oneLine       bool
	buf           bytes.Buffer // a multi-line record, compacted
	tally         *tally       // the summary's statistics and the schema
	bounds        *[]uint32    // nil when offsets are not noted
}

// newWalk starts a walk with c's tokenizer over an array at offset base of
// its document, noting where the first records are unless the document is
// too large for the notes' offsets.
func (c *config) newWalk(base, docLen int) *walk {
	_, heuristic := c.Tokenizer.(estimate.Heuristic)
	w := &walk{base: base, heuristic: heuristic, tokenizer: c.Tokenizer, oneLine: true}
	w.tally = &tally{schema: &descriptor.Inferrer{}}
	if docLen <= math.MaxUint32 {
		w.bounds = boundsPool.Get().(*[]uint32)
		*w.bounds = (*w.bounds)[:0]
	}
	return w
}

// measure counts and estimates one record and returns it as a line.
func (w *walk) measure(rec []byte, multiline, ascii bool) ([]byte, error) {
	line := rec
	if multiline {
		w.oneLine = false
		w.buf.Reset()
		if err := json.Compact(&w.buf, rec); err != nil {
			return nil, err
		}
		line = w.buf.Bytes()
	}
	w.count++
	if w.heuristic && ascii {
		w.tokens += estimate.ASCIITokens(len(line))
	} else {
		w.tokens += w.tokenizer.Tokens(line)
	}
	return line, nil
}

// element is the callback of descriptor's walks: it measures the record,
// keeps it for the sample, and notes where it is.
func (w *walk) element(e descriptor.Element) error {
	line, err := w.measure(e.Value, e.Multiline, e.ASCII)
	if err != nil {
		return err
	}
	w.tally.keep(line)
	if w.bounds != nil && len(*w.bounds) < 2*maxBounds {
		start := w.base + e.Offset
		*w.bounds = append(*w.bounds, uint32(start), uint32(start+len(e.Value)))
	}
	return nil
}

// addTo hands what w measured and gathered over to rs.
func (w *walk) addTo(rs *recordSet) {
	rs.measured = true
	rs.count, rs.tokens, rs.oneLine = w.count, w.tokens, w.oneLine
	rs.tally, rs.bounds = w.tally, w.bounds
}

// then adds what the walk that took over from w at a split saw, after what w
// saw, and releases it.
func (w *walk) then(next *walk) {
	w.count += next.count
	w.tokens += next.tokens
	w.oneLine = w.oneLine && next.oneLine
	w.tally.then(next.tally)
	// w noted every one of its records unless it noted the most it may,
	// so next's follow on as a prefix of the records still.
	if w.bounds != nil && next.bounds != nil && len(*w.bounds) < 2*maxBounds {
		b := *next.bounds
		*w.bounds = append(*w.bounds, b[:min(len(b), 2*maxBounds-len(*w.bounds))]...)
	}
	next.release()
}

// release returns the walk's pooled buffers.
func (w *walk) release() {
	if w.bounds != nil {
		boundsPool.Put(w.bounds)
		w.bounds = nil
	}
}

// minSplitBytes is the smallest array whose walk is split over two cores:
// below it, starting the second walk costs about what it saves.
const minSplitBytes = 64 << 10

// errCancelled stops the second walk of a split that did not hold.
var errCancelled = errors.New("lro: walk cancelled")

// gather walks the records array rs.docArray once: it validates it, counts
// and measures the records, keeps the sample, gathers the summary's
// statistics, infers the records' schema, and notes where the first records
// are. rs must have an array. On error, rs holds nothing gathered.
//
// A large array is walked in two halves at once, on two cores, when it can
// be split: the second half from what looks like the start of a record near
// the middle, while the first half's walk confirms that a record does start
// there (if not, the first walk goes on to the end alone). It reports
// whether the walk was split.
func (c *config) gather(rs *recordSet) (split bool, err error) {
	doc, base := rs.docArray, rs.arrayStart
	first := c.newWalk(base, len(rs.doc))
	defer func() {
		if err != nil {
			first.release()
			return
		}
		first.addTo(rs)
	}()
	stop := -1
	if c.splitBytes > 0 && len(doc) >= c.splitBytes && runtime.GOMAXPROCS(0) > 1 {
		stop = descriptor.SplitPoint(doc)
	}
	if stop < 0 {
		return false, first.tally.schema.AddElements(doc, first.tally.field, first.element)
	}
	second := c.newWalk(base, len(rs.doc))
	// The second walk claims its half when it starts; a first walk that
	// gets to the split point before that (the other cores are busy) takes
	// the half back and walks on, so that a busy machine loses nothing.
	const (
		pending = iota
		claimed
		takenBack
	)
	var state atomic.Int32
	var cancelled atomic.Bool
	done := make(chan error, 1)
	go func() {
		if !state.CompareAndSwap(pending, claimed) {
			done <- nil
			return
		}
		done <- second.tally.schema.AddElementsFrom(doc, stop, second.tally.field, func(e descriptor.Element) error {
			if cancelled.Load() {
				return errCancelled
			}
			return second.element(e)
		})
	}()
	split, err = first.tally.schema.AddElementsUntil(doc, stop, first.tally.field, first.element)
	if !c.splitWaits && state.CompareAndSwap(pending, takenBack) {
		second.release()
		if split && err == nil {
			err = first.tally.schema.AddElementsFrom(doc, stop, first.tally.field, first.element)
		}
		return false, err
	}
	if !split {
		cancelled.Store(true)
	}
	err2 := <-done
	if !split {
		second.release()
		return false, err
	}
	if err == nil {
		err = err2
	}
	first.then(second)
	return true, err
}

// scores returns the scores handed over with Provide, if any.
func (rs *recordSet) scores() []float64 { return rs.providedScores }

// readOnlyBytes returns the bytes of s without copying them, so that a result
// of a million records is not held twice. The records found in them are only
// ever read (scanned, estimated, written, or copied), never modified.
func readOnlyBytes(s string) []byte {
	return unsafe.Slice(unsafe.StringData(s), len(s))
}
