package extract

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"time"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/itchyny/gojq"
)

// errTimeout is the cancellation cause of a call that ran past Timeout.
var errTimeout = errors.New("time limit")

// program is a jq program ready to run over the records of one file.
type program struct {
	query  *gojq.Query
	names  []string // variable names, with '$'
	values []any    // their values
	slurp  bool     // run once on the array of all records (jq -s)
	raw    bool     // print strings without quotes (jq -r)
	plan   plan     // how a recipe runs on less than whole records
}

// results are the outputs of a program, one a line of buf. In a frame gob
// carries the exported fields, and the Size bytes of buf follow as they are.
type results struct {
	buf      []byte
	Size     int // of buf, in a frame
	Spans    []span
	Records  int    // records read
	Skipped  int    // records of those that the plan skipped undecoded
	Errs     int    // records on which the program raised an error
	FirstErr string // the first of those errors, with its line
	Halted   bool
}

// span is one result in results.buf, a JSON value (exported for gob).
type span struct {
	Start, End int
	Raw        bool // a string, to print without quotes
}

// text returns result i as one JSON value.
func (r *results) text(i int) []byte { return r.buf[r.Spans[i].Start:r.Spans[i].End] }

// shown returns result i as it is printed: a raw string unquoted.
func (r *results) shown(i int) []byte {
	if !r.Spans[i].Raw {
		return r.text(i)
	}
	b, _ := jsontext.AppendUnquote(nil, r.text(i)) // invalid UTF-8 is shown as U+FFFD
	return b
}

// output returns the results as they are printed, one per line.
func (r *results) output() string {
	var b strings.Builder
	b.Grow(len(r.bytes()))
	for i := range r.Spans {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.Write(r.shown(i))
	}
	return b.String()
}

// bytes returns the results, one JSON value per line, without a copy.
func (r *results) bytes() []byte {
	if len(r.Spans) == 0 {
		return nil
	}
	return r.buf[:r.Spans[len(r.Spans)-1].End]
}

// runner runs a program over the records of a source.
type runner struct {
	c       *config
	ctx     context.Context
	p       *program
	res     *results
	src     *source
	dec     *decoder
	enc     encoder
	err     error  // a hard error (see Next)
	cur     any    // the last record read
	curText string // its text; its line number is src.line
	// With slurp: the records, their texts, and the texts by object, so
	// that a record output unchanged is printed as written.
	all       []any
	texts     []string
	byPointer map[unsafe.Pointer]string
}

// Next returns the next record of the source, decoded: the input of the run
// and of jq's input and inputs. A hard error (a limit, an invalid line) is
// sticky: the run stops on it even if the program catches it.
func (r *runner) Next() (any, bool) {
	if r.err != nil {
		return r.err, true
	}
	text, err := r.src.next(r.c.MaxRecordBytes)
	for err == nil && r.p.plan.skips(text, r.dec) {
		r.res.Records++ // a record on which the filter outputs nothing
		r.res.Skipped++
		text, err = r.src.next(r.c.MaxRecordBytes)
	}
	if err == io.EOF {
		return nil, false
	}
	if err != nil {
		r.err = r.c.readError(err, r.src)
		return r.err, true
	}
	v, ok := any(nil), false
	if v, ok = r.dec.project(text, r.p.plan.fields); !ok {
		v, err = r.dec.decode(text)
	}
	if err != nil {
		r.err = errorf("line %d of %s is not a valid record: %v", r.src.line, r.src.path, err)
		return r.err, true
	}
	r.cur, r.curText = v, r.dec.text
	r.res.Records++
	return v, true
}

// readError turns an error of source.next into a tool error.
func (c *config) readError(err error, src *source) error {
	var te *toolError
	switch {
	case errors.As(err, &te):
		return err
	case errors.Is(err, errLineTooLong):
		return errorf("%v, more than the %d bytes a record may have (MaxRecordBytes); read it by character range with lro_read", err, c.MaxRecordBytes)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return c.stopped(src.ctx)
	}
	return errorf("reading %s: %v", src.path, err)
}

// stopped explains why the call's context ended (see timedOut).
func (c *config) stopped(ctx context.Context) error {
	if !errors.Is(context.Cause(ctx), errTimeout) {
		return errorf("the call was cancelled")
	}
	return &toolError{msg: fmt.Sprintf("stopped after %v, the time limit of one call (Timeout)", c.Timeout), timedOut: true}
}

