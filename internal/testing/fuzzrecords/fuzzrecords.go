// Package fuzzrecords turns the bytes of a fuzz input into records shaped
// like those real tools return, so that fuzz targets that take records
// explore real shapes from their first inputs: objects that share fields, of
// which some are arrays of floats, arrays of arrays, arrays with nulls, mixed
// arrays, nested objects, huge numbers, dates, categories, identifiers and
// very long strings, under keys that are unicode, jq keywords or not
// identifiers at all. A fuzzer mutating raw JSON text rarely writes such
// records; one mutating the choices that build them does at once.
package fuzzrecords

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Bounds of one generated set of records, so that a fuzz input stays cheap.
const (
	maxRecords = 12
	maxFields  = 8
	maxElems   = 6
	maxDepth   = 40
	maxString  = 20 << 10
	maxValues  = 2000
)

// names are the field names a record may have: the ones of real listings,
// unicode ones, jq keywords, and names that are not jq identifiers.
var names = []string{
	"id", "number", "title", "state", "prices", "embedding", "scores", "labels",
	"user", "created_at", "body", "tags", "value", "count", "url", "name",
	"名前", "ключ", "émoji😀", "if", "then", "and", "__loc__", "a-b", "1st", `q"uote`,
	`back\(slash)`, "", "with space", "$x", strings.Repeat("long", 60),
}

var words = []string{"open", "closed", "error", "alpha", "béta", "日本語", "fail", "ok", "line\nbreak", `"quoted"`}

// source hands out the bytes of a fuzz input over and over, so that a
// short input, as a fuzzer's first mutations are, already builds whole
// records of its kinds; the empty input builds integers.
type source struct {
	b      []byte
	i      int
	budget int // values left to build
	long   int // very long strings left to build
}

func (s *source) byte() int {
	if len(s.b) == 0 {
		return 0
	}
	c := s.b[s.i%len(s.b)]
	s.i++
	return int(c)
}

func (s *source) pick(n int) int { return s.byte() % n }

// Generate returns the records that data describes: up to 12 objects that
// share up to 8 fields, each field of one kind (a float, an array of floats,
// an array of arrays, ...) with values that vary from record to record,
// sometimes null or of another kind, as in real results. Each record
// marshals to one line of JSON with [encoding/json]; numbers that no float64
// holds are [json.Number] values. The result depends only on data.
func Generate(data []byte) []any {
	s := &source{b: data, budget: maxValues, long: 3}
	type column struct {
		name string
		kind int
	}
	cols := make([]column, 1+s.pick(maxFields))
	for i := range cols {
		cols[i] = column{names[s.pick(len(names))], s.pick(kinds)}
	}
	recs := make([]any, 1+s.pick(maxRecords))
	for i := range recs {
		o := map[string]any{}
		for _, c := range cols {
			switch s.pick(8) {
			case 0: // missing
			case 1:
				o[c.name] = nil
			case 2: // another kind, as a tool that is not consistent
				o[c.name] = s.value(s.pick(kinds), i, 0)
			default:
				o[c.name] = s.value(c.kind, i, 0)
			}
		}
		recs[i] = o
	}
	return recs
}

// kinds is the number of kinds of values.
const kinds = 16

// value returns a value of kind k for record i at nesting depth d.
func (s *source) value(k, i, d int) any {
	if s.budget--; s.budget < 0 {
		k = 0
	}
	switch k {
	case 0: // an identifier
		return i + 1 + 1000*s.pick(3)
	case 1: // a float
		return float64(s.byte()-128) / 8
	case 2: // a category
		return words[s.pick(4)]
	case 3: // text, up to very long
		return s.text()
	case 4: // a date
		return "2025-0" + strconv.Itoa(1+s.pick(9)) + "-1" + strconv.Itoa(s.pick(10)) + "T10:00:00Z"
	case 5:
		return s.pick(2) == 0
	case 6: // an array of floats
		return s.array(func() any { return float64(s.byte()) / 4 })
	case 7: // an array of integers
		return s.array(func() any { return s.byte() })
	case 8: // an array of strings
		return s.array(func() any { return words[s.pick(len(words))] })
	case 9: // labels: objects with a name
		return s.array(func() any { return map[string]any{"name": words[s.pick(len(words))], "id": s.byte()} })
	case 10: // an array of arrays
		return s.array(func() any { return []any{float64(s.byte()) / 2, s.byte()} })
	case 11: // a mixed array, nulls included
		if d >= maxDepth || s.budget < 0 {
			return nil
		}
		return s.array(func() any { return s.value(s.pick(kinds), i, d+1) })
	case 12: // a nested object, up to deep nesting
		if d >= maxDepth || s.budget < 0 || s.pick(4) == 0 {
			return map[string]any{"login": words[s.pick(len(words))], "id": s.byte()}
		}
		return map[string]any{names[s.pick(len(names))]: s.value(12, i, d+1), "n": s.byte()}
	case 13: // a number no float64 holds, or an integer past 2^53
		return json.Number([]string{"1e400", "-1e400", "123456789012345678901234567890", "9007199254740993", "1.5e-400", "0.10000000000000000001"}[s.pick(6)])
	case 14: // an array with nulls
		return s.array(func() any {
			if s.pick(2) == 0 {
				return nil
			}
			return float64(s.byte()) / 10
		})
	default: // a string that is a word, unicode or not
		return words[s.pick(len(words))]
	}
}

// array returns an array of up to maxElems elements made by elem.
func (s *source) array(elem func() any) []any {
	if s.budget < 0 {
		return []any{}
	}
	a := make([]any, s.pick(maxElems+1))
	for i := range a {
		a[i] = elem()
	}
	return a
}

// text returns prose of words, at times very long.
func (s *source) text() string {
	var b strings.Builder
	n := 1 + s.pick(8)
	if s.pick(4) == 1 && s.long > 0 {
		s.long--
		n = maxString / 8 // a very long string
	}
	for j := 0; j < n && b.Len() < maxString; j++ {
		if j > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[(j+s.byte())%len(words)])
	}
	return b.String()
}
