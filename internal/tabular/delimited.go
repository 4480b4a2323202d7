package tabular

import (
	"encoding/csv"
	"errors"
	"io"
	"strings"
)

// The quoting rules of CSV and TSV writers.
const (
	quoteMinimal = "minimal" // only fields that need it (a separator, a quote, a line break)
	quoteSQLite  = "sqlite"  // also "", spaces, quotes, control and non-ASCII characters
	quoteAll     = "all"     // every field
	quoteNone    = "none"    // no field: TSV split at every tab and line end (sqlite3 -tabs, psql -At -F TAB)
)

// readDelimited reads text as format, CSV (sep ',') or TSV (sep '\t'), with a
// header row, strictly: every row has the header's number of fields (two
// or more), quotes are only where the format allows them. An empty field
// that is not quoted is null.
func readDelimited(text, format string, sep rune) (Table, error) {
	_, eol := lineEnd(text)
	nl := strings.HasSuffix(text, "\n")
	r := csv.NewReader(strings.NewReader(text))
	r.Comma = sep
	r.ReuseRecord = true
	pos := offsets{text: text, line: 1}
	var names []string
	var recs records
	var cells []cell
	for {
		row, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return Table{}, err
		}
		if names == nil {
			if len(row) < 2 {
				return Table{}, errors.New("tabular: one column")
			}
			names = append([]string(nil), row...)
			if err := checkNames(names); err != nil {
				return Table{}, err
			}
			continue
		}
		if recs.recs == nil { // a row read: the text is likely a table, of about a row a line
			recs.recs = make([][]byte, 0, strings.Count(text, "\n"))
		}
		cells = cells[:0]
		for i, f := range row {
			c := cell{text: f}
			if f == "" {
				line, col := r.FieldPos(i)
				c.null = pos.at(line, col) != '"'
			}
			cells = append(cells, c)
		}
		recs.buf = appendRecord(recs.buf[:0], names, cells)
		recs.add(recs.buf)
	}
	if len(recs.recs) < MinRows {
		return Table{}, errors.New("tabular: too few rows")
	}
	// The quoting is chosen by Read.
	return Table{Format: format, Layout: " " + eol + " " + endWord(nl), Records: recs.recs}, nil
}

// readTabs reads text as TSV that no field is quoted in, as sqlite3's
// .mode tabs and psql's unaligned output print it: a row a line, a field
// between tabs, a quote an ordinary character. Every row has the header's
// number of fields (two or more); an empty field is null.
func readTabs(text string) (Table, error) {
	eol, word := lineEnd(text)
	src, nl := strings.CutSuffix(text, eol)
	lines := strings.Split(src, eol)
	if len(lines) < 1+MinRows {
		return Table{}, errors.New("tabular: too few rows")
	}
	var names []string
	recs := records{recs: make([][]byte, 0, len(lines)-1)}
	var cells []cell
	for _, line := range lines {
		fields := strings.Split(line, "\t")
		if names == nil {
			if len(fields) < 2 {
				return Table{}, errors.New("tabular: one column")
			}
			if err := checkNames(fields); err != nil {
				return Table{}, err
			}
			// Nothing is quoted here, so that a line of a log or of prose
			// with tabs is more like a header than in the quoted readings:
			// a name holds no quote and is not all digits (a line number).
			for _, f := range fields {
				if strings.ContainsRune(f, '"') || strings.Trim(f, "0123456789") == "" {
					return Table{}, errors.New("tabular: not a header")
				}
			}
			names = fields
			continue
		}
		if len(fields) != len(names) {
			return Table{}, errors.New("tabular: a row with another number of fields")
		}
		cells = cells[:0]
		for _, f := range fields {
			cells = append(cells, cell{null: f == "", text: f})
		}
		recs.buf = appendRecord(recs.buf[:0], names, cells)
		recs.add(recs.buf)
	}
	return Table{Format: TSV, Layout: quoteNone + " " + word + " " + endWord(nl), Records: recs.recs}, nil
}

// lineEnd returns the line end of text's first line, and its layout word.
func lineEnd(text string) (eol, word string) {
	if i := strings.IndexByte(text, '\n'); i > 0 && text[i-1] == '\r' {
		return "\r\n", "crlf"
	}
	return "\n", "lf"
}

// offsets finds the byte at a line and column of text, for lines asked in
// increasing order (in linear time over all of them).
type offsets struct {
	text string
	line int // the line that starts at off
	off  int
}

// at returns the byte at line and column (1-based, in bytes), or 0.
func (o *offsets) at(line, col int) byte {
	for o.line < line {
		i := strings.IndexByte(o.text[o.off:], '\n')
		if i < 0 {
			return 0
		}
		o.off += i + 1
		o.line++
	}
	if o.line != line || o.off+col-1 >= len(o.text) {
		return 0
	}
	return o.text[o.off+col-1]
}

// printDelimited prints records as CSV or TSV with layout (see Print).
func printDelimited(dst []byte, sep rune, layout string, records [][]byte) ([]byte, error) {
	words := strings.Fields(layout)
	if len(words) != 3 {
		return nil, errLayout
	}
	quoting, eol := words[0], "\n"
	switch words[1] {
	case "crlf":
		eol = "\r\n"
	case "lf":
	default:
		return nil, errLayout
	}
	err := eachRow(records, func(_ bool, cells []cell) error {
		for i, c := range cells {
			if i > 0 {
				dst = append(dst, byte(sep))
			}
			q, err := needsQuotes(quoting, sep, c)
			if err != nil {
				return err
			}
			if !q {
				dst = append(dst, c.text...)
				continue
			}
			dst = append(dst, '"')
			dst = append(dst, strings.ReplaceAll(c.text, `"`, `""`)...)
			dst = append(dst, '"')
		}
		dst = append(dst, eol...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ending(dst, words[2], eol)
}

// needsQuotes reports whether quoting quotes c.
func needsQuotes(quoting string, sep rune, c cell) (bool, error) {
	special := strings.ContainsRune(c.text, sep) || strings.ContainsAny(c.text, "\"\r\n")
	switch quoting {
	case quoteMinimal:
		if !c.null && c.text == "" {
			return false, errors.New("tabular: an empty string minimal quoting would not tell from null")
		}
		return special, nil
	case quoteNone:
		if sep != '\t' || strings.ContainsAny(c.text, "\t\r\n") {
			return false, errors.New("tabular: a field that only quotes would delimit")
		}
		return false, nil
	case quoteAll:
		if c.null {
			return false, errors.New("tabular: a null that quoting every field would not tell from \"\"")
		}
		return true, nil
	case quoteSQLite:
		if c.null {
			return false, nil
		}
		if c.text == "" || special {
			return true, nil
		}
		for i := 0; i < len(c.text); i++ {
			if b := c.text[i]; b <= ' ' || b == '"' || b == '\'' || b >= 0x7f {
				return true, nil
			}
		}
		return false, nil
	}
	return false, errLayout
}
