package extract

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	defaultReadLines = 20 // lines lro_read reads when the call does not say
	// maxCharsPerToken bounds the characters of a line lro_read reads in
	// one call, whatever max_chars: ThresholdTokens x maxCharsPerToken,
	// room for a tokenizer that counts fewer than the heuristic.
	maxCharsPerToken = 16
	minReadChars     = 16 // the least lro_read shows of a line it cuts
)

// read is lro_read.
func (c *config) read(ctx context.Context, a args) (*mcp.CallToolResult, error) {
	file, errFile := a.file()
	first, errFirst := a.integer(argLine, 1, 1, math.MaxInt)
	limit, errLimit := a.integer(argLimit, defaultReadLines, 1, math.MaxInt)
	offset, errOffset := a.integer(argCharOffset, 0, 0, math.MaxInt)
	maxChars, errChars := a.integer(argMaxChars, c.defaultMaxChars(), 1, math.MaxInt)
	if err := cmp.Or(errFile, errFirst, errLimit, errOffset, errChars); err != nil {
		return nil, err
	}
	maxChars = min(maxChars, c.MaxOutputBytes, min(c.ThresholdTokens, math.MaxInt/maxCharsPerToken)*maxCharsPerToken)

	pg := &page{c: c, offset: offset, budget: c.budget(fmt.Sprintf(readSummary+readContinue, math.MaxInt, math.MaxInt, math.MaxInt, argLine, math.MaxInt))}
	next, total := 0, 0
	err := c.withSource(ctx, file, func(ctx context.Context, src *source) error {
		total = src.lines()
		n := 2 // the header, line 1, was read when the file was opened
		if first == 1 {
			text := src.head[runeOffset(src.head, offset):]
			pg.add(1, text[:runeOffset(text, maxChars)], utf8.RuneCountInString(src.head))
		}
		for ; n < first; n++ {
			if _, err := src.next(-1); err == io.EOF {
				return nil
			} else if err != nil {
				return c.readError(err, src)
			}
		}
		for ; pg.shown < limit && (pg.shown == 0 || pg.used < pg.budget); n++ {
			text, total, ok, err := src.lineRange(offset, maxChars)
			if err != nil {
				return c.readError(err, src)
			} else if !ok {
				return nil
			} else if pg.add(n, text, total) {
				break
			}
		}
		next = n
		return nil
	})
	if err != nil {
		return nil, err
	}
	switch {
	case pg.shown == 0 && first > total:
		return nil, errorf("line %d is past the end of the file, which has %d lines (line 1 is the header)", first, total)
	case pg.shown == 0:
		return textResult(fmt.Sprintf("No lines: line %d is past the end of the file.", first)), nil
	}
	summary := fmt.Sprintf(readSummary, first, first+pg.shown-1, total)
	if next > 0 && next <= total {
		summary += fmt.Sprintf(readContinue, argLine, next)
	}
	notes := append([]string{summary}, pg.notes...)
	return textResult(pg.out.String(), strings.Join(notes, "\n")), nil
}

// defaultMaxChars is what lro_read shows of a line when the call does not
// say: what fits in the threshold, at four characters a token.
func (c *config) defaultMaxChars() int {
	return min(c.ThresholdTokens, math.MaxInt/4) * 4
}

// The summary of an lro_read answer, and what it adds when lines are left.
const (
	readSummary  = "Lines %d-%d of %d shown (line 1 is the header; records start at line 2)."
	readContinue = " Continue with %s=%d."
)

// budget is the tokens an answer may give its lines or records: the
// threshold less its longest note, or half the threshold if that is more.
func (c *config) budget(note string) int {
	return max(c.ThresholdTokens-c.Tokenizer.Tokens([]byte(note)), c.ThresholdTokens/2)
}

// page is an lro_read answer as it is built.
type page struct {
	c      *config
	offset int // the first character shown of each line
	budget int // the tokens the lines and their notes may have
	out    strings.Builder
	notes  []string // where to continue the lines cut
	used   int      // tokens of the lines and notes so far
	shown  int      // lines so far
}

// add appends line n, of total characters, of which text is shown from
// the page's offset, and a note if it is cut, unless the two would pass the
// budget after a first line, which is cut to fit. It reports whether to stop.
func (pg *page) add(n int, text string, total int) (stop bool) {
	tokens := pg.c.Tokenizer.Tokens
	entry := fmt.Appendf(nil, "%d: %s\n", n, text)
	prefix := len(entry) - len(text) - 1 // "n: "
	note := cutNote(n, text, total, pg.offset)
	t := tokens(entry) + tokens([]byte(note))
	if pg.used+t > pg.budget && pg.shown > 0 {
		return true
	}
	// One line alone is above the budget: show what fits, at least
	// minReadChars characters.
	for pg.used+t > pg.budget && utf8.RuneCountInString(text) > minReadChars {
		runes := utf8.RuneCountInString(text)
		keep := max(min(runes*max(pg.budget-pg.used, 0)/max(t, 1), runes-1), minReadChars)
		text = text[:runeOffset(text, keep)]
		entry = append(entry[:prefix+len(text)], '\n')
		note = cutNote(n, text, total, pg.offset)
		t = tokens(entry) + tokens([]byte(note))
	}
	pg.out.Write(entry)
	pg.used += t
	pg.shown++
	if note != "" {
		pg.notes = append(pg.notes, note)
	}
	return false
}

// cutNote says where to continue line n, of total characters, of which
// text is shown from offset, or is "" if it is shown to its end.
func cutNote(n int, text string, total, offset int) string {
	end := offset + utf8.RuneCountInString(text)
	if end >= total {
		return ""
	}
	return fmt.Sprintf("Line %d has %d characters; characters %d-%d are shown. Continue it with %s=%d, %s=1, %s=%d.",
		n, total, offset, end, argLine, n, argLimit, argCharOffset, end)
}

// runeOffset returns the byte offset in s after its first k runes.
func runeOffset(s string, k int) int {
	for i := range s {
		if k <= 0 {
			return i
		}
		k--
	}
	return len(s)
}
