package recipes

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// ParamValue is the parameter of the generic library's lookups and
// filters: an identifier, a category or an element. Its other parameters
// (min, from, to, first, last, n) are named as its filters read them.
const ParamValue = "value"

// genericRecipes returns 10 recipes derived from the sample records, for
// the results of any tool, by the shape of most records: text lines
// ([textRecipes]), objects ([objectRecipes], also for no records) or other
// values ([scalarRecipes]). docs/recipes.md lists what every filter keeps to.
func genericRecipes(sample []json.RawMessage) []Recipe {
	return genericOf(analyze(decodeRecords(sample)))
}

// genericOf returns the recipes of records that are not memories, analyzed
// as a.
func genericOf(a *analysis) []Recipe {
	switch {
	case a.textLines > 0 && 2*a.textLines > a.n:
		return number(textRecipes(a))
	case a.n == 0 || 2*a.objects >= a.n:
		return number(objectRecipes(a))
	}
	return number(scalarRecipes(a))
}

// record is a decoded sample record with, for an object, its keys in the
// order they appear in the JSON text.
type record struct {
	v    any
	keys []string
	size int // bytes of its JSON text
}

// decodeRecords decodes the records of the bounded sample that are one
// JSON value each.
func decodeRecords(sample []json.RawMessage) []record {
	sample = bounded(sample)
	recs := make([]record, 0, len(sample))
	for _, raw := range sample {
		if r, err := decodeRecord(raw); err == nil {
			recs = append(recs, r)
		}
	}
	return recs
}

// decodeRecord decodes raw, numbers as json.Number, with an object's
// distinct keys in order of appearance, up to maxFields of them (the
// others are only validated). The error is not nil when raw is not one
// valid JSON value.
func decodeRecord(raw json.RawMessage) (r record, err error) {
	r.size = len(raw)
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if t := bytes.TrimLeft(raw, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		err = d.Decode(&r.v)
	} else if _, err = d.Token(); err == nil { // {
		o := map[string]any{}
		for err == nil && d.More() {
			var name json.Token
			var v any
			if name, err = d.Token(); err == nil {
				err = d.Decode(&v)
			}
			k, _ := name.(string)
			if _, dup := o[k]; !dup {
				r.keys = append(r.keys, k)
			}
			o[k] = v // the last of duplicate names, as json.Unmarshal keeps
			if len(r.keys) == maxFields && err == nil && d.More() {
				// The rest is validated, not decoded: a record of very
				// many fields costs about what one of maxFields does.
				r.v = o
				if !json.Valid(raw) {
					err = errors.New("not one JSON value")
				}
				return r, err
			}
		}
		if err == nil {
			_, err = d.Token() // }
		}
		r.v = o
	}
	if _, end := d.Token(); err == nil && end != io.EOF {
		err = errors.New("more than one value")
	}
	return r, err
}

// field is what the sample says about one top-level field of the objects.
type field struct {
	name string

	present, nonNull                       int
	strs, nums, ints, bools, strBytes      int
	spaces, urls                           int // strings with a space, URLs
	arrs, emptyArrs, scalarArrs, namedArrs int // arrays: all, empty, of scalars, of objects with a string .name

	distinct  map[string]int // scalar values as jq's tostring prints them, counted
	nonScalar bool           // some value is an object: no category
	repeated  bool           // some scalar value occurs twice
	elems     map[string]int // elements of scalar arrays, or their .name, as text
	kw        keywords       // words of the string values

	dates   []string // the dates that start values
	example string   // the first string or integer value fit for an example (exampleValue), as text

	// contains counts, for each other field, the records in which a
	// string value of f contains the text of that field's value (as a URL
	// built from an identifier does).
	contains map[string]int

	parent string   // for a string field of the objects of a top-level field, its name
	subs   []*field // those string fields of f, in order of first appearance
}

// maxSubs bounds the fields one level down examined per top-level field.
const maxSubs = 32

// sub records the string value v of the field name of an object held by f.
func (f *field) sub(name string, v string) {
	i := slices.IndexFunc(f.subs, func(s *field) bool { return s.name == name })
	if i < 0 {
		if len(f.subs) >= maxSubs || len(name) > maxValueBytes {
			return
		}
		i = len(f.subs)
		f.subs = append(f.subs, &field{name: name, parent: f.name, distinct: map[string]int{}})
	}
	s := f.subs[i]
	s.present++
	s.nonNull++
	s.addString(v)
}

// addString records the string value v of f.
func (f *field) addString(v string) {
	f.strs++
	f.strBytes += len(v)
	if dateRE.MatchString(v) {
		f.dates = append(f.dates, v[:10])
	}
	if strings.Contains(v, " ") {
		f.spaces++
	}
	if strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "https://") {
		f.urls++
	}
	f.addDistinct(v)
}

