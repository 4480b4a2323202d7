package recipes

import (
	"cmp"
	"encoding/json"
	"slices"

	"github.com/zircote/lro-go/internal/spec"
)

// The flow of [Select]: the sample is read (sample.go); memory records get
// the specification's library (memory.go); others are analyzed
// (analysis.go) and get the library of objects (objects.go), lines of text
// (lines.go) or other values (scalars.go), ten chosen among more
// (choose.go); a recipe renders as jq arguments or a command (jqtext.go).

// Detail is the detail level of memory records: [Light], [Medium] or
// [Full].
type Detail string

// The detail levels of the specification.
const (
	Light  Detail = "light"
	Medium Detail = "medium"
	Full   Detail = "full"
)

// Recipe is one jq recipe, made by [Select]: recipe N, as descriptors
// number them, is the N-th. It runs as a shell command ([Recipe.Command])
// or as the arguments of a jq process ([Recipe.Args]). Its methods are
// safe for concurrent use; the zero Recipe is not useful.
type Recipe struct {
	Description string // what it does
	Label       string // what it does in a few words, for a list of recipes: "search titles"

	filter  string  // jq program, reading one record per input (or, with -s, all as one array)
	options string  // the letters of its jq options of s, r and c (-s, -r, -c), in that order
	params  []param // jq variables the filter uses, as $name

	preview [][]string // the Projection of the records, the same in each recipe of a Select
}

// param is a jq variable of a recipe, a string: its name (without '$'),
// default value and the field it is matched against ([Recipe.Field]).
type param struct{ name, value, field string }

// recipe returns the recipe of filter, run with the jq options of the
// letters options, described by desc and labeled label.
func recipe(desc, label, filter, options string, params ...param) Recipe {
	return Recipe{Description: desc, Label: label, filter: filter, options: options, params: params}
}

// keywordParam returns the keyword parameter with default w (or the
// specification's "keyword"), matched against field.
func keywordParam(w, field string) param {
	return param{spec.ParamKeyword, cmp.Or(w, defaultKeyword), field}
}

// Field returns the top-level field of the records whose string value the
// parameter name (of [Recipe.Args]) is matched against: as a
// case-insensitive regular expression for a keyword, for equality for a
// value; "" when it is matched against no one field, or for no such
// parameter. A program that states conditions on fields, such as
// lro_extract's where, states the recipe's with it.
func (r Recipe) Field(name string) string {
	for _, p := range r.params {
		if p.name == name {
			return p.field
		}
	}
	return ""
}

// Select returns the 10 recipes for records like those of sample, the
// leading records of a result set (one JSON value each), at the given detail
// level, and reports whether they are memory records: more than half of the
// sample records that are valid JSON are objects carrying id, title,
// namespace and memory_type. An empty sample is not memory records.
//
// Memory records get the specification's library, whose recipes 9 and 10
// adapt to detail (an unknown one is [Light]); other records get recipes
// derived from the sample, whatever detail. The result depends only on
// detail and sample.
func Select(detail Detail, sample []json.RawMessage) (rs []Recipe, memory bool) {
	recs := readSample(sample)
	var preview [][]string
	if isMemory(recs) {
		rs, memory, preview = memoryLibrary(detail, recs), true, [][]string{{"id"}, {"title"}, {"namespace"}}
	} else {
		rs, preview = genericOf(analyze(values(recs)))
	}
	for i := range rs {
		rs[i].preview = preview
	}
	return rs, memory
}

// genericOf returns the recipes of records that are not memories, analyzed
// as a, by the shape of most records: text lines, objects (also for no
// records) or other values; and their Projection.
func genericOf(a *analysis) ([]Recipe, [][]string) {
	switch {
	case a.textLines > 0 && 2*a.textLines > a.n:
		return textRecipes(a), nil
	case 2*a.objects >= a.n:
		return objectRecipes(a)
	}
	return scalarRecipes(a), nil
}

// Projection returns the fields that a preview shows of the records for
// which [Select] made rs: those the recipes list them by. For memory
// records, id, title and namespace; for object records, those of the
// listing recipe but its time (an identifier, a title, a category, a
// measure). Each is a path of one name, or two for a field one level down.
// It returns nil when the records are best shown whole (lines of text,
// values that are not objects, objects of no such fields), and for recipes
// that Select did not make.
func Projection(rs []Recipe) [][]string {
	if len(rs) == 0 || rs[0].preview == nil {
		return nil
	}
	paths := make([][]string, len(rs[0].preview))
	for i, p := range rs[0].preview {
		paths[i] = slices.Clone(p)
	}
	return paths
}