// timedOut returns err, or if stopped returned it for a time limit, with
// how long the call waited for a worker and what it may do.
func (c *config) timedOut(err error, tool string, waited time.Duration) error {
	te, ok := err.(*toolError)
	if !ok || !te.timedOut {
		return err
	}
	msg := te.msg
	if waited >= c.Timeout/10 {
		msg += fmt.Sprintf(", %v of it waiting for one of the %d workers (Workers), busy with other calls", waited.Round(time.Millisecond), c.Workers)
	}
	return errorf("%s: %s", msg, timeoutHints[tool])
}

// timeoutHints say what to do about a call that ran out of time.
var timeoutHints = map[string]string{
	toolExtract: "the query is too slow or does not end; narrow it or use a recipe",
	toolSearch:  "narrow the pattern, or search from a later line (start_line)",
	toolRead:    "read fewer lines (limit)",
}

// run runs p over the records of src, under the limits of ctx.
func (c *config) run(ctx context.Context, src *source, p *program) (*results, error) {
	r := &runner{c: c, ctx: ctx, p: p, res: &results{}, src: src, dec: newDecoder()}
	r.enc.limit = c.MaxOutputBytes
	// The wrapper runs q in one run of gojq on every record, as jq runs a
	// program on a stream of inputs (an error ends it on one input only), or
	// once on the array of all records (jq -s). Each mode has its own
	// function: a query calling the other's does not compile.
	w, fn := wrapEach, gojq.WithIterFunction(fnFailed, 0, 0, r.failed)
	if p.slurp {
		w, fn = wrapSlurp, gojq.WithFunction(fnAll, 0, 0, r.slurp)
	}
	wrapped := *w
	wrapped.FuncDefs = []*gojq.FuncDef{{Name: "__lro_main", Body: p.query}}
	code, err := gojq.Compile(&wrapped, gojq.WithVariables(p.names), gojq.WithInputIter(r), fn)
	if err != nil {
		return nil, errorf("the query does not compile: %v", err)
	}
	return r.res, r.runOn(code.RunWithContext(ctx, nil, p.values...))
}

// The wrappers of a query, __lro_main, and the functions they call.
const (
	fnFailed = "__lro_failed"
	fnAll    = "__lro_all"
)

var (
	wrapEach, _  = gojq.Parse("def __lro_main: .; inputs | try __lro_main catch " + fnFailed)
	wrapSlurp, _ = gojq.Parse("def __lro_main: .; " + fnAll + " | __lro_main")
)

// runOn prints the outputs of iter, a run of the wrapped program.
func (r *runner) runOn(iter gojq.Iter) error {
	for {
		out, ok := iter.Next()
		if !ok {
			return r.err
		}
		cur, text, line := r.cur, r.curText, r.src.line
		if r.p.slurp {
			cur, text, line = nil, "", 0
		}
		if err, ok := out.(error); ok {
			// jq stops a program at its error, on the one input; else the
			// error is outside the program (in the wrapper's inputs).
			if err := r.fail(err, line); err != nil || r.res.Halted || r.p.slurp {
				return err
			}
			return errorf("%s", errorMessage(err))
		}
		if err := r.emit(out, cur, text); err != nil {
			return err
		}
	}
}

// failed records the error the program raised on the current record.
func (r *runner) failed(v any, _ []any) gojq.Iter {
	if r.err == nil {
		r.countError(r.src.line, func() string { return valueText(v) })
	}
	return gojq.NewIter[any]()
}

// countError counts an error the program raised on the input at line (0:
// the array of all records); msg gives its message.
func (r *runner) countError(line int, msg func() string) {
	if r.res.Errs++; r.res.FirstErr == "" {
		where := "on the array of all records"
		if line > 0 {
			where = fmt.Sprintf("at line %d", line)
		}
		r.res.FirstErr = where + ": " + msg()
	}
}

// slurp reads every record into the array of all records, or returns the
// error that stopped it.
func (r *runner) slurp(any, []any) any {
	for v, ok := r.Next(); ok; v, ok = r.Next() {
		if r.err != nil {
			return r.err
		}
		r.all = append(r.all, v)
		r.texts = append(r.texts, r.curText)
	}
	return r.all
}

// fail handles an error raised while running the program on the input at
// line: limits end the call; an error of the program is counted.
func (r *runner) fail(err error, line int) error {
	if r.ctx.Err() != nil {
		return r.c.stopped(r.ctx)
	}
	if r.err != nil {
		return r.err
	}
	var halt *gojq.HaltError
	if errors.As(err, &halt) {
		if halt.Value() == nil {
			r.res.Halted = true
			return nil
		}
		return errorf("halt_error: %s", errorMessage(halt))
	}
	r.countError(line, func() string { return errorMessage(err) })
	return nil
}

