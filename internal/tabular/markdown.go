package tabular

import (
	"errors"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"
)

// alignments are the ways a cell's value sits in its column: left, right,
// centred (an odd space on the right, as Python's format and sqlite3 do),
// and on the decimal point (tabulate's numbers, pandas' to_markdown: right,
// with as many spaces after a number as it has fewer decimals than the
// column's most; see afterPoint).
const alignments = "lrcd"

// pandas' to_markdown prints its index as a first column whose header
// cell is empty: the records name it indexName (as pandas' reset_index
// does), and the layout's header word starts with blankIndex.
const (
	indexName  = "index"
	blankIndex = "-"
)

// An align is a column's alignment: one of alignments, and for 'd' the
// column's most decimals (-1 while no value says).
type align struct {
	a byte
	d int
}

// readMarkdown reads text as a Markdown table: a header row, a separator
// row (|---|:--:|), then rows, every line between pipes with the same
// number of cells, each cell padded to its column's width as the separator
// row gives it (tabulate, pandas' to_markdown, sqlite3's .mode markdown),
// or not padded at all. A cell padded to its width may hold a pipe
// (tabulate prints one as it is). The first header cell may be empty (the
// index column of pandas' to_markdown, named indexName in the records).
func readMarkdown(text string) (Table, error) {
	src, nl := strings.CutSuffix(text, "\n")
	if strings.IndexByte(src, '\r') >= 0 {
		return Table{}, errors.New("tabular: a carriage return")
	}
	lines := strings.Split(src, "\n")
	if len(lines) < 2+MinRows {
		return Table{}, errors.New("tabular: too few rows")
	}
	sep, err := cellsOf(lines[1], nil)
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
	header, err := cellsOf(lines[0], widths)
	if err != nil {
		return Table{}, err
	}
	names := make([]string, len(header))
	halign := make([]byte, 0, len(header))
	for j, h := range header {
		names[j] = strings.Trim(h, " ")
		fits, _ := alignOf(h, names[j], widths[j], 0b0111, -1) // l, r or c
		if fits == 0 {
			return Table{}, errors.New("tabular: a header cell padded otherwise")
		}
		halign = append(halign, first(fits))
	}
	var blank string // the layout's mark of an empty first header cell
	if len(names) > 1 && names[0] == "" {
		blank, names[0] = blankIndex, indexName
	}
	if err := checkNames(names); err != nil {
		return Table{}, err
	}
	// The alignments of each column that fit every row so far, and the
	// most decimals of each column (for 'd').
	fits := make([]uint8, len(sep))
	decimals := make([]int, len(sep))
	for j := range fits {
		fits[j], decimals[j] = 1<<len(alignments)-1, -1
	}
	recs := records{recs: make([][]byte, 0, len(lines)-2)}
	row := make([]cell, len(sep))
	for _, line := range lines[2:] {
		cells, err := cellsOf(line, widths)
		if err != nil {
			return Table{}, err
		}
		for j, c := range cells {
			v := strings.Trim(c, " ")
			if fits[j], decimals[j] = alignOf(c, v, widths[j], fits[j], decimals[j]); fits[j] == 0 {
				return Table{}, errors.New("tabular: a cell padded otherwise")
			}
			row[j] = cell{null: v == "", text: v}
		}
		recs.buf = appendRecord(recs.buf[:0], names, row)
		recs.add(recs.buf)
	}
	dalign := make([]byte, 0, len(fits))
	for j, f := range fits {
		dalign = append(dalign, first(f))
		if first(f) == 'd' {
			dalign = strconv.AppendInt(dalign, int64(decimals[j]), 10)
		}
	}
	layout := blank + string(halign) + " " + string(dalign) + " " + endWord(nl) + " " + lines[1]
	return Table{Format: Markdown, Layout: layout, Records: recs.recs}, nil
}

// cellsOf returns the cells of a table line, between its pipes: as many as
// widths has, if widths is not nil. A line with more pipes is cut into
// cells of the widths' sizes (in runes, two spaces of padding included),
// which may hold pipes.
func cellsOf(line string, widths []int) ([]string, error) {
	if len(line) < 2 || line[0] != '|' || line[len(line)-1] != '|' {
		return nil, errors.New("tabular: not a table line")
	}
	cells := strings.Split(line[1:len(line)-1], "|")
	if widths == nil || len(cells) == len(widths) {
		return cells, nil
	}
	if len(cells) < len(widths) {
		return nil, errors.New("tabular: a line with fewer cells")
	}
	cells = cells[:0]
	rest := line[1:]
	for _, w := range widths {
		i, n := 0, 0
		for ; n < w+2 && i < len(rest); n++ {
			_, size := utf8.DecodeRuneInString(rest[i:])
			i += size
		}
		if n < w+2 || i >= len(rest) || rest[i] != '|' {
			return nil, errors.New("tabular: a line with other cells")
		}
		cells = append(cells, rest[:i])
		rest = rest[i+1:]
	}
	if rest != "" {
		return nil, errors.New("tabular: a line with other cells")
	}
	return cells, nil
}

