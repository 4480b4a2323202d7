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
	ParamValue = "value" // a value compared as text with tostring
	ParamMin   = "min"   // a number, exclusive lower bound
	ParamFrom  = "from"  // first line number, inclusive
	ParamTo    = "to"    // last line number, inclusive
	ParamN     = "n"     // a 1-based record number
)

// genericRecipes returns 10 recipes derived from the sample records, for the
// results of any tool. The library depends on the shape of most records:
//
//   - objects: a count, the field names, a projection of the key fields, a
//     keyword search in the longest text field, a filter on and a count by a
//     low-cardinality field, the top 10 by and statistics of a numeric
//     field, the distinct values of a field, and a full-text search over
//     every string value. A recipe whose kind of field the sample lacks is
//     replaced by another one (array field values, newest records by a date
//     field, records missing a field, the first or last records, record
//     shapes, leaf paths, ...);
//   - text lines, the {"line": N, "text": "..."} records of a plain-text
//     result: a line count, grep with line numbers, a match count, a line
//     range, the last lines, the longest lines, grep -v, word frequencies,
//     duplicate lines and the plain text;
//   - other values (strings, numbers, arrays): counts, search, value
//     frequencies and statistics.
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
		r := record{v: v}
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

	present, nonNull                          int
	strs, nums, ints, bools, arrs, scalarArrs int
	dates, strBytes                           int

	distinct map[string]int // values as jq's tostring prints them
	overflow bool           // more than maxDistinct distinct values
	elems    map[string]int // elements of scalar arrays, as text
	kw       keywords       // words of the string values
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
	firstLine int64          // smallest line number of text lines
	values    map[string]int // scalar records as text (strings, ints)
	strs      int            // string records
	numbers   []float64      // number records
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
			if n, err := strconv.ParseInt(l.String(), 10, 64); err == nil && (a.firstLine < 0 || n < a.firstLine) {
				a.firstLine = n
			}
		}
	}
	for _, k := range keys {
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
			scalar := true
			for _, e := range v {
				s, ok := scalarText(e)
				if !ok {
					scalar = false
					continue
				}
				if _, seen := f.elems[s]; seen || len(f.elems) < 4*maxDistinct {
					f.elems[s]++
				}
			}
			if scalar {
				f.scalarArrs++
			}
		default:
			f.overflow = true // objects are not categories
		}
	}
}

