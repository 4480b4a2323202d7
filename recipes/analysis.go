package recipes

import (
	"cmp"
	"encoding/json"
	"iter"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Fallback parameter values, the literals of the specification's table.
const (
	defaultNamespace  = "_semantic"
	defaultKeyword    = "keyword"
	defaultTag        = "TAG"
	defaultMemoryType = "semantic"
)

func wordSet(s string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(s) {
		set[w] = true
	}
	return set
}

// stopWords are frequent English words that make poor search keywords.
var stopWords = wordSet(`
	about after also been before being could does each false from have into just like more most must
	null only other over should some such than that their them then there these they this those true
	very were what when where which while will with would your
`)

// keywords counts, for each candidate word, the documents it occurs in. The
// candidate words of a text are its runs of 4 to 24 ASCII letters,
// lower-cased, that are not stop words. Only ASCII letters are used so that
// a keyword is a regular expression without metacharacters that matches the
// same way in Oniguruma (jq) and RE2 (gojq).
type keywords struct {
	docs int                   // documents with at least one string
	df   map[string]*wordCount // document frequency of each word
}

// wordCount is the document frequency of a word, and the last document it
// was counted in, so that a word is counted once per document without a set
// of the document's words.
type wordCount struct{ docs, last int }

const maxStopWord = 6

func (k *keywords) add(ss ...string) {
	if len(ss) == 0 {
		return
	}
	k.docs++
	if k.df == nil {
		k.df = map[string]*wordCount{}
	}
	for _, s := range ss {
		k.words(s)
	}
}

// words counts the candidate words of s in the current document.
func (k *keywords) words(s string) {
	s = s[:min(len(s), maxScanBytes)]
	var lower [24]byte
	for i := 0; i < len(s); {
		for i < len(s) && lowerLetters[s[i]] == 0 {
			i++
		}
		start := i
		for i < len(s) && lowerLetters[s[i]] != 0 {
			i++
		}
		n := i - start
		if n < 4 || n > len(lower) {
			continue
		}
		w := lower[:n]
		for j := range w {
			w[j] = lowerLetters[s[start+j]]
		}
		// Map lookups with string(w) do not allocate; only a new word's
		// key does. A word counted is no stop word.
		c := k.df[string(w)]
		if c == nil && (n > maxStopWord || !stopWords[string(w)]) {
			c = &wordCount{}
			k.df[string(w)] = c
		}
		if c != nil && c.last != k.docs {
			c.docs++
			c.last = k.docs
		}
	}
}

// lowerLetters maps each ASCII letter to its lower case, any other byte to 0.
var lowerLetters = func() (t [256]byte) {
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-'a'+'A'] = byte(c), byte(c)
	}
	return t
}()

// pick returns a distinctive word: the most frequent one among the words that
// occur in at most half of the documents (so that a search on it selects),
// or the most frequent word when every word is more common than that. Ties go
// to the alphabetically first word. It returns "" when there is no word.
func (k *keywords) pick() string {
	docs := func(rare bool) iter.Seq2[string, int] {
		return func(yield func(string, int) bool) {
			for w, c := range k.df {
				if (!rare || 2*c.docs <= k.docs) && !yield(w, c.docs) {
					return
				}
			}
		}
	}
	return cmp.Or(mostCommon(docs(true)), mostCommon(docs(false)))
}

// mostCommon returns the key with the highest count, ties going to the
// alphabetically first key, of those fit for an example value (see
// exampleValue), or "" when there is none.
func mostCommon(counts iter.Seq2[string, int]) string {
	best, bestN := "", 0
	for k, n := range counts {
		if !exampleValue(k) {
			continue
		}
		if n > bestN || n == bestN && k < best {
			best, bestN = k, n
		}
	}
	return best
}

// exampleValue reports whether s can be a recipe's default value: of at
// most maxValueBytes as a descriptor writes it in a command (commandBytes:
// a descriptor holds it in full), and without a control character, which a
// command's argument cannot carry (a NUL) or a terminal would act on.
func exampleValue(s string) bool {
	return len(s) <= maxValueBytes && commandBytes(s, false) <= maxValueBytes && !strings.ContainsFunc(s, unicode.IsControl)
}

