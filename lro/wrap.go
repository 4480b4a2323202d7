package lro

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/estimate"
	"github.com/zircote/lro-go/internal/jsonscan"
	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro/descriptor"
	"github.com/zircote/lro-go/lro/event"
	"github.com/zircote/lro-go/lro/extract"
	"github.com/zircote/lro-go/recipes"
)

// ErrInvalidOption is wrapped by the error that reports an invalid [Options]
// field; the message names the field and its value.
var ErrInvalidOption = errors.New("invalid option")

// Validate reports whether opts is a valid configuration, naming the first
// invalid field. A nil *Options is valid. [Wrap], [AddTool] and [Middleware]
// panic on options that Validate rejects.
func (opts *Options) Validate() error {
	_, err := newConfig(opts)
	return err
}

// ResultSet is the full result set a handler hands to the decorator with
// [Provide], alongside its own inline result (a formatted string, a budgeted
// selection or one page).
type ResultSet struct {
	// Records is a slice of records at the requested detail level: any
	// JSON-marshalable element type, or []json.RawMessage (or [][]byte)
	// of records already encoded, each one JSON value. A set with an
	// encoded record that is not one JSON value is not offloaded: the
	// handler's own result goes out unchanged.
	Records any
	// Scores, when not nil, are the records' relevance scores. The summary's
	// score_range is their minimum and maximum; they are not written to the
	// file.
	Scores []float64
}

type providedKey struct{}

// providedSlot receives the result set of one call.
type providedSlot struct {
	mu  sync.Mutex
	set *ResultSet
}

// Provide hands the full result set of the current tool call to the
// decorator around the handler ([Wrap], [AddTool] or [Middleware]). The
// threshold is then evaluated on these records instead of on the handler's
// result: when they exceed it, they are offloaded and the handler's own
// result is discarded; when they do not, the handler's result goes out
// unchanged. This is how inject_context evaluates its pre-budget recall set.
//
// ctx must be the context the handler was called with. Provide reports
// whether a decorator received the set; without one it does nothing. A later
// call replaces an earlier one.
func Provide(ctx context.Context, rs ResultSet) bool {
	slot, _ := ctx.Value(providedKey{}).(*providedSlot)
	if slot == nil {
		return false
	}
	slot.mu.Lock()
	slot.set = &rs
	slot.mu.Unlock()
	return true
}

func withSlot(ctx context.Context) (context.Context, *providedSlot) {
	slot := &providedSlot{}
	return context.WithValue(ctx, providedKey{}, slot), slot
}

func (s *providedSlot) get() *ResultSet {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.set
}

// Wrap returns a handler that calls h and offloads its result when the result
// set is estimated above the threshold: the records go to a JSONL file and
// the result's content is replaced by a descriptor. Below the threshold the
// result of h goes out unchanged. Errors, results with IsError set and
// results with non-text content (images, audio, resources) pass through
// untouched. When the file cannot be written, the call still succeeds with a
// truncated result and a warning.
//
// The records are taken from the result's structured content (an array, or
// the array field of an object), else from its text when that is one JSON
// document, else from its text lines; a handler can also hand over the full
// set with [Provide].
//
// When the tool advertises an output schema, widen it with
// [WidenOutputSchema] (or register with [AddTool], which does), so that
// clients that validate structured content accept the descriptor.
//
// Wrap panics if opts is invalid (see [Options.Validate]). The returned
// handler is safe for concurrent use if h is.
func Wrap(h mcp.ToolHandler, opts *Options) mcp.ToolHandler {
	base := mustConfig(opts)
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		c := base.forTool(toolName(req))
		if c.Disabled || c.bypass(req) {
			return h(ctx, req)
		}
		ctx, slot := withSlot(ctx)
		res, err := h(ctx, req)
		if err != nil || res == nil {
			return res, err
		}
		c.apply(ctx, req, res, slot.get(), nil)
		return res, nil
	}
}

// WidenOutputSchema returns an output schema that accepts what schema accepts
// and also an offload descriptor. Use it for a tool registered with
// [mcp.Server.AddTool] whose handler is wrapped with [Wrap]. A nil schema
// gives nil.
func WidenOutputSchema(schema any) (any, error) {
	w, err := descriptor.WidenOutputSchema(schema)
	if err != nil || w == nil {
		return nil, err
	}
	return w, nil
}

// callArgs are the arguments of a call that the header and descriptor use.
type callArgs struct {
	query  *string
	detail recipes.Detail
}

