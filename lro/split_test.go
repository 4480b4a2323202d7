package lro

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// walked is what validRecords found in a document, in comparable form.
type walked struct {
	Valid         bool
	Count, Tokens int
	OneLine       bool
	Lines         []string
	Namespaces    map[string]int
	Scores        [3]float64 // count, min, max
	Sample        []string
	Schema        map[string]any
	Bounds        int
}

func walkDoc(t *testing.T, c *config, doc string) (walked, bool) {
	t.Helper()
	rs := &recordSet{doc: []byte(" " + doc)} // an array at offset 1
	rs.arrayStart, rs.arrayEnd = 1, len(rs.doc)
	rs.docArray = rs.doc[1:]
	split, err := c.gather(rs)
	defer rs.release()
	w := walked{Valid: err == nil}
	if err != nil {
		return w, split
	}
	w.Count, w.Tokens, w.OneLine = rs.count, rs.tokens, rs.oneLine
	if err := rs.eachLine(func(line []byte) error {
		w.Lines = append(w.Lines, string(line))
		return nil
	}); err != nil {
		t.Fatalf("reading the records again: %v", err)
	}
	tl := rs.tally
	w.Namespaces = map[string]int{}
	for ns, n := range tl.namespaces {
		w.Namespaces[ns] = *n
	}
	w.Scores = [3]float64{float64(tl.scores), tl.minScore, tl.maxScore}
	for _, s := range tl.sample {
		w.Sample = append(w.Sample, string(s))
	}
	w.Schema = tl.schema.Schema()
	if rs.bounds != nil {
		w.Bounds = len(*rs.bounds)
	}
	return w, split
}

// splitDoc is a JSON array of n records, each made by rec.
func splitDoc(n int, rec func(i int) string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(rec(i))
	}
	b.WriteByte(']')
	return b.String()
}

// TestSplitWalkEqualsOneWalk walks large arrays in two halves at once and
// checks that everything found (validity, count, estimate, lines, the
// summary's statistics, the sample, the schema and the noted offsets) is
// what one walk finds, both when the split holds and when the guessed
// split point is not the start of a record.
func TestSplitWalkEqualsOneWalk(t *testing.T) {
	plain := func(i int) string {
		return fmt.Sprintf(`{"id":%d,"namespace":"ns-%d","score":%d.25,"text":"record %d of many"}`, i, i%7, i%11, i)
	}
	tests := []struct {
		doc       string
		wantSplit bool
		reason    string
	}{
		{splitDoc(2000, plain), true, "plain records"},
		{splitDoc(2000, func(i int) string {
			if i < 1000 {
				return fmt.Sprintf(`{"id":%d,"namespace":"early","a":[1,2]}`, i)
			}
			return fmt.Sprintf(`{"id":%d,"namespace":"late","b":{"c":"x"},"score":-%d}`, i, i)
		}), true, "the halves differ: properties and namespaces only in the second, scores only in the second"},
		{splitDoc(20_000, plain), true, "more records than are noted, the first half fills the notes"},
		{splitDoc(3000, func(i int) string {
			return fmt.Sprintf(`{"id":%d,"text":"café – 東京 %d","nested":[{"id":%d},{"id":%d}]}`, i, i, i, i+1)
		}), false, "nested records that open as the records do: the guess is one of them, and the walk is not split"},
		{splitDoc(3000, func(i int) string {
			return fmt.Sprintf(`{"id":%d,"text":"café – 東京 %d","nested":[{"key":%d}]}`, i, i, i)
		}), true, "non-ASCII text, and nested records that open otherwise"},
		{"[\n" + strings.ReplaceAll(splitDoc(2000, plain), "},{", "},\n  {") + "\n]", false, "records over lines: an array in an array is not records (not split, found as one)"},
		{strings.ReplaceAll(splitDoc(2000, plain), `,"text"`, ",\n\"text\""), true, "records that span lines"},
		{splitDoc(2000, func(i int) string {
			if i >= 600 && i <= 1500 {
				return fmt.Sprintf(`{"id":%d,"text":"%s","more":[{"id":1},{"id":2}]}`, i, strings.Repeat(`,{\"id\":`, 20))
			}
			return plain(i)
		}), false, "the middle records hold strings and nested records that look like records"},
		{splitDoc(2000, func(i int) string {
			if i == 1900 {
				return `{"id":1900,"text":"bad \q escape"}`
			}
			return plain(i)
		}), true, "an invalid record in the second half"},
		{splitDoc(2000, func(i int) string {
			if i == 100 {
				return `{"id":100,"text":tru}`
			}
			return plain(i)
		}), false, "an invalid record in the first half, found before the split point"},
		{splitDoc(2000, plain)[:100_000], true, "an array cut short"},
		{splitDoc(2000, plain) + " x", true, "junk after the array"},
	}
	one := mustConfig(&Options{OutputDir: t.TempDir()})
	one.splitBytes = 0
	two := mustConfig(&Options{OutputDir: t.TempDir()})
	two.splitBytes = 1
	two.splitWaits = true
	busy := mustConfig(&Options{OutputDir: t.TempDir()})
	busy.splitBytes = 1
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			want, _ := walkDoc(t, one, tt.doc)
			// Split or not, as the cores allow.
			if got, _ := walkDoc(t, busy, tt.doc); !cmp.Equal(want, got, cmpopts.EquateEmpty()) {
				t.Errorf("a walk that may take its second half back differs from one walk:\n%s", cmp.Diff(want, got, cmpopts.EquateEmpty()))
			}
			got, split := walkDoc(t, two, tt.doc)
			if split != tt.wantSplit {
				t.Errorf("split = %v, want %v", split, tt.wantSplit)
			}
			if diff := cmp.Diff(want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("two walks at once (-one walk +split):\n%s", diff)
			}
		})
	}
}