// avgLen is the mean length in bytes of the string values of f.
func (f *field) avgLen() int {
	if f.strs == 0 {
		return 0
	}
	return f.strBytes / f.strs
}

// analysis is what the sample says about the records.
type analysis struct {
	n         int                  // records
	types     map[reflect.Type]int // records by type
	objects   int                  // object records
	textLines int                  // {"line": N, "text": "..."} records
	fields    map[string]*field
	order     []*field // fields in order of first appearance

	all       keywords       // words of all string values, per record
	strWords  keywords       // words of the string records
	text      keywords       // words of the text of text lines
	lines     lines          // times and levels of the text lines
	firstLine int64          // smallest line number of text lines
	values    map[string]int // scalar records as text (strings, ints)
	strs      int            // string records
	numbers   []float64      // number records
	bytes     int            // bytes of the object records
}

var (
	dateRE    = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}`)
	safeIntRE = regexp.MustCompile(`^-?[0-9]{1,15}$`)
)

func analyze(recs []record) *analysis {
	a := &analysis{
		n:         len(recs),
		types:     map[reflect.Type]int{},
		fields:    map[string]*field{},
		values:    map[string]int{},
		firstLine: -1,
	}
	for _, r := range recs {
		a.types[reflect.TypeOf(r.v)]++ // one Go type per jq type, numbers being json.Number
		var ss []string
		collectStrings(r.v, &ss)
		a.all.add(ss...)
		switch v := r.v.(type) {
		case map[string]any:
			a.bytes += r.size
			a.object(v, r.keys)
		case string:
			a.strs++
			a.strWords.add(v)
			if v != "" {
				a.values[v]++
			}
		case json.Number:
			if f, err := v.Float64(); err == nil {
				a.numbers = append(a.numbers, f)
			}
			if safeIntRE.MatchString(v.String()) {
				a.values[v.String()]++
			}
		}
	}
	return a
}

// object records the object record o with keys in order.
func (a *analysis) object(o map[string]any, keys []string) {
	a.objects++
	if l, ok := o["line"].(json.Number); ok {
		if t, ok := o["text"].(string); ok {
			a.textLines++
			a.text.add(t)
			a.lines.add(t)
			if n, err := strconv.ParseInt(l.String(), 10, 64); err == nil && (a.firstLine < 0 || n < a.firstLine) {
				a.firstLine = n
			}
		}
	}
	for _, k := range keys {
		if len(k) > maxValueBytes {
			continue // no recipe names it: a descriptor holds its recipes in full
		}
		v := o[k]
		f := a.fields[k]
		if f == nil {
			f = &field{name: k, distinct: map[string]int{}, elems: map[string]int{}, contains: map[string]int{}}
			a.fields[k] = f
			a.order = append(a.order, f)
		}
		f.present++
		if v == nil {
			continue
		}
		f.nonNull++
		switch v := v.(type) {
		case string:
			f.addString(v)
			f.kw.add(v)
		case json.Number:
			f.nums++
			if safeIntRE.MatchString(v.String()) {
				f.ints++
			}
			f.addDistinct(v.String())
		case bool:
			f.bools++
			f.addDistinct(strconv.FormatBool(v))
		case []any:
			f.arrs++
			if len(v) == 0 {
				f.emptyArrs++
				break
			}
			scalar, named := true, true
			for _, e := range v {
				// A float, a null, an array or an object without a string
				// name is neither: the array is no list.
				s, isScalar := scalarText(e)
				o, _ := e.(map[string]any)
				name, isNamed := o["name"].(string)
				scalar, named = scalar && isScalar, named && isNamed
				if isNamed {
					s = name
				}
				if (isScalar || isNamed) && (f.elems[s] > 0 || len(f.elems) < 4*maxDistinct) {
					f.elems[s]++
				}
			}
			switch {
			case scalar:
				f.scalarArrs++
			case named:
				f.namedArrs++
			}
		case map[string]any:
			f.nonScalar = true // objects are not categories
			for _, k := range slices.Sorted(maps.Keys(v)) {
				if s, ok := v[k].(string); ok {
					f.sub(k, s)
				}
			}
		default:
			f.nonScalar = true
		}
	}
	a.derived(o)
}

// derived counts, for each string field of o, the other fields whose value
// (a string of no spaces or an integer, as text) it contains.
func (a *analysis) derived(o map[string]any) {
	if len(o) > maxDerived {
		return
	}
	for k, v := range o {
		s, ok := v.(string)
		f := a.fields[k]
		if !ok || f == nil || len(s) > maxValueBytes {
			continue
		}
		for j, w := range o {
			t, ok := scalarText(w)
			if !ok || j == k || t == "" || strings.Contains(t, " ") || !strings.Contains(s, t) {
				continue
			}
			f.contains[j]++
		}
	}
}

// derivedFrom reports whether every string value of f is a word (no
// spaces, not a title) that contains the value of id in the same record, as
// a URL built from it does.
func (f *field) derivedFrom(id *field) bool {
	return id != nil && f != id && f.strs > 0 && f.spaces == 0 && f.contains[id.name] >= f.strs
}

func (f *field) addDistinct(s string) {
	if f.example == "" && exampleValue(s) {
		f.example = s
	}
	f.distinct[s]++
	f.repeated = f.repeated || f.distinct[s] > 1
}

// few reports whether f holds scalars of at most maxDistinct values.
func (f *field) few() bool { return !f.nonScalar && len(f.distinct) <= maxDistinct }

// scalarText returns v as jq's tostring prints it, for the scalars whose text
// is the same in every jq implementation: strings, booleans and integers of
// up to 15 digits.
func scalarText(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case bool:
		return strconv.FormatBool(v), true
	case json.Number:
		if safeIntRE.MatchString(v.String()) {
			return v.String(), true
		}
	}
	return "", false
}

// collectStrings appends the string values of v, at any depth, to ss; it
// stops at 1000 strings.
func collectStrings(v any, ss *[]string) {
	if len(*ss) >= 1000 {
		return
	}
	switch v := v.(type) {
	case string:
		*ss = append(*ss, v)
	case []any:
		for _, e := range v {
			collectStrings(e, ss)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			collectStrings(v[k], ss)
		}
	}
}

// jqKeywords are the words that cannot be written as .name or {name} in
// every jq version.
var jqKeywords = wordSet(`
	as def module import include if then elif else end and or not reduce foreach try catch label
	__loc__
