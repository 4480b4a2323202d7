package recipes

import (
	"bytes"
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// The parameters of the generic library, besides [ParamKeyword].
const (
	ParamValue = "value" // a value: an identifier, a category, an element
	ParamMin   = "min"   // a number, exclusive lower bound
	ParamFrom  = "from"  // start of a time range, inclusive, compared as text
	ParamTo    = "to"    // end of a time range, exclusive, compared as text
	ParamN     = "n"     // a 1-based record number
)

// genericRecipes returns 10 recipes derived from the sample records, for the
// results of any tool. The library depends on the shape of most records:
//
//   - objects: recipes chosen by what each top-level field is (see role):
//     identifiers (id, number, keys, URLs, distinct words or integers) are
//     listed and looked up, never summed or ranked; measures (numbers that
//     are not identifiers, such as comments or sizes) are ranked and
//     summarized; categories (few distinct short values) are counted and
//     filtered; arrays of strings, or of objects with a name like GitHub's
//     labels, are filtered by membership; dates give a range filter; text
//     gets a keyword search. What the fields do not call for is filled, in
//     order, with a full-text search, the field names, records missing a
//     field, the first records, record shapes, the fields of nested
//     objects, ...; on records of 512 bytes or more on average, the
//     recipes that output records (filters, top 10, first records, the
//     full-text search) output their identifier and title instead, plus
//     the field the recipe is about, so that ten answers fit inline; when
//     no field's role is an identifier or a short text, the values choose
//     them (the code with the most distinct values, a name one level down
//     such as name.common), never a field null or the same in every
//     record; the lookup of one record shows it whole;
//   - text lines, the {"line": N, "text": "..."} records of a plain-text
//     result: a line count, grep with line numbers, a match count, the error
//     lines (by level, or by words such as "error" and "fail"), a count by
//     level and a time range when the lines carry levels and start with a
//     time, a line range, the last lines, grep -v, and for text without
//     times repeated lines;
//   - other values (strings, numbers, arrays): counts, search, value
//     frequencies and statistics.
//
// No recipe costs jq 1.6 more than about ten times reading the records
// (TestRecipeCost): none counts words one by one or walks every leaf of
// the records.
//
// Every filter tolerates records of any shape (a string among objects, a
// missing or oddly typed field) without making jq fail. Fields whose names
// are not jq identifiers are accessed as .["name"]. Parameter defaults come
// from the sample, so that the filters select something. The result depends
// only on sample, of which at most the first 1000 records (and 4 MiB) are
// examined; an empty sample gives recipes that work on any file.
func genericRecipes(sample []json.RawMessage) []Recipe {
	a := analyze(decodeRecords(sample))
	var rs []Recipe
	switch a.shape() {
	case shapeText:
		rs = textRecipes(a)
	case shapeScalars:
		rs = scalarRecipes(a)
	default:
		rs = objectRecipes(a)
	}
	return number(rs)
}

// record is a decoded sample record with, for an object, its keys in the
// order they appear in the JSON text.
type record struct {
	v    any
	keys []string
	size int // bytes of its JSON text
}

// decodeRecords is decode with the key order of the objects.
func decodeRecords(sample []json.RawMessage) []record {
	sample = bounded(sample)
	recs := make([]record, 0, len(sample))
	for _, raw := range sample {
		v, ok := decodeOne(raw)
		if !ok {
			continue
		}
		r := record{v: v, size: len(raw)}
		if o, ok := v.(map[string]any); ok {
			if keys, ok := objectKeys(raw); ok && len(keys) == len(o) {
				r.keys = keys
			} else {
				r.keys = sortedKeys(o)
			}
		}
		recs = append(recs, r)
	}
	return recs
}

// objectKeys returns the distinct keys of the JSON object raw in order of
// appearance; ok is false when raw is not a valid object.
func objectKeys(raw json.RawMessage) (keys []string, ok bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	seen := map[string]bool{}
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return nil, false
		}
		k, _ := t.(string)
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
		var skip json.RawMessage
		if d.Decode(&skip) != nil {
			return nil, false
		}
	}
	if t, err := d.Token(); err != nil || t != json.Delim('}') {
		return nil, false
	}
	if _, err := d.Token(); err == nil {
		return nil, false
	}
	return keys, true
}

// shape is the kind of records a library is made for.
type shape int

const (
	shapeObjects shape = iota
	shapeText
	shapeScalars
)

