package tabular

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestReadSamples reads the samples of testdata, printed by real Python
// (str() of sqlite3 rows, the csv module, pandas' to_markdown, tabulate)
// and the sqlite3 shell (gen.sh):
// each is read as rows, with typed values, and printed back byte for byte.
func TestReadSamples(t *testing.T) {
	tests := []struct {
		file   string
		format string
		rows   int
		first  string // the first record
	}{
		{"sqlite_read_query.txt", Python, 300, `{"id":1,"customer":"say \"hi\"","note":"emoji 🎉","paid":true,"total":1e-05,"big":-10}`},
		{"tuples.txt", Python, 50, `[1,"say \"hi\"","emoji 🎉",true,1e-05,-10]`},
		{"tuple_of_tuples.txt", Python, 50, `[1,"say \"hi\"","emoji 🎉",true,1e-05,-10]`},
		{"single_tuple_rows.txt", Python, 20, `[1]`},
		{"lists_nested.txt", Python, 30, `{"name":"n0","tags":["a","b'c"],"meta":{"k":0,"v":null}}`},
		{"python_csv.csv", CSV, 300, `{"id":1,"customer":"say \"hi\"","note":"emoji 🎉","paid":"True","total":1e-05}`},
		{"python_csv_quote_all.csv", CSV, 40, `{"id":1,"customer":"say \"hi\""}`},
		{"python_tsv.tsv", TSV, 300, `{"id":1,"customer":"say \"hi\"","total":1e-05}`},
		{"sqlite_csv.csv", CSV, 300, `{"id":1,"customer":"say \"hi\"","note":"emoji 🎉","paid":1,"total":1.0e-05}`},
		{"sqlite_tsv.tsv", TSV, 300, `{"id":1,"total":1.0e-05,"paid":1}`},
		{"sqlite_markdown.md", Markdown, 300, `{"id":1,"total":1.0e-05,"paid":1}`},
		{"sqlite_markdown_text.md", Markdown, 0, `{"id":1,"customer":"say \"hi\"","total":1.0e-05}`},
		{"sqlite_tabs.tsv", TSV, 241, `{"id":1,"customer":"say \"hi\"","note":"emoji 🎉","total":1.0e-05}`},
		{"pandas_markdown.md", Markdown, 241, `{"index":0,"id":1,"customer":"say \"hi\"","note":"emoji 🎉","paid":1,"total":1e-05}`},
		{"tabulate_pipe.md", Markdown, 241, `{"id":1,"customer":"say \"hi\"","note":"emoji 🎉","paid":1,"total":1e-05}`},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			tab, ok := Read(string(data))
			if !ok {
				t.Fatal("not read as a table")
			}
			if tab.Format != tt.format {
				t.Errorf("format %q, want %q", tab.Format, tt.format)
			}
			if tt.rows > 0 && len(tab.Records) != tt.rows {
				t.Errorf("%d records, want %d", len(tab.Records), tt.rows)
			}
			if diff := cmp.Diff(tt.first, string(tab.Records[0])); diff != "" {
				t.Errorf("first record (-want +got):\n%s", diff)
			}
			for i, rec := range tab.Records {
				if !json.Valid(rec) || strings.ContainsAny(string(rec), "\n\r") {
					t.Fatalf("record %d is not one JSON line: %s", i, rec)
				}
			}
			out, err := Print(nil, tab.Format, tab.Layout, tab.Records)
			if err != nil {
				t.Fatal(err)
			}
			if string(out) != string(data) {
				t.Errorf("printed back otherwise")
			}
		})
	}
}

