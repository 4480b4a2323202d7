package extract

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro/internal/janitor"
	"github.com/zircote/lro-go/lro/internal/offload"
	"github.com/zircote/lro-go/recipes"
)

// answer turns the results of lro_extract into the tool result: inline
// within the threshold, else offloaded in turn through the pipeline of any
// tool result (cut with a warning if that write fails). It also reports
// whether the answer was offloaded.
func (c *config) answer(ctx context.Context, h jsonl.Header, filter string, res *results) (*mcp.CallToolResult, bool) {
	note := "" // on the errors the program raised
	if res.Errs > 0 {
		note = fmt.Sprintf("The query raised an error on %d of %d inputs (jq goes on with the next input after an error, and so does lro_extract); the first, %s", res.Errs, max(res.Records, 1), res.FirstErr)
	}
	if len(res.Spans) == 0 {
		msg := fmt.Sprintf("No results: the filter produced no output on %d records. %s", res.Records, note)
		r := textResult(strings.TrimSpace(msg))
		r.IsError = res.Errs > 0
		return r, false
	}
	out := textResult(res.output(), note)
	records := make([][]byte, len(res.Spans))
	for i := range res.Spans {
		records[i] = res.text(i)
	}
	call := offload.Call{Tool: toolExtract, Operation: "extract", Query: &filter, Detail: recipes.Detail(h.Detail)}
	o := c.core(h.SchemaVersion).Apply(ctx, func() offload.Call { return call }, out, nil, &offload.Set{Records: records})
	if !o.Changed() {
		return out, false
	}
	if o.Offloaded {
		lead := fmt.Sprintf("The result (%d results) is above the %d-token threshold, so it was written to a new offloaded file instead of shown here; the descriptor below tells how to query it.",
			len(res.Spans), c.ThresholdTokens)
		out.Content = append([]mcp.Content{&mcp.TextContent{Text: lead}}, out.Content...)
	}
	if note != "" {
		out.Content = append(out.Content, &mcp.TextContent{Text: note})
	}
	return out, o.Offloaded
}

// core returns the offload pipeline of the tools' answers.
func (c *config) core(schemaVersion string) *offload.Config {
	return offload.New(offload.Config{
		Threshold:     c.ThresholdTokens,
		Dir:           c.Dir,
		Store:         c.Store,
		Prefix:        c.Prefix,
		SchemaVersion: schemaVersion,
		Tokenizer:     c.Tokenizer,
		// An offloaded answer starts the janitor, as lro's decorator does:
		// it is deleted at its expiry even in a server that offloads nothing
		// else (a replica, or one restarted since the file it queries).
		Observer: janitor.Observer{Options: c.sweep, Interval: c.sweepInterval, Next: c.Observer},
		Create:   c.create,
		Native:   true,
	})
}