func (f *field) addDistinct(s string) {
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

// common reports whether f is present in at least half of the objects.
func (a *analysis) common(f *field) bool { return 2*f.present >= a.objects }

// idField returns the field that identifies records, or nil.
func (a *analysis) idField() *field {
	scalar := func(f *field) bool {
		return f != nil && a.common(f) && f.nonNull > 0 && f.strs+f.nums == f.nonNull
	}
	for _, name := range []string{"id", "_id", "ID", "Id", "uuid", "key"} {
		if f := a.fields[name]; scalar(f) {
			return f
		}
	}
	for _, f := range a.order {
		if idLike(f.name) && scalar(f) {
			return f
		}
	}
	// Else the string field with unique values that are shortest (a name
	// rather than a description), or else an integer field with unique
	// values.
	var str, num *field
	for _, f := range a.order {
		if !scalar(f) || f.nonNull < 2 || f.overflow || len(f.distinct) != f.nonNull {
			continue
		}
		switch f.kind() {
		case "string":
			if str == nil || f.avgLen() < str.avgLen() {
				str = f
			}
		case "int":
			if num == nil {
				num = f
			}
		}
	}
	if str != nil {
		return str
	}
	return num
}

// idLike reports whether a field name says it holds an identifier.
func idLike(name string) bool {
	l := strings.ToLower(name)
	return l == "id" || l == "_id" || l == "uuid" || strings.HasSuffix(l, "_id") ||
		len(name) > 2 && (strings.HasSuffix(name, "Id") || strings.HasSuffix(name, "ID"))
}

// categories returns the low-cardinality scalar fields, best first: strings
// before booleans before integers, then fewer distinct values first.
func (a *analysis) categories(id *field) []*field {
	rank := map[string]int{"string": 0, "boolean": 1, "int": 2}
	var fs []*field
	for _, f := range a.order {
		d := len(f.distinct)
		if f != id && a.common(f) && f.nonNull >= 2 && f.kind() != "" && !f.overflow && d >= 2 && d <= 20 && d < f.nonNull {
			fs = append(fs, f)
		}
	}
	sort.SliceStable(fs, func(i, j int) bool {
		if ri, rj := rank[fs[i].kind()], rank[fs[j].kind()]; ri != rj {
			return ri < rj
		}
		return len(fs[i].distinct) < len(fs[j].distinct)
	})
	return fs
}

// shortStrings returns the common string fields with short values, in order.
func (a *analysis) shortStrings(exclude ...*field) []*field {
	var fs []*field
	for _, f := range a.order {
		if !contains(exclude, f) && a.common(f) && f.strs > 0 && 2*f.strs >= f.nonNull && f.avgLen() <= 80 {
			fs = append(fs, f)
		}
	}
	return fs
}

// numeric returns the common number field with the most numbers that is not
// an identifier, or nil.
func (a *analysis) numeric() *field {
	var best *field
	for _, f := range a.order {
		if !idLike(f.name) && a.common(f) && f.nums > 0 && 2*f.nums >= f.nonNull && (best == nil || f.nums > best.nums) {
			best = f
		}
	}
	return best
}

// searchable returns the string field with the longest values that has a
// keyword, and the keyword, or nil.
func (a *analysis) searchable() (*field, string) {
	var fs []*field
	for _, f := range a.order {
		if f.strs > 0 && 2*f.strs >= f.nonNull {
			fs = append(fs, f)
		}
	}
	sort.SliceStable(fs, func(i, j int) bool { return fs[i].avgLen() > fs[j].avgLen() })
	for _, f := range fs {
		if w, ok := f.kw.pick(); ok {
			return f, w
		}
	}
	return nil, ""
}

// arrayField returns the field holding arrays of scalars with the most
// arrays, or nil.
func (a *analysis) arrayField() *field {
	var best *field
	for _, f := range a.order {
		if f.arrs > 0 && f.scalarArrs == f.arrs && 2*f.arrs >= f.nonNull && len(f.elems) > 0 && (best == nil || f.arrs > best.arrs) {
			best = f
		}
	}
	return best
}

// dateField returns the first common field whose values are mostly strings
// that start with a date, or nil.
func (a *analysis) dateField() *field {
	for _, f := range a.order {
		if a.common(f) && f.dates > 0 && 2*f.dates >= f.nonNull {
			return f
		}
	}
	return nil
}

// optionalField returns the field missing from the most objects among those
// present in some but not all of them, or nil.
func (a *analysis) optionalField() *field {
	var best *field
	for _, f := range a.order {
		if f.present < a.objects && (best == nil || f.present > best.present) {
			best = f
		}
	}
	return best
}

func contains(fs []*field, f *field) bool {
	for _, g := range fs {
		if g == f {
			return true
		}
	}
	return false
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
// specification's literal "keyword") described as matching what.
func keywordParam(w, what string) Param {
	if w == "" {
		w = defaultKeyword
	}
	return Param{ParamKeyword, w, "keyword or regular expression, matched case-insensitively against " + what}
}

const (
	filterCount     = `length`
	filterTypes     = `group_by(type) | map({type: (.[0] | type), count: length}) | .[]`
	filterFullText  = `select(any(.. | strings; test($keyword; "i")))`
	filterFieldList = `map(objects | keys[]) | group_by(.) | map({field: .[0], count: length}) | .[]`
	filterShapes    = `map(objects | keys) | group_by(.) | map({fields: .[0], count: length}) | sort_by(-.count) | .[]`
	filterLeafPaths = `map([path(.. | select(type != "object" and type != "array")) | reduce .[] as $k (""; if ($k | type) == "number" then . + "[]" elif . == "" then $k else . + "." + $k end)] | unique) | add // [] | group_by(.) | map({path: .[0], count: length}) | .[]`
	filterStats     = `{count: length, min: min, max: max, sum: add, avg: (if length > 0 then add / length else null end)}`
)

func objectRecipes(a *analysis) []Recipe {
	id := a.idField()
	cats := a.categories(id)
	var cat, other *field
	if len(cats) > 0 {
		cat = cats[0]
	}
	if len(cats) > 1 {
		other = cats[1]
	} else if ss := a.shortStrings(id, cat); len(ss) > 0 {
		other = ss[0]
	}
	num := a.numeric()
	text, textWord := a.searchable()
	mixed := len(a.types) > 1

	slots := make([]*Recipe, Count)
	if mixed {
		slots[0] = &Recipe{
			Description: "Count records, in total and by JSON type",
			Filter:      `{total: length, by_type: (group_by(type) | map({type: (.[0] | type), count: length}))}`,
			Slurp:       true, Compact: true,
		}
	} else {
		slots[0] = &Recipe{Description: "Count records", Filter: filterCount, Slurp: true}
	}
	slots[1] = &Recipe{
		Description: "List the field names with the number of records that have each",
		Filter:      filterFieldList, Slurp: true, Compact: true,
	}
	if proj := projection(a, id); len(proj) > 0 {
		names := make([]string, len(proj))
		parts := make([]string, len(proj))
		for i, f := range proj {
			names[i] = f.name
			if isIdent(f.name) {
				parts[i] = f.name
			} else {
				parts[i] = jqString(f.name) + ": " + path(f.name)
			}
		}
		slots[2] = &Recipe{
			Description: "Project " + strings.Join(names, ", ") + " (one record per line)",
			Filter:      "objects | {" + strings.Join(parts, ", ") + "}",
			Compact:     true,
		}
	}
	if text != nil {
		slots[3] = &Recipe{
			Description: "Search " + text.name + " by keyword (case-insensitive regular expression)",
			Filter:      "objects | select(" + path(text.name) + ` | strings | test($keyword; "i"))`,
			Compact:     true,
			Params:      []Param{keywordParam(textWord, text.name)},
		}
	}
	if cat != nil {
		v, _ := mostCommon(cat.distinct)
		cond := path(cat.name) + " == $value"
		if cat.kind() != "string" {
			cond = "(" + path(cat.name) + " | tostring) == $value"
		}
		slots[4] = &Recipe{
			Description: "Filter records where " + cat.name + " equals a value",
			Filter:      "objects | select(" + cond + ")",
			Compact:     true,
			Params:      []Param{{ParamValue, v, "value of " + cat.name + ", compared as text"}},
		}
		k := key(cat.name)
		if cat.name == "count" {
			k = "value"
		}
		slots[5] = &Recipe{
			Description: "Count records by " + cat.name + " (most frequent first)",
			Filter:      "map(objects) | group_by(" + path(cat.name) + ") | map({" + k + ": .[0]" + suffix(cat.name) + ", count: length}) | sort_by(-.count) | .[]",
			Slurp:       true, Compact: true,
		}
	}
	if num != nil {
		p := path(num.name)
		slots[6] = &Recipe{
			Description: "Top 10 records by " + num.name + " (highest first)",
			Filter:      "map(objects | select(" + p + ` | type == "number")) | sort_by(-` + p + ") | .[:10][]",
			Slurp:       true, Compact: true,
		}
		slots[8] = &Recipe{
			Description: "Statistics of " + num.name + ": count, min, max, sum and average",
			Filter:      "map(objects | " + p + " | numbers) | " + filterStats,
			Slurp:       true, Compact: true,
		}
	}
	if other != nil {
		slots[7] = &Recipe{
			Description: "List the distinct values of " + other.name + " (sorted)",
			Filter:      "map(objects | " + path(other.name) + " | select(. != null)) | unique | .[]",
			Slurp:       true, Compact: true,
		}
	}
	slots[9] = &Recipe{
		Description: "Full-text search: records with any string value matching a keyword (case-insensitive regular expression)",
		Filter:      filterFullText,
		Compact:     true,
		Params:      []Param{keywordParam(a.allWord(), "every string value of the record")},
	}
	return fill(slots, objectFallbacks(a, mixed))
}

// allWord returns the keyword of the whole records, or "".
func (a *analysis) allWord() string {
	w, _ := a.all.pick()
	return w
}

// projection returns the fields of the projection recipe: the id field and
// up to 3 short string fields, completed with other scalar fields.
func projection(a *analysis, id *field) []*field {
	var fs []*field
	if id != nil {
		fs = append(fs, id)
	}
	for _, f := range a.shortStrings(id) {
		if len(fs) == 4 || id == nil && len(fs) == 3 {
			break
		}
		fs = append(fs, f)
	}
	for _, f := range a.order {
		if len(fs) >= 4 || id == nil && len(fs) >= 3 {
			break
		}
		if !contains(fs, f) && a.common(f) && f.nums+f.bools > 0 && 2*(f.nums+f.bools) >= f.nonNull {
			fs = append(fs, f)
		}
	}
	return fs
}

// objectFallbacks returns the recipes that replace those whose kind of
// field the sample lacks, best first. The last seven apply to any records:
// with recipes 1, 2 and 10, which objectRecipes always makes, there are
// always enough to make 10.
func objectFallbacks(a *analysis, mixed bool) []Recipe {
	var rs []Recipe
	if f := a.arrayField(); f != nil {
		v, _ := mostCommon(f.elems)
		rs = append(rs,
			Recipe{
				Description: "Filter records whose " + f.name + " array contains a value",
				Filter:      "objects | select(any(" + path(f.name) + "[]?; tostring == $value))",
				Compact:     true,
				Params:      []Param{{ParamValue, v, "element of " + f.name + ", compared as text"}},
			},
			Recipe{
				Description: "Count the values in the " + f.name + " arrays (most frequent first)",
				Filter:      "map(objects | " + path(f.name) + " | arrays | .[]) | group_by(.) | map({value: .[0], count: length}) | sort_by(-.count) | .[]",
				Slurp:       true, Compact: true,
			})
	}
	if f := a.dateField(); f != nil {
		p := path(f.name)
		rs = append(rs, Recipe{
			Description: "Newest 10 records by " + f.name,
			Filter:      "map(objects | select(" + p + ` | type == "string")) | sort_by(` + p + ") | reverse | .[:10][]",
			Slurp:       true, Compact: true,
		})
	}
	if f := a.optionalField(); f != nil {
		rs = append(rs, Recipe{
			Description: "Records without the field " + f.name,
			Filter:      "objects | select(has(" + jqString(f.name) + ") | not)",
			Compact:     true,
		})
	}
	rs = append(rs,
		Recipe{Description: "Show the first 5 records", Filter: `.[:5][]`, Slurp: true, Compact: true},
		Recipe{Description: "Count records per set of field names (record shapes, most frequent first)", Filter: filterShapes, Slurp: true, Compact: true},
		Recipe{Description: "List the leaf field paths (nested fields joined with '.', array elements as []) with the number of records that have each", Filter: filterLeafPaths, Slurp: true, Compact: true},
	)
	if mixed { // recipe 1 already counts by type
		rs = append(rs, Recipe{Description: "Show the records that are not objects", Filter: `select(type != "object")`, Compact: true})
	} else {
		rs = append(rs, Recipe{Description: "Count records by JSON type", Filter: filterTypes, Slurp: true, Compact: true})
	}
	return append(rs,
		Recipe{Description: "Show the last 5 records", Filter: `.[-5:][]`, Slurp: true, Compact: true},
		Recipe{
			Description: "Show record number n (1-based)",
			Filter:      `.[($n | tonumber) - 1]`,
			Slurp:       true, Compact: true,
			Params: []Param{{ParamN, "1", "record number, from 1"}},
		},
		Recipe{Description: "Show the 5 records with the most fields", Filter: `map(objects) | sort_by(-length) | .[:5][]`, Slurp: true, Compact: true},
	)
}

// fill replaces the nil slots with the fallbacks, in order, and returns the
// recipes.
func fill(slots []*Recipe, fallbacks []Recipe) []Recipe {
	rs := make([]Recipe, 0, len(slots))
	for _, s := range slots {
		if s == nil {
			s, fallbacks = &fallbacks[0], fallbacks[1:]
		}
		rs = append(rs, *s)
	}
	return rs
}

// lineFormat prints a text line record as grep -n does.
const lineFormat = `"\(.line): \(.text)"`

func textRecipes(a *analysis) []Recipe {
	w, _ := a.text.pick()
	kw := func() []Param { return []Param{keywordParam(w, "the text of each line")} }
	from := a.firstLine
	if from < 0 {
		from = 1
	}
	return []Recipe{
		{Description: "Count lines", Filter: filterCount, Slurp: true},
		{
			Description: "Search lines by keyword, with line numbers (like grep -n)",
			Filter:      `objects | select(.text | strings | test($keyword; "i")) | ` + lineFormat,
			Raw:         true, Params: kw(),
		},
		{
			Description: "Count the lines matching a keyword",
			Filter:      `map(objects | select(.text | strings | test($keyword; "i"))) | length`,
			Slurp:       true, Params: kw(),
		},
		{
			Description: "Show the lines from line number from to line number to",
			Filter:      `objects | select(.line | numbers | . >= ($from | tonumber) and . <= ($to | tonumber)) | ` + lineFormat,
			Raw:         true,
			Params: []Param{
				{ParamFrom, strconv.FormatInt(from, 10), "first line number, inclusive"},
				{ParamTo, strconv.FormatInt(from+19, 10), "last line number, inclusive"},
			},
		},
		{Description: "Show the last 20 lines", Filter: `.[-20:][] | objects | ` + lineFormat, Slurp: true, Raw: true},
		{
			Description: "Show the 10 longest lines, with their length in characters",
			Filter:      `map(objects | select(.text | type == "string")) | sort_by(-(.text | length)) | .[:10][] | "\(.line) (\(.text | length) chars): \(.text)"`,
			Slurp:       true, Raw: true,
		},
		{
			Description: "Show the lines not matching a keyword (like grep -v)",
			Filter:      `objects | select(.text | strings | test($keyword; "i") | not) | ` + lineFormat,
			Raw:         true, Params: kw(),
		},
		{
			Description: "Count the 20 most frequent words (lower-cased)",
			Filter:      `[.[] | objects | .text | strings | ascii_downcase | scan("[a-z0-9_]+")] | group_by(.) | map({word: .[0], count: length}) | sort_by(-.count) | .[:20][]`,
			Slurp:       true, Compact: true,
		},
		{
			Description: "Show the duplicated lines with their counts",
			Filter:      `map(objects | .text | strings) | group_by(.) | map(select(length > 1) | {text: .[0], count: length}) | sort_by(-.count) | .[]`,
			Slurp:       true, Compact: true,
		},
		{Description: "Print the plain text, without line numbers", Filter: `objects | .text | strings`, Raw: true},
	}
}

func scalarRecipes(a *analysis) []Recipe {
	numeric := len(a.numbers) > a.strs
	value, ok := mostCommon(a.values)
	if !ok {
		value = ParamValue
	}
	rs := []Recipe{
		{Description: "Count records", Filter: filterCount, Slurp: true},
		{Description: "Count records by JSON type", Filter: filterTypes, Slurp: true, Compact: true},
		{Description: "Show the first 20 records", Filter: `.[:20][]`, Slurp: true, Compact: true},
		{}, // 4
		{
			Description: "Records equal to a value (compared as text)",
			Filter:      `select(tostring == $value)`,
			Compact:     true,
			Params:      []Param{{ParamValue, value, "value, compared as text"}},
		},
		{
			Description: "The 20 most frequent values with their counts",
			Filter:      `group_by(.) | map({value: .[0], count: length}) | sort_by(-.count) | .[:20][]`,
			Slurp:       true, Compact: true,
		},
		{Description: "Count the distinct values", Filter: `unique | length`, Slurp: true},
		{}, // 8
		{}, // 9
		{}, // 10
	}
	if numeric {
		rs[3] = Recipe{
			Description: "Numbers greater than min",
			Filter:      `numbers | select(. > ($min | tonumber))`,
			Compact:     true,
			Params:      []Param{{ParamMin, median(a.numbers), "exclusive lower bound"}},
		}
		rs[7] = Recipe{Description: "The 10 smallest numbers", Filter: `map(numbers) | sort | .[:10][]`, Slurp: true, Compact: true}
	} else {
		w, _ := a.strWords.pick()
		rs[3] = Recipe{
			Description: "Search string records by keyword (case-insensitive regular expression)",
			Filter:      `strings | select(test($keyword; "i"))`,
			Compact:     true,
			Params:      []Param{keywordParam(w, "each string record")},
		}
		rs[7] = Recipe{Description: "The 10 longest strings", Filter: `map(strings) | sort_by(-length) | .[:10][]`, Slurp: true, Compact: true}
	}
	if len(a.numbers) > 0 {
		rs[8] = Recipe{Description: "Statistics of the numbers: count, min, max, sum and average", Filter: "map(numbers) | " + filterStats, Slurp: true, Compact: true}
	} else {
		rs[8] = Recipe{
			Description: "Statistics of the string lengths: count, min, max and average",
			Filter:      `map(strings | length) | {count: length, min: min, max: max, avg: (if length > 0 then add / length else null end)}`,
			Slurp:       true, Compact: true,
		}
	}
	if numeric {
		rs[9] = Recipe{Description: "The 10 largest numbers", Filter: `map(numbers) | sort | reverse | .[:10][]`, Slurp: true, Compact: true}
	} else {
		rs[9] = Recipe{Description: "List the distinct strings (sorted)", Filter: `map(strings) | unique | .[]`, Slurp: true, Compact: true}
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
