// Package tabular reads rows printed as text (a Python literal, CSV, TSV or
// a Markdown table) into one typed JSON record per row, and prints records
// back into the exact text they were read from: [Read] accepts a text only
// when [Print] of what it read gives it back byte for byte. Detection is
// strict: the whole text must be one table with a header (field names) and
// at least [MinRows] rows, so that prose, code and logs are never read as a
// table. Work is linear in the text's size, and texts above [MaxBytes] are
// not read. docs/how-it-works.md says how values are typed and what the
// layouts say.
package tabular

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zircote/lro-go/internal/rawjson"
)

// The formats.
const (
	Python   = "python"   // Python's str() or repr() of a list or tuple of dicts, tuples or lists
	CSV      = "csv"      // comma-separated values with a header row
	TSV      = "tsv"      // tab-separated values with a header row
	Markdown = "markdown" // a Markdown (GitHub) table
)

// MaxBytes is the largest text Read reads: a larger one stays text, so that
// the memory a read takes (a few times the text's size) stays bounded.
const MaxBytes = 16 << 20

// MinRows is the fewest rows (besides the header) a CSV, TSV or Markdown
// text must have to be read as a table. A Python literal, whose syntax says
// what it is, needs one.
const MinRows = 2

// Table is a text read as rows.
type Table struct {
	Format  string   // one of the formats
	Layout  string   // what Print needs beyond the records (see Print)
	Records [][]byte // one compact JSON value per row
}

// Read reads text as a table, trying each format that its first byte
// allows. ok is false when text is not a table that Print gives back
// exactly.
func Read(text string) (t Table, ok bool) {
	if len(text) < 4 || len(text) > MaxBytes {
		return Table{}, false
	}
	switch text[0] {
	case '[', '(':
		return printsBack(text, readPython, "")
	case '|':
		return printsBack(text, readMarkdown, "")
	}
	first, _, _ := strings.Cut(text, "\n")
	if strings.IndexByte(first, '\t') < 0 {
		return printsBack(text, readCSV, quoteMinimal, quoteSQLite, quoteAll)
	}
	if t, ok := printsBack(text, readTSV, quoteMinimal, quoteSQLite, quoteAll); ok {
		return t, true
	}
	// Tabs with no quoting (sqlite3 -tabs, psql -At -F TAB): only when the
	// text is not read as quoted TSV, whose quotes then say more.
	return printsBack(text, readTabs, "")
}

func readCSV(text string) (Table, error) { return readDelimited(text, CSV, ',') }
func readTSV(text string) (Table, error) { return readDelimited(text, TSV, '\t') }

// printsBack reads text with read and returns its table if Print gives
// the text back with the layout read, each of the prefixes before it in
// turn: the quoting of CSV and TSV is the first rule that prints the text
// back (any row may be the first that tells them apart).
func printsBack(text string, read func(string) (Table, error), prefixes ...string) (Table, bool) {
	t, err := read(text)
	if err != nil {
		return Table{}, false
	}
	layout := t.Layout
	out := make([]byte, 0, len(text))
	for _, p := range prefixes {
		t.Layout = p + layout
		if out, err = Print(out[:0], t.Format, t.Layout, t.Records); err == nil && string(out) == text {
			return t, true
		}
	}
	return Table{}, false
}

// Print appends to dst the text of records printed in format with layout,
// as Read read them. A layout is a few space-separated words, never data,
// which docs/how-it-works.md lists.
func Print(dst []byte, format, layout string, records [][]byte) ([]byte, error) {
	switch format {
	case Python:
		return printPython(dst, layout, records)
	case CSV:
		return printDelimited(dst, ',', layout, records)
	case TSV:
		return printDelimited(dst, '\t', layout, records)
	case Markdown:
		return printMarkdown(dst, layout, records)
	}
	return nil, errors.New("tabular: unknown format " + format)
}

var errLayout = errors.New("tabular: bad layout")

// endWord returns the layout word of a text's end.
func endWord(nl bool) string {
	if nl {
		return "nl"
	}
	return "eof"
}

// cell is one value of a CSV, TSV or Markdown row.
type cell struct {
	null bool
	text string
}

// appendRecord appends the JSON object of the cells of a row, named by
// the header's names: null, a number (see isNumber), or a string.
func appendRecord(dst []byte, names []string, cells []cell) []byte {
	dst = append(dst, '{')
	for i, c := range cells {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(rawjson.AppendQuote(dst, names[i]), ':')
		switch {
		case c.null:
			dst = append(dst, "null"...)
		case isNumber(c.text):
			dst = append(dst, c.text...)
		default:
			dst = rawjson.AppendQuote(dst, c.text)
		}
	}
	return append(dst, '}')
}

// isNumber reports whether s is a JSON number literal that reads back as
// itself: not an integer beyond 2^53, which jq would round (an identifier
// of digits stays a string), nor a number whose exponent puts it beyond
// float64's range (1e400, which jq reads as the largest float64) or below
// it (1e-400, read as 0).
func isNumber(s string) bool {
	if s == "" || len(s) > 32 || !(s[0] == '-' || s[0] >= '0' && s[0] <= '9') || !jsonNumber(s) {
		return false
	}
	if e := strings.IndexAny(s, "eE"); e >= 0 {
		// Without an exponent, 32 characters stay within the range.
		f, err := strconv.ParseFloat(s, 64)
		return err == nil && (f != 0 || strings.Trim(s[:e], "-0.") == "")
	}
	return strings.Contains(s, ".") || len(strings.TrimPrefix(s, "-")) < 16 // 10^15 < 2^53
}