// maxMessage bounds error messages shown to the model.
const maxMessage = 1000

// errorMessage formats an error of gojq without encoding a whole value.
func errorMessage(err error) string {
	var ve gojq.ValueError
	if errors.As(err, &ve) {
		if _, ok := ve.Value().(string); ok {
			return valueText(ve.Value())
		}
		return "error: " + valueText(ve.Value())
	}
	return truncate(err.Error(), maxMessage)
}

// valueText is v for a message: a string as is, another value as JSON, cut
// at maxMessage bytes.
func valueText(v any) string {
	if s, ok := v.(string); ok {
		return truncate(s, maxMessage)
	}
	e := encoder{limit: maxMessage}
	_ = e.encode(v)
	return truncate(string(e.buf), maxMessage)
}

// emit prints one result.
func (r *runner) emit(v, cur any, text string) error {
	res := r.res
	start := len(res.buf)
	// The output may reach limit: MaxOutputBytes less what the results,
	// this one included, count beside their text.
	limit := r.c.MaxOutputBytes - resultCost*(len(res.Spans)+1)
	// A string printed raw is kept quoted, as an offloaded answer holds it;
	// results.output unquotes it.
	_, isString := v.(string)
	rawString := isString && r.p.raw
	switch {
	case text != "" && sameValue(v, cur):
		// A record passed through unchanged: printed as the file holds it.
	case r.p.slurp:
		text = r.recordText(v)
	default:
		text = ""
	}
	switch {
	case len(text) > limit-start:
		return r.outputLimit()
	case text != "":
		res.grow(len(text)+1, limit)
		res.buf = append(res.buf, text...)
	default:
		res.grow(minEncodeRoom, limit)
		r.enc.buf = res.buf
		err := r.enc.encode(v) // errTooLarge leaves buf past MaxOutputBytes, past limit, checked below
		res.buf = r.enc.buf
		if errors.Is(err, errTooDeep) {
			res.buf = res.buf[:start]
			return errorf("a result is nested deeper than %d levels", maxDepth)
		}
	}
	if len(res.buf) > limit {
		res.buf = res.buf[:start]
		return r.outputLimit()
	}
	res.Spans = append(res.Spans, span{start, len(res.buf), rawString})
	res.buf = append(res.buf, '\n')
	return nil
}

// minEncodeRoom is the room made in the output before a result is encoded.
const minEncodeRoom = 4 << 10

// grow makes room for n more bytes in buf by doubling its capacity, up to
// limit (plus n), where append would copy a large output several times.
func (r *results) grow(n, limit int) {
	if cap(r.buf)-len(r.buf) >= n {
		return
	}
	buf := make([]byte, len(r.buf), max(min(2*cap(r.buf), limit), len(r.buf)+n))
	copy(buf, r.buf)
	r.buf = buf
}

func (r *runner) outputLimit() error {
	return errorf("the output passed %d bytes after %d results (each counting %d bytes beside its text), the limit of one call (MaxOutputBytes); narrow the query", r.c.MaxOutputBytes, len(r.res.Spans), resultCost)
}

// recordText returns the text of v if it is one of the slurped records.
func (r *runner) recordText(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	if r.byPointer == nil {
		n := 0 // projected records have no text
		for _, t := range r.texts {
			n += min(len(t), 1)
		}
		r.byPointer = make(map[unsafe.Pointer]string, n)
		for i, rec := range r.all {
			if o, ok := rec.(map[string]any); ok && r.texts[i] != "" {
				r.byPointer[mapPointer(o)] = r.texts[i]
			}
		}
	}
	return r.byPointer[mapPointer(m)]
}

func mapPointer(m map[string]any) unsafe.Pointer { return reflect.ValueOf(m).UnsafePointer() }

// sameValue reports whether v is the very value cur, not an equal copy.
func sameValue(v, cur any) bool {
	switch x := v.(type) {
	case map[string]any:
		y, ok := cur.(map[string]any)
		return ok && mapPointer(x) == mapPointer(y)
	case []any:
		y, ok := cur.([]any)
		return ok && len(x) == len(y) && len(x) > 0 && unsafe.SliceData(x) == unsafe.SliceData(y)
	}
	return false
}