func (c *config) args(req *mcp.CallToolRequest) callArgs {
	a := callArgs{detail: c.DefaultDetail}
	if req == nil || req.Params == nil || len(req.Params.Arguments) == 0 {
		return a
	}
	if q := jsonscan.Lookup(req.Params.Arguments, c.QueryArgument); q != nil {
		var s string
		if json.Unmarshal(q, &s) == nil {
			a.query = &s
		}
	}
	if d := jsonscan.Lookup(req.Params.Arguments, c.DetailArgument); d != nil {
		var s string
		if json.Unmarshal(d, &s) == nil && s != "" {
			if detail, err := recipes.ParseDetail(s); err == nil {
				a.detail = detail
			}
		}
	}
	return a
}

func toolName(req *mcp.CallToolRequest) string {
	if req == nil || req.Params == nil {
		return ""
	}
	return req.Params.Name
}

// apply decides whether to offload the result of one call and, if so,
// rewrites res in place (in place, so that fields the SDK set, such as the
// protocol's resultType, survive). typedOut, when not nil, is the JSON of a
// typed tool's output value, which stands for the structured content. It
// returns the new structured content, or nil when res is unchanged.
func (c *config) apply(ctx context.Context, req *mcp.CallToolRequest, res *mcp.CallToolResult, provided *ResultSet, typedOut []byte) json.RawMessage {
	if res.IsError {
		return nil
	}
	var rs *recordSet
	var err error
	switch {
	case provided != nil:
		rs, err = recordsFromProvided(*provided)
	case typedOut != nil:
		if c.quickEstimate(typedOut) <= c.ThresholdTokens {
			return nil
		}
		if _, ok := textOnly(res.Content); !ok {
			return nil
		}
		// The output as encoding/json wrote it: valid, so only its records
		// array is walked.
		rs, err = recordsFromDoc(typedOut, c.RecordsField)
		if rs != nil {
			rs.structured = true
			if rs.docArray != nil {
				_, err = c.gather(rs)
			}
		}
	default:
		texts, ok := textOnly(res.Content)
		if !ok {
			return nil
		}
		if !c.mayExceed(texts, res.StructuredContent) {
			return nil
		}
		rs, err = c.findRecords(res)
	}
	if err != nil || rs == nil {
		// Records that cannot be read are not ours to judge: the result goes
		// out as the handler made it.
		return nil
	}
	defer rs.release()
	count, tokens, err := c.measure(rs)
	if err != nil || tokens <= c.ThresholdTokens {
		return nil
	}
	if rs.elemType == nil && c.RecordType != nil {
		rs.elemType = c.RecordType
	}
	a := c.args(req)
	op := c.Operation
	if op == "" {
		op = toolName(req)
	}
	_, data, werr := c.offload(ctx, toolName(req), op, a, rs, count, tokens)
	if werr != nil {
		structured := c.fallback(ctx, toolName(req), op, res, rs, count, tokens, werr)
		if provided != nil {
			// The text now holds the provided set, truncated; the handler's
			// own structured result must not carry more than the threshold
			// either.
			structured = c.truncateStructured(res, typedOut)
		}
		return structured
	}
	res.Content = []mcp.Content{&mcp.TextContent{Text: string(data)}}
	res.StructuredContent = json.RawMessage(data)
	return data
}

// minBytesPerToken is the fewest bytes of UTF-8 text that the heuristic
// estimates at one token: a token per four characters at most, and four
// bytes per character at most, so len(text)/16 never exceeds its estimate.
const minBytesPerToken = 16

// textTokens estimates the tokens of s, without copying it for the built-in
// heuristic.
func (c *config) textTokens(s string) int {
	if _, ok := c.Tokenizer.(estimate.Heuristic); ok {
		return estimate.Tokens(s)
	}
	return c.Tokenizer.Tokens([]byte(s))
}

// quickEstimate estimates the tokens of a whole encoded result.
func (c *config) quickEstimate(data []byte) int { return c.Tokenizer.Tokens(data) }

// mayExceed is the fast path: a result whose whole text is within the
// threshold cannot hold a result set above it.
func (c *config) mayExceed(texts []string, structured any) bool {
	_, heuristic := c.Tokenizer.(estimate.Heuristic)
	total := 0
	for _, t := range texts {
		if heuristic && len(t)/minBytesPerToken > c.ThresholdTokens {
			return true // no need to count
		}
		total += c.textTokens(t)
		if total > c.ThresholdTokens {
			return true
		}
	}
	if len(texts) == 0 && structured != nil {
		data, err := structuredJSON(structured)
		return err == nil && c.quickEstimate(data) > c.ThresholdTokens
	}
	return false
}