// jsonNumber reports whether s is a JSON number between JSON's white space
// or nothing (what jsontext.Value(s) says is valid and a number), without
// copying s (the conversion is zero-copy: nothing writes to the bytes), and
// at a fraction of jsontext's cost a cell.
func jsonNumber(s string) bool {
	b := []byte(strings.TrimLeft(s, " \t\r\n"))
	end, _ := rawjson.SkipNumber(b, 0)
	return end > 0 && len(bytes.Trim(b[end:], " \t\r\n")) == 0
}

// checkNames reports whether the header cells are field names: not empty,
// distinct, without surrounding space or control characters, short, with
// brackets that pair (as count(*) has them, and f(a does not), and not
// numbers (a row of data rather than a header).
func checkNames(names []string) error {
	seen := make(map[string]bool, len(names))
	for _, n := range names {
		if n == "" || len(n) > 128 || strings.TrimSpace(n) != n || seen[n] || isNumber(n) {
			return errors.New("tabular: not a header")
		}
		depth := 0
		for i := 0; i < len(n) && depth >= 0; i++ {
			switch n[i] {
			case '(', '[', '{':
				depth++
			case ')', ']', '}':
				depth--
			}
			if n[i] < ' ' || n[i] == 0x7f {
				depth = -1
			}
		}
		if depth != 0 { // a control character, or brackets that do not pair: code
			return errors.New("tabular: not a header")
		}
		seen[n] = true
	}
	return nil
}

// ending ends dst, the printed text of a layout whose end word is word,
// which ends with eol: "nl" keeps it, "eof" cuts it.
func ending(dst []byte, word, eol string) ([]byte, error) {
	switch word {
	case "nl":
		return dst, nil
	case "eof":
		return dst[:len(dst)-len(eol)], nil
	}
	return nil, errLayout
}

// eachRow calls fn with the cells of the header, the first record's names,
// then with those of each record, an object of the same names in the same
// order. It fails for no records. The cells are only valid until fn
// returns. One decoder reads every record, and the texts of a row's cells
// are one string, so that printing costs about the records' bytes.
func eachRow(records [][]byte, fn func(header bool, cells []cell) error) error {
	if len(records) == 0 {
		return errLayout
	}
	var names []string
	var cells []cell
	var text, buf []byte // the texts of a row's cells, and an unquoted string
	var ends []int       // where each cell's text ends in text
	var r bytes.Reader
	dec := jsontext.NewDecoder(&r)
	for i, rec := range records {
		r.Reset(rec)
		// Duplicate names are found below: the first record's by seen,
		// then every name is the header's at its place.
		dec.Reset(&r, jsontext.AllowDuplicateNames(true))
		if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
			return errors.New("tabular: a row is not an object")
		}
		cells, text, ends = cells[:0], text[:0], ends[:0]
		for dec.PeekKind() != '}' {
			name, err := dec.ReadValue()
			if err != nil {
				return err
			}
			if buf, err = jsontext.AppendUnquote(buf[:0], name); err != nil {
				return err
			}
			if i == 0 {
				names = append(names, string(buf))
			} else if len(cells) >= len(names) || names[len(cells)] != string(buf) {
				return errors.New("tabular: a row's names differ from the header's")
			}
			v, err := dec.ReadValue()
			if err != nil {
				return err
			}
			switch v.Kind() {
			case 'n':
				cells = append(cells, cell{null: true})
			case '0':
				text = append(text, v...)
				cells = append(cells, cell{})
			case '"':
				if text, err = jsontext.AppendUnquote(text, v); err != nil {
					return err
				}
				cells = append(cells, cell{})
			default:
				return errors.New("tabular: a cell is not a string, a number or null")
			}
			ends = append(ends, len(text))
		}
		if len(cells) != len(names) {
			return errors.New("tabular: a row's names differ from the header's")
		}
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		row, start := string(text), 0
		for j := range cells {
			cells[j].text, start = row[start:ends[j]], ends[j]
		}
		if i == 0 {
			if len(slices.Compact(slices.Sorted(slices.Values(names)))) != len(names) {
				return errors.New("tabular: a name twice in a row")
			}
			header := make([]cell, len(names))
			for j, n := range names {
				header[j] = cell{text: n}
			}
			if err := fn(true, header); err != nil {
				return err
			}
		}
		if err := fn(false, cells); err != nil {
			return err
		}
	}
	return nil
}

// records holds the records of a table in chunks of at least chunkSize
// bytes rather than in one allocation each, so that reading a table costs
// about its records' bytes.
type records struct {
	recs  [][]byte
	chunk []byte // the free end of the current chunk
	buf   []byte // where the next record is made
}

const chunkSize = 64 << 10

func (r *records) add(rec []byte) {
	if len(rec) > len(r.chunk) {
		r.chunk = make([]byte, max(chunkSize, len(rec)))
	}
	n := copy(r.chunk, rec)
	r.recs = append(r.recs, r.chunk[:n:n])
	r.chunk = r.chunk[n:]
}
