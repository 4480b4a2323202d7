package offload

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/jsonlfile"
	"github.com/zircote/lro-go/internal/tabular"
	"github.com/zircote/lro-go/lro/event"
)

// notice is the structured content of a fallback that cannot show a part of
// the tool's own structured content: the descriptor schema's other branch,
// so that it is valid under the widened output schema.
const notice = `{"offloaded":false}`

// fallback rewrites res, whose file could not be written, into as many
// whole leading records as fit within the threshold, with a warning that
// says how many are shown. Everything it sends (texts and structured
// content) is within the threshold, whenever the threshold can hold the
// warning at all.
func (c *Config) fallback(ctx context.Context, call Call, res *mcp.CallToolResult, r *result, p *plan, werr error) {
	total := p.count()
	s := c.shower(r, p)
	var fb fallbackResponse
	// The full warning, which names the error, is preferred; the short one
	// only when the threshold cannot hold the full one.
	for _, short := range []bool{false, true} {
		fb = c.fallbackFit(s, r, werr, total, p.tokens, short)
		if fb.used <= c.Threshold {
			break
		}
	}
	for _, it := range r.items {
		if it.media {
			fb.content = append(fb.content, it.item)
		}
	}
	res.Content = fb.content
	res.StructuredContent = nil
	if fb.structured != nil {
		res.StructuredContent = json.RawMessage(fb.structured)
	}
	emit(ctx, c.Observer, event.WriteFailed{
		Tool:            call.Tool,
		Operation:       jsonlfile.SanitizeOperation(call.Operation),
		Dir:             c.Dir,
		Count:           total,
		Shown:           fb.shown,
		EstimatedTokens: p.tokens,
		Err:             werr,
	})
}

// fallbackResponse is a fallback's content and structured content, and what
// they cost.
type fallbackResponse struct {
	content    []mcp.Content
	structured []byte
	shown      int
	used       int // tokens of everything sent
}

// fallbackFit returns the fallback that shows the most records within the
// threshold. The most records that fit is found by halving: showing fewer
// never costs more. When not even the document around the records fits,
// none of it is shown.
func (c *Config) fallbackFit(s shower, r *result, werr error, total, tokens int, short bool) fallbackResponse {
	try := func(k int) fallbackResponse { return c.fallbackWith(s, k, r, werr, total, tokens, short) }
	best := try(0)
	if best.used > c.Threshold {
		return c.fallbackWith(emptyShower{}, 0, r, werr, total, tokens, short)
	}
	// The records' own estimates only guess where the limit is (an
	// estimate of a whole text is not the sum of its parts'): grow from the
	// guess while it fits, then halve between the last fit and the first
	// miss.
	n := s.count()
	lo, hi := 0, min(max(s.most(c, r.structured != nil), 1), n)
	for {
		f := try(hi)
		if f.used > c.Threshold {
			break
		}
		lo, best = hi, f
		if hi == n {
			return best
		}
		hi = min(2*hi, n)
	}
	for lo < hi-1 {
		mid := (lo + hi) / 2
		if f := try(mid); f.used <= c.Threshold {
			lo, best = mid, f
		} else {
			hi = mid
		}
	}
	return best
}

// fallbackWith builds the fallback that shows the first k records with s.
func (c *Config) fallbackWith(s shower, k int, r *result, werr error, total, tokens int, short bool) fallbackResponse {
	body, sc := s.show(k)
	if r.structured != nil && sc == nil {
		sc = []byte(notice)
	}
	fb := fallbackResponse{structured: sc, shown: k}
	if body == nil {
		fb.shown = 0
	}
	var warning string
	// The warning's figures change its own size: settle them.
	for range 5 {
		warning = c.warning(werr, fb.shown, total, fb.used, tokens, short)
		n := c.textTokens(warning) + c.Tokenizer.Tokens(body) + c.Tokenizer.Tokens(sc)
		if n == fb.used {
			break
		}
		fb.used = n
	}
	fb.content = []mcp.Content{&mcp.TextContent{Text: warning}}
	if body != nil {
		fb.content = append(fb.content, &mcp.TextContent{Text: string(body)})
	}
	return fb
}

// warning says that offloading failed and how much of the result is shown.
func (c *Config) warning(werr error, shown, total, used, tokens int, short bool) string {
	if short {
		return fmt.Sprintf("Warning: offload failed; truncated to %d of %d records.", shown, total)
	}
	return fmt.Sprintf("Warning: writing the result to a file failed (%v), so it is truncated: showing %d of %d records (~%d of ~%d tokens). The rest was not saved; narrow the call to see it.",
		werr, shown, total, used, tokens)
}

