package recipes

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/zircote/lro-go/internal/spec"
)

const (
	filterTypes     = `group_by(type) | map({type: (.[0] | type), count: length}) | .[]`
	filterFullText  = `select(any(.. | strings; test($keyword; "i")))`
	filterFieldList = `map(objects | keys[]) | group_by(.) | map({field: .[0], count: length}) | .[]`
	filterShapes    = `map(objects | keys) | group_by(.) | map({fields: .[0], count: length}) | sort_by(-.count) | .[]`
	// filterNested lists the fields one level down only: the paths of every
	// leaf (path(..)) cost jq 1.6 far more than reading the records.
	filterNested = `map(objects | keys[] as $k | .[$k] | objects | keys[] | $k + "." + .) | group_by(.) | map({path: .[0], count: length}) | .[]`
	filterStats  = `{count: length, min: min, max: max, sum: add}` // the mean is sum / count
)

// The recipes of object records and of other values alike.
var (
	countRecords = recipe("Count the records", "count", "length", "s")
	countByType  = recipe("Count by JSON type", "count by type", filterTypes, "sc")
)

// objectRecipes returns the library of object records: the recipes that
// the roles of their fields call for (docs/recipes.md), completed with
// recipes that apply to any records; and their Projection: the fields of
// the listing recipe but its time, which says less of a record than its
// size in a preview (none for no records).
func objectRecipes(a *analysis) ([]Recipe, [][]string) {
	rs := a.roles()
	mixed := a.objects < a.n // objects are most records: some are not
	var cs []candidate
	add := func(rank, pos int, r Recipe) { cs = append(cs, candidate{rank, pos, r}) }

	if mixed {
		add(0, 1, recipe("Count the records, in total and by JSON type", "count by type",
			`{total: length, by_type: (group_by(type) | map({type: (.[0] | type), count: length}))}`, "sc"))
	} else {
		add(0, 1, countRecords)
	}
	// The listing: an identifier and a title (ident), with a category, a
	// measure and a time (proj).
	id, title := a.identity(rs)
	ident := slices.DeleteFunc([]*field{id, title}, func(f *field) bool { return f == nil })
	proj := projection(rs, id, ident)
	var names []string
	var preview [][]string
	for _, f := range proj {
		names = append(names, f.displayName())
		switch {
		case a.role(f) == roleTime:
		case f.parent != "":
			preview = append(preview, []string{f.parent, f.name})
		default:
			preview = append(preview, []string{f.name})
		}
	}
	if len(proj) > 0 {
		add(1, 2, recipe("List "+englishList(names), "list", "objects | "+object(proj), "c"))
	}
	// objShort follows records of any type.
	short, objShort := brief(a, ident, nil), ""
	if short != "" {
		objShort = " | objects" + short
	}
	if id != nil {
		cond := path(id.name) + " == $value"
		if id.strs < id.nonNull {
			cond = "(" + path(id.name) + " | tostring) == $value"
		}
		add(3, 3, recipe("Show the record with a given "+id.name, "look up "+id.name,
			"objects | select("+cond+")", "c",
			param{spec.ParamValue, id.example, ""}))
	}
	texts := rs[roleText]
	for i := len(texts) - 1; i >= 0; i-- { // the longest text that has a keyword
		if w := texts[i].kw.pick(); w != "" {
			name := texts[i].name
			add(2, 4, recipe("Search "+name+" for a keyword", "search "+name,
				"objects | select("+path(name)+` | strings | test($keyword; "i"))`+short, "c",
				keywordParam(w, name)))
			break
		}
	}
	cats := rs[roleCategory]
	for i, cat := range cats[:min(len(cats), 2)] {
		if i == 0 {
			v := mostCommon(maps.All(cat.distinct))
			cond, field := path(cat.name)+" == $value", cat.name
			if cat.strs < cat.nonNull {
				// Compared as text: no where condition states it.
				cond, field = "("+path(cat.name)+" | tostring) == $value", ""
			}
			add(2, 5, recipe("Filter by "+cat.name, "filter "+cat.name,
				"objects | select("+cond+")"+brief(a, ident, cat), "c",
				param{spec.ParamValue, v, field}))
		}
		k, value := cat.name, "."+cat.name // the key of the count, and its value after .[0]
		if !isIdent(k) {
			k = jqString(k)
			value = "[" + k + "]"
		}
		if cat.name == "count" {
			k = "value"
		}
		add(3+2*i, 6+i, recipe("Count by "+cat.name, "count by "+cat.name,
			"map(objects) | group_by("+path(cat.name)+") | map({"+k+": .[0]"+value+", count: length}) | sort_by(-.count) | .[]",
			"sc"))
	}
	if list := rs.first(roleList); list != nil {
		v := mostCommon(maps.All(list.elems))
		elems, noun, member := path(list.name)+"[]?", "value", "tostring == $value"
		each := path(list.name) + " | arrays | .[]"
		if list.namedArrs > 0 {
			elems, noun, member = path(list.name)+"[]? | objects", "name", ".name == $value"
			each += " | objects | .name"
		}
		add(2, 8, recipe("Filter by a "+noun+" in "+list.name, "filter "+list.name,
			"objects | select(any("+elems+"; "+member+"))"+short, "c",
			param{spec.ParamValue, v, ""}))
		add(5, 9, recipe("Count by each value in "+list.name, "count by "+list.name,
			"map(objects | "+each+") | group_by(.) | map({value: .[0], count: length}) | sort_by(-.count) | .[]",
			"sc"))
	}
	if m := rs.first(roleMeasure); m != nil {
		p := path(m.name)
		add(2, 10, recipe("Top 10 by "+m.name, "top by "+m.name,
			"map(objects | select("+p+" | numbers)) | sort_by(-"+p+") | .[:10][]"+brief(a, ident, m),
			"sc"))
		add(3, 11, recipe("Stats of "+m.name, "stats of "+m.name,
			"map(objects | "+p+" | numbers) | "+filterStats, "sc"))
	}
	if tf := rs.first(roleTime); tf != nil {
		from, to := timeRange(tf.dates, time.Hour*24)
		add(2, 12, recipe("Filter by "+tf.name+" range", tf.name+" range",
			"objects | select("+path(tf.name)+" | strings | . >= $from and . < $to)"+brief(a, ident, tf),
			"c",
			param{"from", from, ""},
			param{"to", to, ""}))
	}
	add(4, 13, recipe("Records with a keyword in any text", "search all", filterFullText+objShort, "c",
		keywordParam(a.all.pick(), "")))
	add(6, 14, recipe("Count by field name", "field names", filterFieldList, "sc"))
	if f := a.optionalField(); f != nil {
		add(7, 15, recipe("Records without "+f.name, "without "+f.name,
			"objects | select(has("+jqString(f.name)+") | not)"+short, "c"))
	}
	add(8, 16, recipe("Show the first 5 records", "first 5", `.[:5][]`+objShort, "sc"))
	add(9, 17, recipe("Count by set of field names", "count by fields", filterShapes, "sc"))
	add(9, 18, recipe("Count by nested field", "nested fields", filterNested, "sc"))
	if mixed { // recipe 1 already counts by type
		add(9, 19, recipe("Show the records that are not objects", "non-objects",
			`select(type != "object")`, "c"))
	} else {
		add(9, 19, countByType)
	}
	add(10, 20, recipe("Show the last 5 records", "last 5", `.[-5:][]`+objShort, "sc"))
	add(10, 21, recipe("Show the record at a given position (from 1)", "record at n",
		`.[($n | tonumber) - 1]`, "sc", param{"n", "1", ""}))
	add(10, 22, recipe("Show the 5 records with the most fields", "most fields",
		`map(objects) | sort_by(-length) | .[:5][]`+short, "sc"))
	return choose(cs), preview
}