// field is what the sample says about one top-level field of the objects.
type field struct {
	name  string
	order int // position of first appearance

	present, nonNull                         int
	strs, nums, ints, bools, dates, strBytes int
	spaces, urls                             int // strings with a space, URLs
	arrs, emptyArrs, scalarArrs, namedArrs   int // arrays: all, empty, of scalars, of objects with a string .name

	distinct map[string]int // values as jq's tostring prints them
	overflow bool           // more than maxDistinct distinct values
	seen     map[string]bool
	repeated bool           // some scalar value occurs twice
	elems    map[string]int // elements of scalar arrays, or their .name, as text
	kw       keywords       // words of the string values

	dateVals []string // the values that start with a date
	example  string   // the first string or integer value, as text

	// contains counts, for each other field, the records in which a
	// string value of f contains the text of that field's value: a URL
	// built from an identifier contains it in every record.
	contains map[string]int

	// parent, for a field one level down (a string in the objects of a
	// top-level field), is that top-level field's name; subs are those
	// fields of f, in order of first appearance.
	parent string
	subs   []*field
}

// maxSubs bounds the fields one level down examined per top-level field.
const maxSubs = 32

// sub records the string value v of the field name of an object held by f.
func (f *field) sub(name string, v string) {
	var s *field
	for _, c := range f.subs {
		if c.name == name {
			s = c
			break
		}
	}
	if s == nil {
		if len(f.subs) >= maxSubs || len(name) > maxValueBytes {
			return
		}
		s = &field{name: name, parent: f.name, distinct: map[string]int{}}
		f.subs = append(f.subs, s)
	}
	s.present++
	s.nonNull++
	s.strs++
	s.strBytes += len(v)
	if dateRE.MatchString(v) {
		s.dates++
	}
	if strings.Contains(v, " ") {
		s.spaces++
	}
	if strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "https://") {
		s.urls++
	}
	s.addDistinct(v)
}

// kind is the single type of the non-null values of f ("string", "boolean"
// or "int"), or "" when they are mixed or not scalars.
func (f *field) kind() string {
	switch {
	case f.nonNull == 0:
		return ""
	case f.strs == f.nonNull:
		return "string"
	case f.bools == f.nonNull:
		return "boolean"
	case f.ints == f.nonNull:
		return "int"
	}
	return ""
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
	n         int            // records
	types     map[string]int // records by jq type name
	objects   int            // object records
	textLines int            // {"line": N, "text": "..."} records
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
		types:     map[string]int{},
		fields:    map[string]*field{},
		values:    map[string]int{},
		firstLine: -1,
	}
	for _, r := range recs {
		a.types[jqType(r.v)]++
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
			f = &field{name: k, order: len(a.order), distinct: map[string]int{}, elems: map[string]int{}}
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
			f.strs++
			f.strBytes += len(v)
			if dateRE.MatchString(v) {
				f.dates++
				f.dateVals = append(f.dateVals, v)
			}
			if strings.Contains(v, " ") {
				f.spaces++
			}
			if strings.HasPrefix(v, "http://") || strings.HasPrefix(v, "https://") {
				f.urls++
			}
			f.kw.add(v)
			f.addDistinct(v)
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
				s, ok := scalarText(e)
				if !ok {
					scalar = false
					// A float, a null, an array or an object without a
					// string name: the array is no list.
					o, _ := e.(map[string]any)
					if s, ok = o["name"].(string); !ok {
						named = false
						continue
					}
				} else {
					named = false
				}
				if _, seen := f.elems[s]; seen || len(f.elems) < 4*maxDistinct {
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
			f.overflow = true // objects are not categories
			for _, k := range sortedKeys(v) {
				if s, ok := v[k].(string); ok {
					f.sub(k, s)
				}
			}
		default:
			f.overflow = true
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
			if f.contains == nil {
				f.contains = map[string]int{}
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
	if f.example == "" {
		f.example = s
	}
	if f.seen == nil {
		f.seen = map[string]bool{}
	}
	if f.seen[s] {
		f.repeated = true
	}
	f.seen[s] = true
	if f.overflow {
		return
	}
	if _, seen := f.distinct[s]; !seen && len(f.distinct) >= maxDistinct {
		f.overflow = true
		return
	}
	f.distinct[s]++
}

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
		for _, k := range sortedKeys(v) {
			collectStrings(v[k], ss)
		}
	}
}

// jqType returns the name jq's type gives the decoded value v.
func jqType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number, float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