// TestGatherArrayField gathers the records of an array field in the middle
// of an object, large enough to be split: the records read again from the
// noted offsets, the count and the sample are those of one walk.
func TestGatherArrayField(t *testing.T) {
	records := splitDoc(3000, func(i int) string {
		return fmt.Sprintf(`{"id":%d,"namespace":"ns-%d","text":"record %d"}`, i, i%5, i)
	})
	doc := []byte(`{"total":3000,"items":` + records + `,"next":null}`)
	one := mustConfig(&Options{OutputDir: t.TempDir()})
	one.splitBytes = 0
	two := mustConfig(&Options{OutputDir: t.TempDir()})
	two.splitBytes, two.splitWaits = 1, true
	read := func(c *config) (lines []string, count int, sample int, split bool) {
		rs, err := recordsFromDoc(doc, "items")
		if err != nil || rs.docArray == nil {
			t.Fatalf("recordsFromDoc: %v", err)
		}
		defer rs.release()
		if split, err = c.gather(rs); err != nil {
			t.Fatal(err)
		}
		if err := rs.eachLine(func(line []byte) error {
			lines = append(lines, string(line))
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return lines, rs.count, len(rs.tally.sample), split
	}
	wantLines, wantCount, wantSample, _ := read(one)
	gotLines, gotCount, gotSample, split := read(two)
	if !split {
		t.Error("the walk was not split")
	}
	if wantCount != 3000 || gotCount != wantCount || gotSample != wantSample {
		t.Errorf("count %d (one walk %d), sample %d (one walk %d)", gotCount, wantCount, gotSample, wantSample)
	}
	if diff := cmp.Diff(wantLines, gotLines); diff != "" {
		t.Errorf("records (-one walk +split):\n%s", diff)
	}
	if wantLines[0] != `{"id":0,"namespace":"ns-0","text":"record 0"}` || len(wantLines) != 3000 {
		t.Errorf("first record %q of %d", wantLines[0], len(wantLines))
	}
}
