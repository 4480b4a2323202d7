package tabular

import (
	"errors"
	"strings"
	"unicode/utf8"
)

// alignments are the ways a cell's value sits in its column: left, right,
// centred (an odd space on the right, as Python's format and sqlite3 do).
const alignments = "lrc"

// readMarkdown reads text as a Markdown table: a header row, a separator
// row (|---|:--:|), then rows, every line between pipes with the same
// number of cells, each cell padded to its column's width as the separator
// row gives it (tabulate, sqlite3's .mode markdown), or not padded at all.
func readMarkdown(text string) (Table, error) {
	src, nl := strings.CutSuffix(text, "\n")
	if strings.IndexByte(src, '\r') >= 0 {
		return Table{}, errors.New("tabular: a carriage return")
	}
	lines := strings.Split(src, "\n")
	if len(lines) < 2+MinRows {
		return Table{}, errors.New("tabular: too few rows")
	}
	sep, err := cellsOf(lines[1], -1)
	if err != nil {
		return Table{}, err
	}
	widths := make([]int, len(sep))
	for j, s := range sep {
		d := strings.Trim(s, " ")
		d = strings.TrimSuffix(strings.TrimPrefix(d, ":"), ":")
		if d == "" || strings.Trim(d, "-") != "" {
			return Table{}, errors.New("tabular: not a separator row")
		}
		widths[j] = max(len(s)-2, 0)
	}
	header, err := cellsOf(lines[0], len(sep))
	if err != nil {
		return Table{}, err
	}
	names := make([]string, len(header))
	halign := make([]byte, 0, len(header))
	for j, h := range header {
		names[j] = strings.Trim(h, " ")
		a, ok := alignOf(h, names[j], widths[j], alignments)
		if !ok {
			return Table{}, errors.New("tabular: a header cell padded otherwise")
		}
		halign = append(halign, a[0])
	}
	if err := checkNames(names); err != nil {
		return Table{}, err
	}
	// The alignments of each column that fit every row so far.
	fits := make([]string, len(sep))
	for j := range fits {
		fits[j] = alignments
	}
	recs := make([][]byte, 0, len(lines)-2)
	row := make([]cell, len(sep))
	for _, line := range lines[2:] {
		cells, err := cellsOf(line, len(sep))
		if err != nil {
			return Table{}, err
		}
		for j, c := range cells {
			v := strings.Trim(c, " ")
			var ok bool
			if fits[j], ok = alignOf(c, v, widths[j], fits[j]); !ok {
				return Table{}, errors.New("tabular: a cell padded otherwise")
			}
			row[j] = cell{null: v == "", text: v}
		}
		recs = append(recs, appendRecord(nil, names, row))
	}
	dalign := make([]byte, len(fits))
	for j, f := range fits {
		dalign[j] = f[0]
	}
	layout := string(halign) + " " + string(dalign) + " " + endWord(nl) + " " + lines[1]
	return Table{Format: Markdown, Layout: layout, Records: recs}, nil
}

// cellsOf returns the cells of a table line, between its pipes; n of them
// unless n is negative.
func cellsOf(line string, n int) ([]string, error) {
	if len(line) < 2 || line[0] != '|' || line[len(line)-1] != '|' {
		return nil, errors.New("tabular: not a table line")
	}
	cells := strings.Split(line[1:len(line)-1], "|")
	if n >= 0 && len(cells) != n {
		return nil, errors.New("tabular: a line with another number of cells")
	}
	return cells, nil
}

// alignOf returns the alignments of fits that pad v into c in a column of
// width w.
func alignOf(c, v string, w int, fits string) (string, bool) {
	out := make([]byte, 0, len(fits))
	for i := 0; i < len(fits); i++ {
		if padded(v, w, fits[i]) == c {
			out = append(out, fits[i])
		}
	}
	return string(out), len(out) > 0
}

// padded returns the cell of v in a column of width w with alignment a.
func padded(v string, w int, a byte) string {
	gap := max(w-utf8.RuneCountInString(v), 0)
	left := 0
	switch a {
	case 'r':
		left = gap
	case 'c':
		left = gap / 2
	}
	return " " + strings.Repeat(" ", left) + v + strings.Repeat(" ", gap-left) + " "
}

// printMarkdown prints records as a Markdown table with layout (see Print).
func printMarkdown(dst []byte, layout string, records [][]byte) ([]byte, error) {
	words := strings.SplitN(layout, " ", 4)
	if len(words) != 4 {
		return nil, errLayout
	}
	halign, dalign, end, sepLine := words[0], words[1], words[2], words[3]
	sep, err := cellsOf(sepLine, -1)
	if err != nil || len(halign) != len(sep) || len(dalign) != len(sep) {
		return nil, errLayout
	}
	err = eachRow(records, func(header bool, cells []cell) error {
		if len(cells) != len(sep) {
			return errLayout
		}
		align := dalign
		if header {
			align = halign
		}
		dst = append(dst, '|')
		for j, c := range cells {
			dst = append(dst, padded(c.text, max(len(sep[j])-2, 0), align[j])...)
			dst = append(dst, '|')
		}
		dst = append(dst, '\n')
		if header {
			dst = append(append(dst, sepLine...), '\n')
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return ending(dst, end, "\n")
}
