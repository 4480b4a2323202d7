package extract

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The shape of an lro_search answer: an entry is a record of at most
// maxShownRecord bytes, or else a snippet around the first match with its
// path, each cut: a few KB whatever the record.
const (
	defaultSearchResults = 20 // matches when the call does not say
	maxShownRecord       = 2000
	snippetContext       = 80
	maxShownMatch        = 200
	maxShownKey          = 100
	maxShownPath         = 300
)

// searchRequest is a parsed lro_search call, which a worker runs (and
// compiles the pattern, under the call's limits).
type searchRequest struct {
	Pattern string // with (?i) unless the search is case-sensitive
	Want    int    // the most matches to send
	Start   int    // the first line to search
}

func (c *config) parseSearch(a args) (ref, searchRequest, error) {
	file, errFile := a.file()
	pattern, errPattern := a.str(argPattern)
	var errText error
	switch {
	case pattern == "":
		errText = errorf("pattern is missing or empty: give a regular expression")
	case len(pattern) > maxQueryBytes:
		errText = errorf("pattern is %d bytes, more than %d", len(pattern), maxQueryBytes)
	}
	sensitive, errSensitive := a.boolean(argCaseSensitive)
	want, errWant := a.integer(argMaxResults, defaultSearchResults, 1, math.MaxInt)
	start, errStart := a.integer(argStartLine, 2, 2, math.MaxInt)
	if err := cmp.Or(errFile, errPattern, errText, errSensitive, errWant, errStart); err != nil {
		return ref{}, searchRequest{}, err
	}
	if !sensitive {
		pattern = "(?i)" + pattern
	}
	return file, searchRequest{Pattern: pattern, Want: min(want, c.maxResults()), Start: start}, nil
}

// search is lro_search: a worker sends the matches one by one; the server
// shows those that fit and stops it.
func (c *config) search(ctx context.Context, a args) (*mcp.CallToolResult, error) {
	file, req, err := c.parseSearch(a)
	if err != nil {
		return nil, err
	}
	var out strings.Builder
	budget := c.budget(fmt.Sprintf(searchMore, math.MaxInt, math.MaxInt, math.MaxInt, argStartLine, math.MaxInt))
	matches, used, next, last, total := 0, 0, 0, 0, 0
	err = c.withSource(ctx, file, func(ctx context.Context, src *source) error {
		total = src.lines()
		return c.inWorker(ctx, src, &job{Tool: toolSearch, Search: req}, func(fr *frame) bool {
			if last = fr.Line; fr.Done {
				return false
			}
			t := c.Tokenizer.Tokens(fr.Match)
			if matches > 0 && used+t > budget {
				next = fr.Line
				return false
			}
			out.Write(fr.Match)
			out.WriteByte('\n')
			used, matches = used+t, matches+1
			if matches == req.Want {
				next = fr.Line + 1
			}
			return matches < req.Want
		})
	})
	if err != nil {
		return nil, err
	}
	var note string
	switch {
	case matches == 0:
		note = fmt.Sprintf("No record from line %d to line %d matches.", req.Start, last)
	case next > 0 && next <= total:
		note = fmt.Sprintf(searchMore, matches, req.Start, next-1, argStartLine, next)
	default:
		note = fmt.Sprintf("%d matching records, from lines %d-%d (the end of the file).", matches, req.Start, last)
	}
	return textResult(out.String(), note), nil
}

// searchMore is the note of an lro_search answer with records left.
const searchMore = "%d matching records shown, from lines %d-%d; there may be more after. Continue with %s=%d."