// TestReadNegatives: texts that are not tables, or not printed exactly as
// a known printer prints them, stay text.
func TestReadNegatives(t *testing.T) {
	goSource, err := os.ReadFile("tabular.go")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, text string
	}{
		{"prose", "Hello, world. This is a letter, with commas.\nIt goes on, and on, for lines.\nThe end, finally.\n"},
		{"prose with equal commas", "I came home, then slept.\nShe said, yes.\nThen, nothing.\n"},
		{"one line with commas", "a,b,c,d,e,f,g"},
		{"two-line table", "id,name\n1,bob\n"},
		{"header and one row of markdown", "| a | b |\n|---|---|\n| 1 | 2 |\n"},
		{"go source", string(goSource)},
		{"python source", "import os, sys\nfrom a import b, c\nx, y = 1, 2\nprint(x, y)\n"},
		{"code without spaces", "f(a,b)\ng(c,d)\nh(e,f)\n"},
		{"log lines", "2026-11-26T19:00:00Z INFO started, pid=12\n2026-11-26T19:00:01Z WARN slow, ms=800\n2026-11-26T19:00:02Z INFO done, ok=true\n"},
		{"syslog", "Nov 26 19:00:00 host sshd[12]: Accepted key for root from 10.0.0.1 port 22\nNov 26 19:00:01 host sshd[12]: session opened\nNov 26 19:00:02 host sshd[12]: session closed\n"},
		{"JSON-looking", `{"a": 1, "b": 2,` + "\n" + `"c": 3, "d": 4,` + "\n" + `"e": 5, "f": 6}`},
		{"JSON lines", "{\"a\":1,\"b\":2}\n{\"a\":3,\"b\":4}\n{\"a\":5,\"b\":6}\n"},
		{"numbers only", "1,2,3\n4,5,6\n7,8,9\n"},
		{"duplicate names", "a,a\n1,2\n3,4\n"},
		{"ragged", "a,b\n1,2\n3\n"},
		{"bare quote", "a,b\n1,x\"y\n3,4\n"},
		{"blank line", "a,b\n1,2\n\n3,4\n"},
		{"one column", "a\n1\n2\n3\n"},
		{"python list of scalars", "['a', 'b', 'c']"},
		{"python call", "[f(1), f(2)]"},
		{"python comprehension", "[{'a': x} for x in y]"},
		{"python int keys", "[{1: 'a'}, {2: 'b'}]"},
		{"python mixed rows", "[{'a': 1}, (1, 2)]"},
		{"python nested tuple", "[{'a': (1, 2)}, {'a': (3, 4)}]"},
		{"python inf", "[{'a': inf}, {'a': 1.0}]"},
		{"python bytes", "[{'a': b'x'}, {'a': b'y'}]"},
		{"python spacing not repr's", "[{'a':1}, {'a':2}]"},
		{"python quotes not repr's", `[{"a": 1}, {"a": 2}]`},
		{"python trailing comma", "[{'a': 1}, {'a': 2},]"},
		{"python hex int", "[{'a': 0x10}, {'a': 1}]"},
		{"python unassigned character, which a later Unicode may print", "[{'a': '\\U000e0080'}, {'a': '\\u0378'}]"},
		{"markdown misaligned", "| a | b |\n|---|---|\n| 1 | 2 |\n|  3 | 4 |\n"},
		{"markdown without separator", "| a | b |\n| 1 | 2 |\n| 3 | 4 |\n| 5 | 6 |\n"},
		{"markdown ragged", "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 |\n"},
		{"markdown list", "| not a table\n| really\n| at all\n| no\n"},
		{"markdown value with a leading space, which the table does not show", "| a | b |\n|---|---|\n| 1 |  x |\n| 2 | y |\n"},
		{"csv leading space names", "id, name\n1, bob\n2, amy\n"},
		{"csv quoted as no writer does", "\"id\",name\n1,bob\n2,amy\n"},
		{"crlf then lf", "id,name\r\n1,bob\n2,amy\r\n"},
		{"prose with pipes", "| this is | not a table |\n| it is | a poem |\n| with | pipes |\n| at | its ends |\n"},
		{"prose with pipes inside", "a | b | c\nd | e | f\ng | h | i\n"},
		{"markdown with uneven columns", "| a | b |\n|---|---|\n| 1 | 2 | 3 |\n| 4 | 5 |\n"},
		{"markdown with a pipe in a cell not padded to its width", "| a | b |\n|---|---|\n| 1 | x | y |\n| 2 | z |\n"},
		{"markdown with a pipe in a header cell wider than its column", "| a | b | c |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n"},
		{"markdown numbers on no one decimal point", "| a | b |\n|--:|---:|\n| 1 | 1.5  |\n| 2 | 2.25  |\n| 3 | 3    |\n"},
		{"markdown two empty names", "|   |   | a |\n|---|---|---|\n| 1 | 2 | 3 |\n| 4 | 5 | 6 |\n"},
		{"markdown empty first name and a column named index", "|   | index |\n|---|-------|\n| 0 | a     |\n| 1 | b     |\n"},
		{"markdown empty name not first", "| a |   |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n"},
		{"tsv with quotes, ragged", "id\tname\n1\tsay \"hi\"\n2\n"},
		{"tsv with quotes, blank line", "id\tname\n1\tsay \"hi\"\n\n2\tamy\n"},
		{"tsv with quotes, one row", "id\tname\n1\tsay \"hi\"\n"},
		{"tsv with quotes, numbers for names", "1\t2\n3\tsay \"hi\"\n4\t5\n"},
		{"tab-indented text with quotes", "\tsay \"hi\"\n\tand \"bye\"\n\tthen\tgo\n"},
		{"tsv with quotes, a carriage return inside", "id\tname\n1\tsay \"hi\"\r\n2\tamy\n"},
		{"a log of numbered lines with tabs and quotes", "0000\tlog line with a \"quote\", a tab\n0001\tlog line with a \"quote\", a tab\n0002\tlog line with a \"quote\", a tab\n"},
		{"tab-separated prose whose first line quotes", "Note\tshe said \"hi\"\nNext\tand \"bye\"\nLast\tthe end\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tab, ok := Read(tt.text); ok {
				t.Errorf("read as %s (%s): %d records, first %s", tab.Format, tab.Layout, len(tab.Records), tab.Records[0])
			}
		})
	}
}