// measure counts the records and estimates their tokens, each as the compact
// line it will be in the file.
func (c *config) measure(rs *recordSet) (count, tokens int, err error) {
	if rs.measured {
		return rs.count, rs.tokens, nil
	}
	err = rs.eachLine(func(line []byte) error {
		count++
		tokens += c.Tokenizer.Tokens(line)
		return nil
	})
	return count, tokens, err
}

// sampleSize is how many leading records feed the recipes' parameter values
// (a value seen in them is in the file, which is all a default needs).
const sampleSize = recipes.SampleSize

// tally gathers the summary's statistics while the file is written.
type tally struct {
	schema     *descriptor.Inferrer // nil when the schema is not inferred
	namespaces map[string]*int      // a pointer, so counting allocates nothing
	minScore   float64
	maxScore   float64
	scores     int
	sample     []json.RawMessage
}

func (t *tally) add(rec []byte) {
	t.keep(rec)
	if t.schema != nil {
		t.schema.AddFields(rec, t.field)
		return
	}
	if jsonscan.Kind(rec) == '{' {
		_ = jsonscan.Fields(rec, func(f jsonscan.Field) error {
			t.field(f.Key, f.Value)
			return nil
		})
	}
}

// keep keeps a copy of line when the sample is not full yet.
func (t *tally) keep(line []byte) {
	if len(t.sample) < sampleSize {
		t.sample = append(t.sample, json.RawMessage(bytes.Clone(line)))
	}
}

// field notes the top-level fields the summary reports: namespace and score.
func (t *tally) field(key, value []byte) {
	switch string(key) {
	case "namespace":
		if len(value) > 2 && value[0] == '"' && bytes.IndexByte(value, '\\') < 0 {
			// The common case: the raw bytes are the name; no allocation
			// for a namespace seen before.
			if n := t.namespaces[string(value[1:len(value)-1])]; n != nil {
				*n++
				return
			}
		}
		if ns, ok := jsonString(value); ok && ns != "" {
			if t.namespaces == nil {
				t.namespaces = map[string]*int{}
			}
			if n := t.namespaces[ns]; n != nil {
				*n++
			} else {
				t.namespaces[ns] = new(int)
				*t.namespaces[ns] = 1
			}
		}
	case "score":
		// A JSON number is in ParseFloat's syntax, and both refuse the
		// same out-of-range values.
		if jsonscan.Kind(value) == '-' || isDigit(jsonscan.Kind(value)) {
			if v, err := strconv.ParseFloat(string(value), 64); err == nil {
				t.addScore(v)
			}
		}
	}
}

// then adds the statistics of the records of next, which follow those of t.
func (t *tally) then(next *tally) {
	if t.schema != nil && next.schema != nil {
		t.schema.Merge(next.schema)
	}
	for ns, n := range next.namespaces {
		if m := t.namespaces[ns]; m != nil {
			*m += *n
			continue
		}
		if t.namespaces == nil {
			t.namespaces = map[string]*int{}
		}
		t.namespaces[ns] = n
	}
	if next.scores > 0 {
		t.addScore(next.minScore)
		t.addScore(next.maxScore)
		t.scores += next.scores - 2
	}
	for _, line := range next.sample {
		if len(t.sample) >= sampleSize {
			break
		}
		t.sample = append(t.sample, line)
	}
}

// jsonString decodes the JSON string v, without encoding/json when it has no
// escapes (the common case).
func jsonString(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(v, '\\') < 0 {
		return string(v[1 : len(v)-1]), true
	}
	var s string
	err := json.Unmarshal(v, &s)
	return s, err == nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func (t *tally) addScore(f float64) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return // not a score a range can show (JSON has no such number)
	}
	if t.scores == 0 || f < t.minScore {
		t.minScore = f
	}
	if t.scores == 0 || f > t.maxScore {
		t.maxScore = f
	}
	t.scores++
}

// topNamespaces returns up to five namespaces, most frequent first, ties in
// name order.
func (t *tally) topNamespaces() []string {
	names := make([]string, 0, len(t.namespaces))
	for ns := range t.namespaces {
		names = append(names, ns)
	}
	sort.Slice(names, func(i, j int) bool {
		ci, cj := *t.namespaces[names[i]], *t.namespaces[names[j]]
		if ci != cj {
			return ci > cj
		}
		return names[i] < names[j]
	})
	if len(names) > 5 {
		names = names[:5]
	}
	return names
}