// A shower shows the first k records of a result in its own shape.
type shower interface {
	// most guesses how many records fit, by their own estimates (counted
	// twice when the body is also the structured content).
	most(c *Config, twice bool) int
	// count is the number of records it can show.
	count() int
	// show returns the body text showing the first k records, and the
	// structured content when the body is also that; nil for none.
	show(k int) (body, structured []byte)
}

// shower returns how the records of p are shown in a fallback: the first
// stretch of records, in the document they came from.
//
// Every record costs at least a token, so no more than the threshold's worth
// of records can be shown: only those are read, whatever the record count.
func (c *Config) shower(r *result, p *plan) shower {
	limit := c.Threshold + 1
	if p.provided != nil {
		return &listShower{records: p.provided[:min(len(p.provided), limit)]}
	}
	if len(p.runs) == 0 {
		return emptyShower{}
	}
	ru := p.runs[0]
	switch ru.as {
	case asArray:
		var recs [][]byte
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
		return &arrayShower{ru: ru, records: recs, structured: strings.HasPrefix(ru.at, "/structuredContent")}
	case asLines:
		lines := strings.SplitN(ru.text, "\n", limit+1)
		return &lineShower{lines: lines[:min(len(lines), ru.count, limit)]}
	case asRows:
		return &rowShower{ru: ru, records: ru.rows[:min(len(ru.rows), limit)]}
	}
	return emptyShower{}
}

// errEnough stops a walk over the records that has what it needs.
var errEnough = errors.New("offload: enough records")

// emptyShower shows nothing.
type emptyShower struct{}

func (emptyShower) most(*Config, bool) int             { return 0 }
func (emptyShower) count() int                         { return 0 }
func (emptyShower) show(int) (body, structured []byte) { return nil, nil }

// listShower shows records as a JSON array.
type listShower struct{ records [][]byte }

func (s *listShower) most(c *Config, _ bool) int { return fit(c, s.records, 1) }
func (s *listShower) count() int                 { return len(s.records) }

func (s *listShower) show(k int) (body, structured []byte) {
	return joinArray(nil, s.records[:k]), nil
}

// arrayShower shows the document of an array of records with the array cut.
type arrayShower struct {
	ru         *run
	records    [][]byte
	structured bool // the document is the structured content
}

func (s *arrayShower) most(c *Config, twice bool) int {
	times := 1
	if twice {
		times = 2
	}
	return fit(c, s.records, times)
}

func (s *arrayShower) count() int { return len(s.records) }

func (s *arrayShower) show(k int) (body, structured []byte) {
	body = append([]byte(nil), s.ru.doc[:s.ru.start]...)
	body = joinArray(body, s.records[:k])
	body = append(body, s.ru.doc[s.ru.end:]...)
	if s.structured {
		return body, body
	}
	return body, nil
}

// lineShower shows the first lines of a text.
type lineShower struct{ lines []string }

func (s *lineShower) most(c *Config, _ bool) int {
	used := 0
	for i, l := range s.lines {
		used += c.textTokens(l)
		if used > c.Threshold {
			return i
		}
	}
	return len(s.lines)
}

func (s *lineShower) count() int { return len(s.lines) }

func (s *lineShower) show(k int) (body, structured []byte) {
	if k == 0 {
		return nil, nil
	}
	return []byte(strings.Join(s.lines[:k], "\n")), nil
}

// rowShower shows the first rows of a table printed as text, printed as
// the text printed them (a shorter table of the same format).
type rowShower struct {
	ru      *run
	records [][]byte
}

func (s *rowShower) most(c *Config, _ bool) int { return fit(c, s.records, 1) }
func (s *rowShower) count() int                 { return len(s.records) }

func (s *rowShower) show(k int) (body, structured []byte) {
	if k == 0 {
		return nil, nil
	}
	text, err := tabular.Print(nil, s.ru.format, s.ru.layout, s.records[:k])
	if err != nil {
		return nil, nil // printed whole when read: cannot fail
	}
	return text, nil
}

// fit returns how many leading records fit within the threshold, each
// counted times times.
func fit(c *Config, records [][]byte, times int) int {
	used := 0
	for i, r := range records {
		used += times * c.Tokenizer.Tokens(r)
		if used > c.Threshold {
			return i
		}
	}
	return len(records)
}

// joinArray appends the JSON array of records to b.
func joinArray(b []byte, records [][]byte) []byte {
	b = append(b, '[')
	for i, r := range records {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, r...)
	}
	return append(b, ']')
}