// nameable reports whether a recipe can name the field name: of at most
// maxValueBytes as a descriptor writes it in a filter (commandBytes). No
// recipe names another field: a descriptor holds its recipes in full.
func nameable(name string) bool {
	return len(name) <= maxValueBytes && commandBytes(name, true) <= maxValueBytes
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
		if len(f.subs) >= maxSubs || !nameable(name) {
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

func (f *field) avgLen() int {
	if f.strs == 0 {
		return 0
	}
	return f.strBytes / f.strs
}

// analysis is what the sample says about the records.
type analysis struct {
	n         int // records
	objects   int // object records
	textLines int // {"line": N, "text": "..."} records
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

func analyze(recs []value) *analysis {
	a := &analysis{
		n:         len(recs),
		fields:    map[string]*field{},
		values:    map[string]int{},
		firstLine: -1,
	}
	for _, r := range recs {
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
		if !nameable(k) {
			continue
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

// role is what a field of the records is, which decides what the recipes do
// with it.
type role int

const (
	roleOther    role = iota
	roleID            // identifies a record: looked up and listed, never summed or ranked
	roleMeasure       // a count, size, duration, score: summarized and ranked
	roleCategory      // few distinct values: counted and filtered
	roleTime          // starts with a date: a range filter
	roleText          // prose: a keyword search
	roleList          // array of strings, or of objects with a name: membership
)

// idNames and idSuffixes are the field names that say a field identifies
// its record.
var (
	idNames    = wordSet(`id _id uuid guid key number num sha hash slug url uri href link`)
	idSuffixes = []string{"_id", "_key", "_number", "_sha", "_url", "_uri", "Id", "ID", "Key", "Number", "Url", "URL"}
)

// idName reports whether a field name says the field holds identifiers.
func idName(name string) bool {
	return idNames[strings.ToLower(name)] || slices.ContainsFunc(idSuffixes, func(s string) bool {
		return len(name) > len(s) && strings.HasSuffix(name, s)
	})
}

// measureWords are words of the names of numeric fields that say the field
// is a measure even when its values in the sample happen to be distinct
// integers, as identifiers are. A word also matches without a final s.
var measureWords = wordSet(`
	count total amount price cost size bytes length duration elapsed latency ms millis seconds secs
	score rating comment star vote view like quantity qty weight age height width balance sum avg
	mean percent pct ratio rate line addition deletion change priority fork watcher follower
	download reaction
`)

// camelRE finds a capital that follows a small letter, where a word of a
// name in camel case starts.
var camelRE = regexp.MustCompile(`([a-z])([A-Z])`)

// measureName reports whether a field name says the field measures
// something: one of its words (split at anything but ASCII letters and
// digits, and before a capital that follows a small letter) is a measure
// word.
func measureName(name string) bool {
	words := strings.FieldsFunc(camelRE.ReplaceAllString(name, "$1 $2"), func(c rune) bool {
		return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9')
	})
	return slices.ContainsFunc(words, func(w string) bool {
		w = strings.ToLower(w)
		return measureWords[w] || measureWords[strings.TrimSuffix(w, "s")]
	})
}

func (a *analysis) common(f *field) bool { return 2*f.present >= a.objects }

// role returns what f is, from its values and its name; roleOther for a
// field present in fewer than half of the objects, constant, or of no one
// kind of value.
func (a *analysis) role(f *field) role {
	if !a.common(f) || f.nonNull == 0 || f.constant() {
		return roleOther
	}
	half := func(n int) bool { return 2*n >= f.nonNull }
	switch {
	case half(f.arrs):
		if f.emptyArrs+f.scalarArrs+f.namedArrs == f.arrs && (f.scalarArrs > 0) != (f.namedArrs > 0) && len(f.elems) > 0 {
			return roleList
		}
	case f.bools == f.nonNull:
		if len(f.distinct) == 2 {
			return roleCategory
		}
	case half(f.nums) && f.nums+f.strs == f.nonNull:
		if idName(f.name) && f.ints == f.nums {
			return roleID
		}
		if !measureName(f.name) && f.ints == f.nonNull && !f.repeated && f.nonNull >= 3 {
			return roleID // distinct integers: numbers of records
		}
		return roleMeasure
	case half(f.strs) && f.strs+f.nums == f.nonNull:
		d := len(f.distinct)
		switch {
		case half(len(f.dates)):
			return roleTime
		case idName(f.name) || half(f.urls):
			return roleID
		case f.few() && d >= 2 && d <= 20 && f.repeated && (f.avgLen() <= 24 || f.spaces == 0):
			return roleCategory
		case !f.repeated && f.spaces == 0 && f.avgLen() <= 64 && f.nonNull >= 2:
			return roleID // distinct words: keys of records
		case f.spaces > 0 || f.avgLen() > 24:
			return roleText
		}
	}
	return roleOther
}

// constant reports whether f holds one scalar value in every record that
// has it, in a sample of two or more: it tells nothing about a record.
func (f *field) constant() bool {
	return f.nonNull >= 2 && f.nonNull == f.strs+f.nums+f.bools && f.few() && len(f.distinct) == 1
}

// roles are the fields of each role, best first.
type roles map[role][]*field

// roles returns the fields by role, in order of first appearance but:
// categories of booleans after the others, the fewest values first;
// identifiers named number (what people quote) first and URLs last;
// measures whose names say so first; times that most records have first
// (created_at rather than closed_at); texts shortest first (a title is
// projected, the longest text searched).
func (a *analysis) roles() roles {
	rs := roles{}
	for _, f := range a.order {
		r := a.role(f)
		rs[r] = append(rs[r], f)
	}
	by := func(r role, key func(f *field) int) {
		slices.SortStableFunc(rs[r], func(f, g *field) int { return cmp.Compare(key(f), key(g)) })
	}
	by(roleCategory, func(f *field) int {
		if f.bools == f.nonNull {
			return maxDistinct + 1 + len(f.distinct)
		}
		return len(f.distinct)
	})
	by(roleID, func(f *field) int {
		switch {
		case f.name == "number":
			return 0
		case f.urls == 0:
			return 1
		}
		return 2
	})
	by(roleMeasure, func(f *field) int {
		if measureName(f.name) {
			return 0
		}
		return 1
	})
	by(roleTime, func(f *field) int { return -f.nonNull })
	by(roleText, (*field).avgLen)
	return rs
}

func (rs roles) first(r role) *field {
	if fs := rs[r]; len(fs) > 0 {
		return fs[0]
	}
	return nil
}