func (t *tally) scoreRange() *[2]float64 {
	if t.scores == 0 {
		return nil
	}
	return &[2]float64{t.minScore, t.maxScore}
}

// wantsSchema reports whether descriptors carry a line schema.
func (c *config) wantsSchema() bool {
	return c.Profile == ProfileFull || c.Profile == ProfileNoRecipes
}

// offload writes the records to a new file and builds the descriptor, and
// returns it with its JSON encoding.
func (c *config) offload(ctx context.Context, tool, op string, a callArgs, rs *recordSet, count, tokens int) (*descriptor.OffloadResponse, []byte, error) {
	start := c.Now()
	w, err := jsonl.Create(op, &jsonl.Options{Dir: c.dir, Prefix: c.Prefix, Now: c.Now, WrapWriter: c.WrapWriter})
	if err != nil {
		return nil, nil, err
	}
	defer w.Abort() // no-op after a successful Commit
	err = w.WriteHeader(jsonl.Header{
		Operation:       jsonl.SanitizeOperation(op),
		Query:           a.query,
		Count:           count,
		SchemaVersion:   c.SchemaVersion,
		EstimatedTokens: tokens,
		Detail:          string(a.detail),
	})
	if err != nil {
		return nil, nil, err
	}
	in := descriptor.Input{
		Path:            w.Path(),
		Operation:       jsonl.SanitizeOperation(op),
		Detail:          string(a.detail),
		Count:           count,
		EstimatedTokens: tokens,
	}
	elemType := structType(rs.elemType)
	wantSchema := c.wantsSchema()
	var d *described
	if t := rs.tally; t != nil {
		// Gathered while the records were validated: the descriptor is
		// built on another core while the file is written, which is mostly
		// the kernel's work.
		done := make(chan struct{})
		go func() {
			defer close(done)
			d = c.describe(in, a, t, rs.scores(), elemType)
		}()
		err = rs.eachLine(w.WriteValidRecord)
		if err == nil {
			err = w.Commit()
		}
		<-done
	} else {
		// A list of records (handed over with Provide, text lines, or one
		// record): the statistics are gathered while it is written.
		var t *tally
		t, err = c.writeRecords(w, rs, wantSchema && elemType == nil)
		if err == nil {
			err = w.Commit()
		}
		if err == nil {
			d = c.describe(in, a, t, rs.scores(), elemType)
		}
	}
	if err != nil {
		return nil, nil, err
	}
	if d.err != nil {
		// No descriptor, no pointer to the file: it goes.
		_ = os.Remove(in.Path)
		return nil, nil, d.err
	}
	event.Emit(ctx, c.Observer, event.Offloaded{
		Tool:            tool,
		Operation:       in.Operation,
		Path:            in.Path,
		Count:           count,
		EstimatedTokens: tokens,
		ThresholdTokens: c.ThresholdTokens,
		Detail:          in.Detail,
		Bytes:           w.Size(),
		Duration:        c.Now().Sub(start),
	})
	return &d.resp, d.data, nil
}

// writeRecords writes the records of rs to w, gathering the summary's
// statistics, and the records' schema when infer is true.
func (c *config) writeRecords(w *jsonl.Writer, rs *recordSet, infer bool) (*tally, error) {
	t := &tally{}
	if infer {
		t.schema = &descriptor.Inferrer{}
	}
	err := rs.eachLine(func(line []byte) error {
		t.add(line)
		return w.WriteValidRecord(line)
	})
	return t, err
}

// described is an offload's descriptor and its JSON encoding.
type described struct {
	resp descriptor.OffloadResponse
	data []byte
	err  error
}

// describe builds the descriptor of an offload from in, which holds what
// the file's header holds, and t, the records' statistics. provided are the
// scores handed over with Provide, if any; elemType is the records' struct
// type, or nil when their schema is inferred.
func (c *config) describe(in descriptor.Input, a callArgs, t *tally, provided []float64, elemType reflect.Type) *described {
	if provided != nil {
		t.scores = 0
		for _, s := range provided {
			t.addScore(s)
		}
	}
	in.TopNamespaces = t.topNamespaces()
	in.ScoreRange = t.scoreRange()
	if c.ExtractTools {
		in.Guidance = extract.Guidance
	}
	switch {
	case !c.wantsSchema():
	case elemType != nil:
		in.LineSchema, _ = reflectedSchema(elemType) // cached by structType
	default:
		in.LineSchema = t.schema.Schema()
	}
	var isMemory bool
	in.Recipes, isMemory = recipes.Select(a.detail, t.sample)
	if isMemory {
		in.Noun = "memories"
	}
	d := &described{resp: descriptor.Build(in, c.Profile)}
	d.data, d.err = json.Marshal(d.resp)
	return d
}