`)

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// isIdent reports whether name can be written .name and {name} in jq.
func isIdent(name string) bool { return identRE.MatchString(name) && !jqKeywords[name] }

// jqString returns s as a jq string literal. JSON string syntax is valid jq
// string syntax, and json.Marshal escapes the backslash of any "\(".
func jqString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// path returns the jq path of the top-level field name: .name or .["name"].
func path(name string) string {
	if isIdent(name) {
		return "." + name
	}
	return ".[" + jqString(name) + "]"
}

// keywordParam returns the keyword parameter with default w (or the
// specification's literal "keyword") described as matching what, which is
// the record's field field, or "" when it is no one field.
func keywordParam(w, what, field string) Param {
	if w == "" {
		w = defaultKeyword
	}
	return Param{ParamKeyword, w, "keyword or regular expression, matched case-insensitively against " + what, field}
}

// scalarRecipes returns the library of other values: counts, a search or
// a threshold, value frequencies and statistics.
func scalarRecipes(a *analysis) []Recipe {
	value := cmp.Or(mostCommon(maps.All(a.values)), ParamValue)
	var search, least, most Recipe
	if len(a.numbers) > a.strs {
		search = recipe("Numbers greater than a threshold", "greater than min",
			`numbers | select(. > ($min | tonumber))`, "c",
			Param{"min", median(a.numbers), "exclusive lower bound", ""})
		least = recipe("The 10 smallest numbers", "smallest 10",
			`map(numbers) | sort | .[:10][]`, "sc")
		most = recipe("The 10 largest numbers", "largest 10",
			`map(numbers) | sort | reverse | .[:10][]`, "sc")
	} else {
		search = recipe("Strings with a keyword", "search", `strings | select(test($keyword; "i"))`, "c",
			keywordParam(a.strWords.pick(), "each string record", ""))
		least = recipe("The 10 longest strings", "longest 10",
			`map(strings) | sort_by(-length) | .[:10][]`, "sc")
		most = recipe("List the distinct strings (sorted)", "distinct strings",
			`map(strings) | unique | .[]`, "sc")
	}
	stats := recipe("Stats of the numbers", "stats", "map(numbers) | "+filterStats, "sc")
	if len(a.numbers) == 0 {
		stats = recipe("Stats of the string lengths", "length stats",
			`map(strings | length) | {count: length, min: min, max: max, avg: (if length > 0 then add / length else null end)}`,
			"sc")
	}
	return []Recipe{
		countRecords,
		countByType,
		recipe("Show the first 20 records", "first 20", `.[:20][]`, "sc"),
		search,
		recipe("Records equal to a given value", "equal to value", `select(tostring == $value)`, "c",
			Param{ParamValue, value, "value, compared as text", ""}),
		recipe("The 20 most frequent values with their counts", "top values",
			`group_by(.) | map({value: .[0], count: length}) | sort_by(-.count) | .[:20][]`, "sc"),
		recipe("Count the distinct values", "count distinct", `unique | length`, "s"),
		least,
		stats,
		most,
	}
}

// median returns the lower median of ns as a decimal that jq's tonumber
// parses.
func median(ns []float64) string {
	s := slices.Sorted(slices.Values(ns))
	return strconv.FormatFloat(s[(len(s)-1)/2], 'f', -1, 64)
}
