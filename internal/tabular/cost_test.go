package tabular

import (
	"fmt"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// tableText prints n rows of six columns in format, about 50 bytes a row.
func tableText(format string, n int) string {
	var b strings.Builder
	switch format {
	case Python:
		b.WriteByte('[')
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "{'id': %d, 'customer': 'Customer number %d', 'city': 'Lyon', 'total': %d.44, 'paid': %d, 'note': None}", i, i%97, i%500, i%2)
		}
		b.WriteString("]\n")
	case CSV, TSV:
		sep := map[string]string{CSV: ",", TSV: "\t"}[format]
		b.WriteString(strings.Join([]string{"id", "customer", "city", "total", "paid", "note"}, sep) + "\n")
		for i := range n {
			fmt.Fprintf(&b, "%d%sCustomer number %d%sLyon%s%d.44%s%d%s\n", i, sep, i%97, sep, sep, i%500, sep, i%2, sep)
		}
	case Markdown:
		b.WriteString("| id     | customer           | city | total  | paid | note |\n")
		b.WriteString("|--------|--------------------|------|--------|------|------|\n")
		for i := range n {
			fmt.Fprintf(&b, "| %-6d | %-18s | Lyon | %-6s | %-4d |      |\n", i, fmt.Sprintf("Customer number %d", i%97), fmt.Sprintf("%d.44", i%500), i%2)
		}
	}
	return b.String()
}

// TestReadAllocations: reading a table, and printing it back to check it,
// allocates a few objects a row (a record is copied into chunks, a row's
// cells are one string), not several a cell: memory stays about the
// records' bytes, with little garbage. (A Python literal's rows cost their
// syntax trees, tens of allocations a row, whatever is done after.)
func TestReadAllocations(t *testing.T) {
	const rows = 2000
	for _, tt := range []struct {
		format string
		most   float64 // allocations a row
	}{
		{CSV, 3},
		{TSV, 3},
		{Markdown, 3},
	} {
		text := tableText(tt.format, rows)
		if tab, ok := Read(text); !ok || tab.Format != tt.format {
			t.Fatalf("%s: not read as %[1]s", tt.format)
		}
		perRow := testing.AllocsPerRun(2, func() { Read(text) }) / rows
		if perRow > tt.most {
			t.Errorf("%s: %.1f allocations a row, want at most %v", tt.format, perRow, tt.most)
		}
	}
}

// TestJSONNumber: jsonNumber says what jsontext says of a value.
func TestJSONNumber(t *testing.T) {
	for _, s := range []string{
		"0", "-0", "1", "-1", "10", "01", "-01", "1.5", "1.", ".5", "-.5", "1e5", "1E+5", "1e-5", "1e", "1e+",
		"1.5e3", "1.e3", "-", "", "+1", "1 ", "1\t", "1\n", "1\r\n", " 1", "1 2", "1x", "0x10", "Infinity",
		"NaN", "1_000", "123456789012345678901234567890", "1.0e-05", "-0.0", "0e0", "00", "1,", "١",
	} {
		want := jsontext.Value(s).IsValid() && jsontext.Value(s).Kind() == '0'
		if got := jsonNumber(s); got != want {
			t.Errorf("jsonNumber(%q) = %v, want %v", s, got, want)
		}
	}
}

// FuzzJSONNumber: jsonNumber says what jsontext says of any text.
func FuzzJSONNumber(f *testing.F) {
	for _, s := range []string{"0", "-1.5e+3", "01", "1 ", "1.", "\t2\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := jsontext.Value(s).IsValid() && jsontext.Value(s).Kind() == '0'
		if got := jsonNumber(s); got != want {
			t.Errorf("jsonNumber(%q) = %v, want %v", s, got, want)
		}
	})
}