func (a *analysis) shape() shape {
	switch {
	case a.textLines > 0 && 2*a.textLines > a.n:
		return shapeText
	case a.n == 0 || 2*a.objects >= a.n:
		return shapeObjects
	}
	return shapeScalars
}

// jqKeywords are the words that cannot be written as .name or {name} in
// every jq version.
var jqKeywords = map[string]bool{
	"as": true, "def": true, "module": true, "import": true, "include": true,
	"if": true, "then": true, "elif": true, "else": true, "end": true,
	"and": true, "or": true, "not": true, "reduce": true, "foreach": true,
	"try": true, "catch": true, "label": true, "__loc__": true,
}

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

// suffix returns the jq suffix that follows a term to access field name:
// .name or ["name"].
func suffix(name string) string {
	if isIdent(name) {
		return "." + name
	}
	return "[" + jqString(name) + "]"
}

// key returns name as an object key in jq: name or "name".
func key(name string) string {
	if isIdent(name) {
		return name
	}
	return jqString(name)
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

func scalarRecipes(a *analysis) []Recipe {
	numeric := len(a.numbers) > a.strs
	value, ok := mostCommon(a.values)
	if !ok {
		value = ParamValue
	}
	rs := []Recipe{
		{Description: "Count the records", Label: "count", Filter: filterCount, Slurp: true},
		{Description: "Count by JSON type", Label: "count by type", Filter: filterTypes, Slurp: true, Compact: true},
		{Description: "Show the first 20 records", Label: "first 20", Filter: `.[:20][]`, Slurp: true, Compact: true},
		{}, // 4
		{
			Description: "Records equal to a given value",
			Label:       "equal to value",
			Filter:      `select(tostring == $value)`,
			Compact:     true,
			Params:      []Param{{ParamValue, value, "value, compared as text", ""}},
		},
		{
			Description: "The 20 most frequent values with their counts",
			Label:       "top values",
			Filter:      `group_by(.) | map({value: .[0], count: length}) | sort_by(-.count) | .[:20][]`,
			Slurp:       true, Compact: true,
		},
		{Description: "Count the distinct values", Label: "count distinct", Filter: `unique | length`, Slurp: true},
		{}, // 8
		{}, // 9
		{}, // 10
	}
	if numeric {
		rs[3] = Recipe{
			Description: "Numbers greater than a threshold",
			Label:       "greater than min",
			Filter:      `numbers | select(. > ($min | tonumber))`,
			Compact:     true,
			Params:      []Param{{ParamMin, median(a.numbers), "exclusive lower bound", ""}},
		}
		rs[7] = Recipe{Description: "The 10 smallest numbers", Label: "smallest 10", Filter: `map(numbers) | sort | .[:10][]`, Slurp: true, Compact: true}
	} else {
		w, _ := a.strWords.pick()
		rs[3] = Recipe{
			Description: "Strings with a keyword",
			Label:       "search",
			Filter:      `strings | select(test($keyword; "i"))`,
			Compact:     true,
			Params:      []Param{keywordParam(w, "each string record", "")},
		}
		rs[7] = Recipe{Description: "The 10 longest strings", Label: "longest 10", Filter: `map(strings) | sort_by(-length) | .[:10][]`, Slurp: true, Compact: true}
	}
	if len(a.numbers) > 0 {
		rs[8] = Recipe{Description: "Stats of the numbers", Label: "stats", Filter: "map(numbers) | " + filterStats, Slurp: true, Compact: true}
	} else {
		rs[8] = Recipe{
			Description: "Stats of the string lengths",
			Label:       "length stats",
			Filter:      `map(strings | length) | {count: length, min: min, max: max, avg: (if length > 0 then add / length else null end)}`,
			Slurp:       true, Compact: true,
		}
	}
	if numeric {
		rs[9] = Recipe{Description: "The 10 largest numbers", Label: "largest 10", Filter: `map(numbers) | sort | reverse | .[:10][]`, Slurp: true, Compact: true}
	} else {
		rs[9] = Recipe{Description: "List the distinct strings (sorted)", Label: "distinct strings", Filter: `map(strings) | unique | .[]`, Slurp: true, Compact: true}
	}
	return rs
}

// median returns the lower median of ns as a decimal that jq's tonumber
// parses.
func median(ns []float64) string {
	s := append([]float64(nil), ns...)
	sort.Float64s(s)
	return strconv.FormatFloat(s[(len(s)-1)/2], 'f', -1, 64)
}