// englishList joins names as "a, b and c".
func englishList(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// identity returns an identifier and a title, as the roles find them (the
// first identifier; the shortest text of 60 bytes or less on average) or,
// for large records, keyField and titleField. Fields whose values contain
// the identifier's (a URL built from it) are left out, and so is a title
// that is the identifier itself.
func (a *analysis) identity(rs roles) (id, title *field) {
	id = rs.first(roleID)
	if id == nil && a.large() {
		id = a.keyField(rs.first(roleCategory))
	}
	for _, f := range rs[roleText] {
		if f.avgLen() > 60 {
			break
		}
		if !f.derivedFrom(id) {
			title = f
			break
		}
	}
	if title == nil && a.large() {
		title = a.titleField()
	}
	if title == id { // one field, listed once
		title = nil
	}
	return id, title
}

// varies reports whether some top-level field holds two values: the
// records are not all copies of one.
func (a *analysis) varies() bool {
	return slices.ContainsFunc(a.order, func(f *field) bool { return len(f.distinct) > 1 })
}

// word reports whether f, present in at least half of the objects, holds
// words that may identify or name a record: strings (or, for a name that
// says so, integers) of at most 64 bytes, not null in every record, not
// URLs or dates, and, when the records are not all copies of one, not the
// same in every record.
func (a *analysis) word(f *field, varies bool) bool {
	switch {
	case 2*f.present < a.objects, f.nonNull == 0, f.avgLen() > 64, len(f.dates) > 0, 2*f.urls > f.strs:
		return false
	case varies && len(f.distinct) < 2:
		return false
	}
	return f.strs == f.nonNull || f.ints == f.nonNull && idName(f.name)
}

// keyField returns the top-level field that best identifies the records
// when no field's role is an identifier: of the words with no spaces and
// the most distinct values, one named number, then one whose name says it
// identifies, then the first; never filter, the category that has a filter
// recipe; nil when none fits.
func (a *analysis) keyField(filter *field) *field {
	varies := a.varies()
	score := func(f *field) int {
		switch {
		case f.name == "number":
			return 0
		case idName(f.name):
			return 1
		}
		return 2
	}
	var best *field
	for _, f := range a.order {
		if f == filter || f.spaces > 0 || !a.word(f, varies) {
			continue
		}
		if best == nil || len(f.distinct) > len(best.distinct) || len(f.distinct) == len(best.distinct) && score(f) < score(best) {
			best = f
		}
	}
	return best
}

// titleNames are the names of fields that name their record.
var titleNames = wordSet(`title name subject summary headline`)

// titleField returns the field that names the records when no field's
// role is a short text: for copies of one record, the top-level string
// named title (or name, subject ...), else the shortest with spaces;
// otherwise, or failing that, the string one level down ({"name":
// {"common": ...}}) of 60 bytes or less on average with the most distinct
// values (for copies of one, the first with spaces), whose name does not
// say it identifies; nil when none fits.
func (a *analysis) titleField() *field {
	varies := a.varies()
	var best *field
	if !varies {
		for _, f := range a.order {
			named, bestNamed := titleNames[strings.ToLower(f.name)], best != nil && titleNames[strings.ToLower(best.name)]
			if f.spaces == 0 && !named || f.avgLen() > 60 || !a.word(f, false) {
				continue
			}
			if best == nil || named && !bestNamed || named == bestNamed && f.avgLen() < best.avgLen() {
				best = f
			}
		}
		if best != nil {
			return best
		}
	}
	for _, f := range a.order {
		if !a.common(f) {
			continue
		}
		for _, s := range f.subs {
			if s.avgLen() > 60 || idName(s.name) || !a.word(s, varies) {
				continue
			}
			// Copies of one tell no distinct values: text (with
			// spaces) names a record better than a word.
			prose := !varies && s.spaces > 0 && best != nil && best.spaces == 0
			if best == nil || len(s.distinct) > len(best.distinct) || prose {
				best = s
			}
		}
	}
	return best
}

// projection returns the fields of the listing recipe: ident (those that
// identify a record), then a category, a measure and a time, those that
// the records have, leaving out the fields whose values contain the
// identifier's (a URL built from it).
func projection(rs roles, id *field, ident []*field) []*field {
	fs := slices.Clip(ident)
	for _, r := range []role{roleCategory, roleMeasure, roleTime} {
		for _, f := range rs[r] {
			if slices.Contains(fs, f) {
				break
			}
			if !f.derivedFrom(id) {
				fs = append(fs, f)
				break
			}
		}
	}
	return fs
}

// object returns the jq object construction of fields: {a, b, "c-d":
// .["c-d"]}, and for a field one level down {"a.b": ((.a | objects | .b)
// // null)}, which tolerates an a that is not an object.
func object(fields []*field) string {
	parts := make([]string, len(fields))
	for i, f := range fields {
		switch {
		case f.parent != "":
			parts[i] = jqString(f.parent+"."+f.name) + ": ((" + path(f.parent) + " | objects | " + path(f.name) + ") // null)"
		case isIdent(f.name):
			parts[i] = f.name
		default:
			parts[i] = jqString(f.name) + ": " + path(f.name)
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// displayName is the name of f in a description: a.b for a field one
// level down.
func (f *field) displayName() string {
	if f.parent != "" {
		return f.parent + "." + f.name
	}
	return f.name
}

// largeRecords is the mean size, in bytes, of the object records that
// recipes output as the fields that identify them (brief): ten whole ones
// would not fit in an answer of 1,600 tokens.
const largeRecords = 512

// brief returns, for records of largeRecords or more on average, the jq
// suffix that projects a record to the fields proj (those that identify
// it) plus about (when not nil), and "" otherwise. The lookup of one
// record stays the way to get it whole.
func brief(a *analysis, proj []*field, about *field) string {
	if len(proj) == 0 || !a.large() {
		return ""
	}
	fs := proj
	if about != nil && !slices.Contains(proj, about) {
		fs = append(slices.Clip(proj), about)
	}
	return " | " + object(fs)
}

// large reports whether the object records are largeRecords or more on
// average.
func (a *analysis) large() bool { return a.objects > 0 && a.bytes/a.objects >= largeRecords }

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

// timeRange returns the default bounds of a range filter on ts, dates or
// times to the minute (T or a space): from the median (the filter selects
// the later half) up to the day or minute (step) after the last, or after
// every value of that day or minute when it is not a real time.
func timeRange(ts []string, step time.Duration) (from, to string) {
	ts = slices.Sorted(slices.Values(ts))
	from, last := ts[len(ts)/2], ts[len(ts)-1]
	layout := time.DateOnly
	if step < 24*time.Hour {
		last = last[:len("2006-01-02T15:04")]
		layout += last[10:11] + "15:04"
	}
	t, err := time.Parse(layout, last)
	if err != nil {
		return from, last + "~"
	}
	return from, t.Add(step).Format(layout)
}