var reflectedSchemas sync.Map // reflect.Type -> map[string]any

// structType returns the struct type of records of Go type t (through
// pointers), or nil when t is not a struct type or cannot be reflected, so the
// schema is inferred from the records instead.
func structType(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	if _, err := reflectedSchema(t); err != nil {
		return nil
	}
	return t
}

// reflectedSchema returns the line schema of struct type t, reflected once
// and cached.
func reflectedSchema(t reflect.Type) (map[string]any, error) {
	if s, ok := reflectedSchemas.Load(t); ok {
		return s.(map[string]any), nil
	}
	s, err := descriptor.Reflect(t)
	if err != nil {
		return nil, err
	}
	reflectedSchemas.Store(t, s)
	return s, nil
}

// fallback shows as many whole records as fit within the threshold, with a
// warning, when the file could not be written.
func (c *config) fallback(ctx context.Context, tool, op string, res *mcp.CallToolResult, rs *recordSet, count, tokens int, werr error) json.RawMessage {
	kept, used := c.keepWithin(rs)
	warning := fmt.Sprintf("Warning: offloading the result to a file failed (%v), so it is truncated: showing %d of %d records (~%d of ~%d tokens). The remaining records were not saved; narrow the query to see them.",
		werr, len(kept), count, used, tokens)
	var body []byte
	var structured json.RawMessage
	switch {
	case rs.docArray != nil:
		body = spliceArray(rs, kept)
		if rs.structured {
			structured = body
		}
	case rs.lines:
		var b strings.Builder
		for i, r := range kept {
			var l textLine
			_ = json.Unmarshal(r, &l)
			if i > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(l.Text)
		}
		body = []byte(b.String())
	default:
		body = appendArray(body, kept)
	}
	res.Content = []mcp.Content{&mcp.TextContent{Text: warning}, &mcp.TextContent{Text: string(body)}}
	if structured != nil {
		res.StructuredContent = structured
	}
	event.Emit(ctx, c.Observer, event.WriteFailed{
		Tool:            tool,
		Operation:       jsonl.SanitizeOperation(op),
		Dir:             c.dir,
		Count:           count,
		Shown:           len(kept),
		EstimatedTokens: tokens,
		Err:             werr,
	})
	return structured
}

// keepWithin returns the leading records of rs that fit within the
// threshold together, and their tokens.
func (c *config) keepWithin(rs *recordSet) (kept [][]byte, used int) {
	_ = rs.eachLine(func(line []byte) error {
		n := c.Tokenizer.Tokens(line)
		if used+n > c.ThresholdTokens {
			return errStop
		}
		used += n
		kept = append(kept, bytes.Clone(line)) // line may be reused by the next call
		return nil
	})
	return kept, used
}

// spliceArray returns the document of rs with its records array replaced by
// the records kept.
func spliceArray(rs *recordSet, kept [][]byte) []byte {
	body := append([]byte(nil), rs.doc[:rs.arrayStart]...)
	body = appendArray(body, kept)
	return append(body, rs.doc[rs.arrayEnd:]...)
}

// truncateStructured cuts the handler's own structured result beside a
// provided set (typedOut for a typed tool, else res.StructuredContent) to
// the whole records of its array that fit within the threshold, when it is
// above the threshold. It returns the new structured content of a typed tool,
// or nil when the result is left as it is: within the threshold, or without
// an array to cut.
func (c *config) truncateStructured(res *mcp.CallToolResult, typedOut []byte) json.RawMessage {
	doc := typedOut
	if doc == nil {
		if res.StructuredContent == nil {
			return nil
		}
		var err error
		if doc, err = structuredJSON(res.StructuredContent); err != nil {
			return nil
		}
	}
	if c.quickEstimate(doc) <= c.ThresholdTokens {
		return nil
	}
	rs, err := recordsFromDoc(doc, c.RecordsField)
	if err != nil || rs == nil || rs.docArray == nil {
		return nil
	}
	defer rs.release()
	kept, _ := c.keepWithin(rs)
	body := json.RawMessage(spliceArray(rs, kept))
	res.StructuredContent = body
	if typedOut == nil {
		return nil
	}
	return body
}

var errStop = errors.New("stop")

// appendArray appends the JSON array of the encoded records to b.
func appendArray(b []byte, records [][]byte) []byte {
	b = append(b, '[')
	for i, r := range records {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, r...)
	}
	return append(b, ']')
}