// searchRecords sends a frame for each record of src that matches, up to
// req.Want, then one with the last line read, in a worker.
func (c *config) searchRecords(src *source, req *searchRequest, send func(*frame) bool) error {
	re, err := regexp.Compile(req.Pattern)
	if err != nil {
		return errorf("pattern is not a valid regular expression (RE2 syntax): %s", truncate(err.Error(), maxMessage))
	}
	for src.line+1 < req.Start {
		if _, err := src.next(-1); err == io.EOF {
			send(&frame{Line: src.line, Done: true})
			return nil
		} else if err != nil {
			return c.readError(err, src)
		}
	}
	dec := newDecoder()
	dec.literal = true
	var w walker // not a recursion: 9,000 levels of one ran a worker out of memory under -race
	for sent := 0; sent < req.Want; {
		line, err := src.next(c.MaxRecordBytes)
		if errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return c.readError(err, src)
		}
		n := src.line
		v, err := dec.decode(line)
		if err != nil {
			return errorf("line %d of %s is not a valid record: %v", n, src.path, err)
		}
		if where, loc, text := w.find(v, re); loc == nil {
			continue
		} else if !send(&frame{Line: n, Match: matchEntry(n, line, where, loc, text)}) {
			return nil
		}
		sent++
	}
	send(&frame{Line: src.line, Done: true})
	return nil
}

// matchEntry formats one matching record: whole when short, else a
// snippet of the matching value. The line of the file is file_line, a name
// beside record: a text's record has a line of its own, that of the text.
func matchEntry(n int, line []byte, where string, loc []int, text string) []byte {
	if len(line) <= maxShownRecord {
		return fmt.Appendf(nil, `{"file_line":%d,"record":%s}`, n, line)
	}
	from := loc[0] - runeBack(text[:loc[0]], snippetContext)
	to := loc[0] + runeOffset(text[loc[0]:loc[1]], maxShownMatch)
	if to == loc[1] {
		to += runeOffset(text[to:], snippetContext)
	}
	snippet := text[from:to]
	if from > 0 {
		snippet = "…" + snippet
	}
	if to < len(text) {
		snippet += "…"
	}
	if i := runeOffset(where, maxShownPath/2); i < len(where) {
		if j := len(where) - runeBack(where[i:], maxShownPath/2); j > i {
			where = where[:i] + "…" + where[j:]
		}
	}
	return fmt.Appendf(nil, `{"file_line":%d,"path":%s,"snippet":%s,"record_bytes":%d}`,
		n, appendString(nil, where), appendString(nil, snippet), len(line))
}

// runeBack returns the byte length of the last k runes of s.
func runeBack(s string, k int) int {
	i := len(s)
	for ; k > 0 && i > 0; k-- {
		i--
		for i > 0 && s[i]&0xC0 == 0x80 {
			i--
		}
	}
	return len(s) - i
}

// walker finds the first scalar value of a record that matches.
type walker struct {
	stack []step
}

type step struct {
	v    any
	path string
}

// find returns the path, the match location and the text of the first
// string, number or boolean of v that re matches (arrays in order, keys
// sorted); loc is nil when none does.
func (w *walker) find(v any, re *regexp.Regexp) (path string, loc []int, text string) {
	w.stack = append(w.stack[:0], step{v, ""})
	for len(w.stack) > 0 {
		s := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		switch x := s.v.(type) {
		case map[string]any:
			keys := slices.Sorted(maps.Keys(x))
			for i := len(keys) - 1; i >= 0; i-- {
				w.stack = append(w.stack, step{x[keys[i]], s.path + pathKey(keys[i])})
			}
		case []any:
			for i := len(x) - 1; i >= 0; i-- {
				w.stack = append(w.stack, step{x[i], s.path + "[" + strconv.Itoa(i) + "]"})
			}
		case nil:
		default:
			t := scalarText(x)
			if loc := re.FindStringIndex(t); loc != nil {
				if s.path == "" {
					s.path = "."
				}
				return s.path, loc, t
			}
		}
	}
	return "", nil, ""
}

// scalarText is the text a regular expression is matched against.
func scalarText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case int:
		return strconv.Itoa(x)
	case float64:
		return string(appendFloat(nil, x))
	case numberText:
		return string(x)
	}
	return ""
}

// numberText is an integer as a record writes it, of more digits than an
// int holds (see decoder.literal).
type numberText string

// pathKey writes an object key as a jq path step, .name or .["odd name"],
// cut past maxShownKey characters.
func pathKey(k string) string {
	if i := runeOffset(k, maxShownKey); i < len(k) {
		k = k[:i] + "…"
	}
	if identifier.MatchString(k) {
		return "." + k
	}
	return ".[" + string(appendString(nil, k)) + "]"
}