// TestReadForms: the forms each printer writes are read and printed back.
func TestReadForms(t *testing.T) {
	tests := []struct {
		name, text, format, first string
	}{
		{"minimal markdown", "| id | name |\n|---|---|\n| 1 | bob |\n| 22 | amy |\n", Markdown, `{"id":1,"name":"bob"}`},
		{"aligned markdown, tabulate's pipe", "|   id | name   |\n|-----:|:-------|\n|    1 | bob    |\n|   22 | amy    |", Markdown, `{"id":1,"name":"bob"}`},
		{"markdown with empty cells", "| a | b |\n|---|---|\n| 1 |   |\n| 2 | x |\n", Markdown, `{"a":1,"b":null}`},
		{"csv crlf without final line end", "id,name\r\n1,bob\r\n2,amy", CSV, `{"id":1,"name":"bob"}`},
		{"csv null and big id", "id,name\n12345678901234567890,\n2,amy\n", CSV, `{"id":"12345678901234567890","name":null}`},
		{"csv numbers beyond float64, which jq reads as others", "a,b,c\n1e400,-1E999,1e-400\n1.5,2,0e-400\n", CSV, `{"a":"1e400","b":"-1E999","c":"1e-400"}`},
		{"tsv", "id\tname\n1\tbob\n2\tamy\n", TSV, `{"id":1,"name":"bob"}`},
		{"tsv not quoted, a quote inside (sqlite3 -tabs, psql -At)", "id\tname\n1\tsay \"hi\"\n2\t\n", TSV, `{"id":1,"name":"say \"hi\""}`},
		{"tsv not quoted, a quote first", "id\tname\n1\t\"hi\" she said\n2\t\"x\"\n", TSV, `{"id":1,"name":"\"hi\" she said"}`},
		{"tsv not quoted, crlf without final line end", "id\tname\r\n1\tsay \"hi\"\r\n2\tamy", TSV, `{"id":1,"name":"say \"hi\""}`},
		{"markdown on the decimal point, tabulate's numbers", "|      a | b   |\n|-------:|:----|\n|  1.5   | x   |\n| 22.25  | y   |\n|  3     | z   |\n|        | w   |\n| -1e-05 | v   |", Markdown, `{"a":1.5,"b":"x"}`},
		{"markdown with a pipe in a padded cell, as tabulate prints it", "| a   | b |\n|:----|--:|\n| x|y | 1 |\n| z   | 2 |\n", Markdown, `{"a":"x|y","b":1}`},
		{"markdown with pandas' index column", "|    |   a |\n|---:|----:|\n|  0 |   1 |\n|  1 |   2 |", Markdown, `{"index":0,"a":1}`},
		{"sqlite3's quoting, told apart by a later row", "id,name\n1,bob\n2,\"a b\"\n3,\"\"\n4,\n", CSV, `{"id":1,"name":"bob"}`},
		{"python tuple of dicts", "({'a': 1}, {'a': 2})", Python, `{"a":1}`},
		{"python one row", "[{'a': -1.5e-07, 'b': \"it's\"}]", Python, `{"a":-1.5e-07,"b":"it's"}`},
		{"python newline at the end", "[('x', None), ('y', False)]\n", Python, `["x",null]`},
		{"python empty row values", "[{}, {}]", Python, `{}`},
		{"python empty tuples", "[(), ()]", Python, `[]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tab, ok := Read(tt.text)
			if !ok {
				t.Fatal("not read")
			}
			if tab.Format != tt.format {
				t.Errorf("format %q, want %q", tab.Format, tt.format)
			}
			if diff := cmp.Diff(tt.first, string(tab.Records[0])); diff != "" {
				t.Errorf("first record (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzRead: whatever the text, a table read prints back to it exactly, and
// its records are JSON lines.
func FuzzRead(f *testing.F) {
	for _, name := range []string{"sqlite_read_query.txt", "python_csv.csv", "sqlite_csv.csv", "sqlite_markdown.md", "python_tsv.tsv", "tuples.txt"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data[:min(len(data), 2000)]))
	}
	f.Add("[{'a': 1, 'b': 'x\\x85'}, {'a': None, 'b': \"it's\"}]")
	f.Add("| a | b |\n|:-:|--:|\n| 1 | 2 |\n| 3 | 4 |\n")
	f.Add("|    |   a | b   |\n|---:|----:|:----|\n|  0 | 1.5  | x|y |\n|  1 | 2.25 | z   |")
	f.Add("id\tname\n1\tsay \"hi\"\n2\t\n")
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 1<<16 {
			return
		}
		tab, ok := Read(text)
		if !ok {
			return
		}
		for _, rec := range tab.Records {
			if !json.Valid(rec) || strings.ContainsAny(string(rec), "\n\r") {
				t.Fatalf("record is not one JSON line: %q", rec)
			}
		}
		out, err := Print(nil, tab.Format, tab.Layout, tab.Records)
		if err != nil || string(out) != text {
			t.Fatalf("printed back %q, %v; want %q", out, err, text)
		}
	})
}
