package offload

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/disk"
	"github.com/zircote/lro-go/internal/tabular"
	"github.com/zircote/lro-go/lro/event"
)

// notice is the structured content of a fallback that cannot show a part of
// the tool's own: the boolean "offloaded" of a widened output schema's second
// branch (internal/outschema).
const notice = `{"offloaded":false}`

// fallback rewrites res, whose file could not be written, into as many whole
// leading records as fit within the threshold, with a warning that says how
// many are shown. All it sends fits, when the threshold can hold the warning.
func (c *Config) fallback(ctx context.Context, call Call, res *mcp.CallToolResult, r *result, p *plan, werr error) {
	total := p.count()
	s := c.shower(r, p)
	var fb fallbackResponse
	// The full warning, which names the error, unless it does not fit.
	for _, short := range []bool{false, true} {
		warning := func(shown, used int) string {
			if short {
				return fmt.Sprintf("Warning: offload failed; truncated to %d of %d records.", shown, total)
			}
			return fmt.Sprintf("Warning: writing the result to a file failed (%s), so it is truncated: showing %d of %d records (~%d of ~%d tokens). The rest was not saved; narrow the call to see it.",
				reason(werr), shown, total, used, p.tokens)
		}
		// As many records as a binary search finds (showing fewer never
		// costs more); none of the document when not even it fits.
		try := func(k int) fallbackResponse { return c.fallbackWith(s, k, r.structured != nil, warning) }
		if fb = try(0); fb.used > c.Threshold {
			fb = c.fallbackWith(shower{}, 0, r.structured != nil, warning)
		} else {
			fb = try(sort.Search(len(s.records), func(k int) bool { return try(k+1).used > c.Threshold }))
		}
		if fb.used <= c.Threshold {
			break
		}
	}
	res.Content = withMedia(fb.content, r)
	res.StructuredContent = nil
	if fb.structured != nil {
		res.StructuredContent = json.RawMessage(fb.structured)
	}
	emit(ctx, c.Observer, event.WriteFailed{
		Tool:            call.Tool,
		Operation:       disk.SanitizeOperation(call.Operation),
		Count:           total,
		EstimatedTokens: p.tokens,
		Err:             werr,
	})
}

// fallbackResponse is a fallback's content and structured content, and
// their tokens.
type fallbackResponse struct {
	content    []mcp.Content
	structured []byte
	used       int // tokens of everything sent
}

// fallbackWith builds the fallback that shows the first k records with s.
func (c *Config) fallbackWith(s shower, k int, hasStructured bool, warning func(shown, used int) string) fallbackResponse {
	var body, sc []byte
	if s.show != nil {
		body, sc = s.show(k)
	}
	if hasStructured && (sc == nil || c.Accepts != nil && !c.Accepts(sc)) {
		sc = []byte(notice)
	}
	fb, shown := fallbackResponse{structured: sc}, k
	if body == nil {
		shown = 0
	}
	var text string
	// The warning's figures change its own size: settle them.
	for range 5 {
		text = warning(shown, fb.used)
		n := c.textTokens(text) + c.Tokenizer.Tokens(body) + c.Tokenizer.Tokens(sc)
		if n == fb.used {
			break
		}
		fb.used = n
	}
	fb.content = []mcp.Content{&mcp.TextContent{Text: text}}
	if body != nil {
		fb.content = append(fb.content, &mcp.TextContent{Text: string(body)})
	}
	return fb
}

// A shower shows the first k of its records in the shape they came in.
type shower struct {
	records [][]byte // the records it can show
	// show returns the body showing the first k records, and the
	// structured content when the body is also that.
	show func(k int) (body, structured []byte)
}

// shower returns how the records of p are shown in a fallback: the first
// run's, in their document. Every record costs a token: no more than the
// threshold's worth are read.
func (c *Config) shower(r *result, p *plan) shower {
	limit := min(c.Threshold, math.MaxInt-1) + 1
	if len(p.runs) == 0 {
		return shower{}
	}
	ru := p.runs[0]
	var recs [][]byte
	switch {
	case ru.rows != nil: // a table's, or a provided set's, whose document is its array
		recs = ru.rows[:min(len(ru.rows), limit)]
	case ru.As == asArray:
		var buf []byte
		_ = eachElement(ru.doc[ru.start:ru.end], func(elem []byte) error {
			if len(recs) == limit {
				return errEnough
			}
			line, err := compactLine(elem, &buf)
			if err != nil {
				return err
			}
			recs = append(recs, bytes.Clone(line))
			return nil
		})
	case ru.As == asLines:
		for l := range strings.SplitSeq(ru.text, "\n") {
			if len(recs) == min(ru.Count, limit) {
				break
			}
			recs = append(recs, []byte(l)) // a copy: a Tokenizer may not be given a string's bytes
		}
	default:
		return shower{}
	}
	return shower{records: recs, show: func(k int) ([]byte, []byte) {
		switch {
		case ru.As == asArray:
			body := ru.with(recs[:k])
			if strings.HasPrefix(ru.At, "/structuredContent") {
				return body, body
			}
			return body, nil
		case k == 0:
			return nil, nil
		case ru.As == asLines:
			return bytes.Join(recs[:k], []byte{'\n'}), nil
		}
		text, _ := tabular.Print(nil, ru.As, ru.Layout, recs[:k]) // printed whole when read: cannot fail
		return text, nil
	}}
}

// errEnough stops a walk over the records that has what it needs.
var errEnough = errors.New("offload: enough records")
