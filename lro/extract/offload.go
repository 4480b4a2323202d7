package extract

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"unsafe"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro/descriptor"
	"github.com/zircote/lro-go/lro/event"
	"github.com/zircote/lro-go/recipes"
)

// extractOperation names the operation of a file that holds an extraction
// result.
const extractOperation = "extract"

// answer turns the results of lro_extract into the tool result. Results
// within the threshold are shown inline, one per line. Larger results are
// offloaded in turn, like the result they were extracted from, so that no
// result is ever dumped into the context or silently cut: the answer is a
// descriptor of the new file, which the same tools can query. Only if that
// write fails is the result cut to the whole results that fit, with a
// warning that says so.
func (c *config) answer(ctx context.Context, src *source, filter string, res *results) *mcp.CallToolResult {
	note := res.describeErrors()
	if len(res.spans) == 0 {
		msg := fmt.Sprintf("No results: the filter produced no output on %d records.", res.records)
		if res.errs > 0 {
			r := textResult(msg + " " + note)
			r.IsError = true
			return r
		}
		return textResult(msg)
	}
	tokens := c.Tokenizer.Tokens(res.outputBytes())
	if tokens <= c.ThresholdTokens {
		return textResult(res.output(), note)
	}
	desc, err := c.offload(ctx, src, filter, res, tokens)
	if err != nil {
		return c.truncated(ctx, res, tokens, err, note)
	}
	data, _ := json.Marshal(desc)
	lead := fmt.Sprintf("The result (%d results, ~%d tokens) is above the %d-token threshold, so it was written to a new offloaded file instead of shown here; the descriptor below tells how to query it.",
		len(res.spans), tokens, c.ThresholdTokens)
	if note != "" {
		lead += "\n" + note
	}
	return textResult(lead, string(data))
}

// appendRecord appends result i to buf as one JSON value: raw strings are
// quoted again. A result that is JSON already is returned as it is in
// r.buf, without a copy.
func (r *results) appendRecord(buf []byte, i int) []byte {
	if !r.spans[i].raw {
		return r.text(i)
	}
	text := r.text(i)
	// A view of the text as a string, for appendString: r.buf does not
	// change while it is used.
	return appendString(buf, unsafe.String(unsafe.SliceData(text), len(text)))
}

// offload writes the results to a new file in the output folder and returns
// its descriptor, built as the offloader builds one.
func (c *config) offload(ctx context.Context, src *source, filter string, res *results, tokens int) (*descriptor.OffloadResponse, error) {
	start := c.Now()
	w, err := c.create(extractOperation, &jsonl.Options{Dir: c.Dir, Prefix: c.Prefix, Now: c.Now})
	if err != nil {
		return nil, err
	}
	defer w.Abort()
	h := src.header
	err = w.WriteHeader(jsonl.Header{
		Operation:       extractOperation,
		Query:           &filter,
		Count:           len(res.spans),
		SchemaVersion:   h.SchemaVersion,
		EstimatedTokens: tokens,
		Detail:          h.Detail,
	})
	if err != nil {
		return nil, err
	}
	var schema descriptor.Inferrer
	var sample []json.RawMessage
	var ns namespaceCount
	var buf []byte
	for i := range res.spans {
		rec := res.appendRecord(buf[:0], i)
		if res.spans[i].raw {
			buf = rec // reused for the next raw result
		}
		if err := w.WriteValidRecord(rec); err != nil {
			return nil, err
		}
		ns.value = nil
		schema.AddFields(rec, ns.field)
		ns.count()
		if len(sample) < recipes.SampleSize {
			sample = append(sample, json.RawMessage(bytes.Clone(rec)))
		}
	}
	if err := w.Commit(); err != nil {
		return nil, err
	}
	in := descriptor.Input{
		Path:            w.Path(),
		Operation:       extractOperation,
		Detail:          h.Detail,
		Count:           len(res.spans),
		EstimatedTokens: tokens,
		TopNamespaces:   ns.top(5),
		LineSchema:      schema.Schema(),
		Recipes:         recipes.For(recipes.Detail(h.Detail), sample),
		Guidance:        Guidance,
	}
	if recipes.IsMemory(sample) {
		in.Noun = "memories"
	}
	desc := descriptor.Build(in, descriptor.ProfileFull)
	event.Emit(ctx, c.Observer, event.Offloaded{
		Tool:            ToolExtract,
		Operation:       extractOperation,
		Path:            in.Path,
		Count:           in.Count,
		EstimatedTokens: tokens,
		ThresholdTokens: c.ThresholdTokens,
		Detail:          h.Detail,
		Bytes:           w.Size(),
		Duration:        c.Now().Sub(start),
	})
	return &desc, nil
}

// truncated shows the whole results that fit within the threshold, with a
// warning, when the result could not be offloaded.
func (c *config) truncated(ctx context.Context, res *results, tokens int, werr error, note string) *mcp.CallToolResult {
	used, shown := 0, 0
	for i := range res.spans {
		n := c.Tokenizer.Tokens(res.text(i))
		if used+n > c.ThresholdTokens {
			break
		}
		used += n
		shown++
	}
	end := 0
	if shown > 0 {
		end = res.spans[shown-1].end
	}
	event.Emit(ctx, c.Observer, event.WriteFailed{
		Tool:            ToolExtract,
		Operation:       extractOperation,
		Dir:             c.Dir,
		Count:           len(res.spans),
		Shown:           shown,
		EstimatedTokens: tokens,
		Err:             werr,
	})
	warning := fmt.Sprintf("Warning: the result (~%d tokens) is above the %d-token threshold and writing it to a file failed (%v), so it is truncated: showing %d of %d results (~%d tokens). Narrow the query to see the rest.",
		tokens, c.ThresholdTokens, werr, shown, len(res.spans), used)
	return textResult(warning, string(res.buf[:end]), note)
}

// namespaceCount counts the namespaces of the records: the string value of
// the first top-level member "namespace" of each object record, if not
// empty.
type namespaceCount struct {
	counts map[string]*int // a pointer, so counting allocates nothing
	value  []byte          // the value of the current record, as written
}

// field is the callback of descriptor.Inferrer.AddFields.
func (c *namespaceCount) field(key, value []byte) {
	if c.value == nil && string(key) == "namespace" {
		c.value = value
	}
}

// count counts the namespace of the current record.
func (c *namespaceCount) count() {
	v := c.value
	if v == nil {
		return
	}
	if len(v) > 2 && v[0] == '"' && bytes.IndexByte(v, '\\') < 0 {
		// The common case: the raw bytes are a name seen before (a name
		// with invalid UTF-8 is never in the table: it is decoded below).
		if n := c.counts[string(v[1:len(v)-1])]; n != nil {
			*n++
			return
		}
	}
	var s string
	if json.Unmarshal(v, &s) != nil || s == "" {
		return
	}
	if c.counts == nil {
		c.counts = map[string]*int{}
	}
	if n := c.counts[s]; n != nil {
		*n++
	} else {
		c.counts[s] = new(int)
		*c.counts[s] = 1
	}
}

// top returns up to n namespaces, most frequent first, ties in name order.
func (c *namespaceCount) top(n int) []string {
	counts := c.counts
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if *counts[keys[i]] != *counts[keys[j]] {
			return *counts[keys[i]] > *counts[keys[j]]
		}
		return keys[i] < keys[j]
	})
	if len(keys) > n {
		keys = keys[:n]
	}
	return keys
}