// alignOf returns the alignments of fits (bits of alignments) that pad v
// into c in a column of width w, and the column's most decimals: d, or
// what c says if d is -1.
func alignOf(c, v string, w int, fits uint8, d int) (uint8, int) {
	var kept uint8
	for i := range len(alignments) {
		a := align{a: alignments[i]}
		if fits&(1<<i) == 0 {
			continue
		}
		if a.a == 'd' {
			a.d = d
			if d < 0 && v != "" { // the spaces after v say
				a.d = afterPoint(v) + len(c) - len(strings.TrimRight(c, " ")) - 1
				if a.d < 0 || a.d >= w { // not within the column (see printMarkdown)
					continue
				}
			}
		}
		if isPadded(c, v, w, a) {
			kept |= 1 << i
			if a.a == 'd' {
				d = a.d
			}
		}
	}
	return kept, d
}

// first returns the first alignment of the bits of alignments fits.
func first(fits uint8) byte { return alignments[bits.TrailingZeros8(fits)] }

// afterPoint returns the number of characters after the decimal point of
// a number, or after its exponent's e when it has no point, or -1 (an
// integer, or not a number), as tabulate counts them.
func afterPoint(v string) int {
	if !isDecimal(v) {
		return -1
	}
	if i := strings.TrimLeft(v, "+-"); i != "" && strings.Trim(i, "0123456789") == "" {
		return -1 // an integer
	}
	pos := strings.LastIndexByte(v, '.')
	if pos < 0 {
		pos = strings.LastIndexAny(v, "eE")
	}
	if pos < 0 {
		return -1
	}
	return len(v) - pos - 1
}

// isDecimal reports whether v is a decimal number as Python's float()
// reads one (nan and inf included).
func isDecimal(v string) bool {
	if v == "" || strings.ContainsAny(v, "xXpP_") {
		return false
	}
	_, err := strconv.ParseFloat(v, 64)
	return err == nil || errors.Is(err, strconv.ErrRange)
}

// pads returns the spaces before and after v in its cell in a column of
// width w with alignment a, besides the cell's two spaces of padding.
func pads(v string, w int, a align) (left, right int) {
	after := 0
	if a.a == 'd' {
		after = max(a.d-afterPoint(v), 0)
	}
	gap := max(w-utf8.RuneCountInString(v)-after, 0)
	switch a.a {
	case 'r', 'd':
		left = gap
	case 'c':
		left = gap / 2
	}
	return left, gap - left + after
}

// appendPadded appends the cell of v in a column of width w with
// alignment a.
func appendPadded(dst []byte, v string, w int, a align) []byte {
	left, right := pads(v, w, a)
	dst = appendSpaces(dst, 1+left)
	dst = append(dst, v...)
	return appendSpaces(dst, right+1)
}

// isPadded reports whether c is the cell of v in a column of width w with
// alignment a.
func isPadded(c, v string, w int, a align) bool {
	left, right := pads(v, w, a)
	return len(c) == 1+left+len(v)+right+1 && c[1+left:1+left+len(v)] == v &&
		strings.Trim(c[:1+left], " ") == "" && strings.Trim(c[1+left+len(v):], " ") == ""
}

func appendSpaces(dst []byte, n int) []byte {
	for range n {
		dst = append(dst, ' ')
	}
	return dst
}

// parseAligns parses a layout word of alignments: a letter a column, 'd'
// followed by the column's most decimals.
func parseAligns(word string) (out []align, err error) {
	for word != "" {
		a := align{a: word[0]}
		word = word[1:]
		if a.a == 'd' {
			n := min(len(word)-len(strings.TrimLeft(word, "0123456789")), 6)
			if a.d, err = strconv.Atoi(word[:n]); err != nil {
				return nil, errLayout
			}
			word = word[n:]
		} else if strings.IndexByte(alignments, a.a) < 0 {
			return nil, errLayout
		}
		out = append(out, a)
	}
	return out, nil
}

// printMarkdown prints records as a Markdown table with layout (see Print).
func printMarkdown(dst []byte, layout string, records [][]byte) ([]byte, error) {
	words := strings.SplitN(layout, " ", 4)
	if len(words) != 4 {
		return nil, errLayout
	}
	end, sepLine := words[2], words[3]
	hword, blank := strings.CutPrefix(words[0], blankIndex)
	halign, err1 := parseAligns(hword)
	dalign, err2 := parseAligns(words[1])
	sep, err := cellsOf(sepLine, nil)
	if err != nil || err1 != nil || err2 != nil || len(halign) != len(sep) || len(dalign) != len(sep) {
		return nil, errLayout
	}
	for j, a := range dalign {
		if a.a == 'd' && a.d >= len(sep[j])-2 {
			return nil, errLayout // spaces beyond the column's width, which the layout's size would not bound
		}
	}
	err = eachRow(records, func(header bool, cells []cell) error {
		if len(cells) != len(sep) {
			return errLayout
		}
		align := dalign
		if header {
			align = halign
			if blank {
				if cells[0].text != indexName {
					return errLayout
				}
				cells[0].text = ""
			}
		}
		dst = append(dst, '|')
		for j, c := range cells {
			dst = appendPadded(dst, c.text, max(len(sep[j])-2, 0), align[j])
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
