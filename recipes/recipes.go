package recipes

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	engine "github.com/zircote/lro-go/internal/recipes"
)

// Detail is the detail level of memory records: [Light], [Medium] or
// [Full].
type Detail = engine.Detail

// The detail levels of the specification.
const (
	Light  Detail = engine.Light
	Medium Detail = engine.Medium
	Full   Detail = engine.Full
)

// errUnknownDetail is wrapped by the error of [ParseDetail] for a name that
// is empty or is not one of light, medium or full.
var errUnknownDetail = errors.New("recipes: unknown detail level")

// ParseDetail parses a detail level name. The name is trimmed and matched
// without regard to case. An empty or unknown name returns an error that
// names the value and the allowed ones.
func ParseDetail(s string) (Detail, error) {
	switch d := Detail(strings.ToLower(strings.TrimSpace(s))); d {
	case Light, Medium, Full:
		return d, nil
	}
	return "", fmt.Errorf("%w %q (want %q, %q or %q)", errUnknownDetail, s, Light, Medium, Full)
}

// Recipe is one jq recipe, made by [Select]. It runs as a shell command
// ([Recipe.Command]) or as the arguments of a jq process ([Recipe.Args]).
// A Recipe is a plain value; its methods are safe for concurrent use. The
// zero Recipe is not useful.
//
// Select returns the recipes in their order: recipe N, as descriptors and
// the guidance number them, is the N-th.
type Recipe struct {
	Description string // what it does

	r engine.Recipe
}

// Args returns the jq command-line arguments of the recipe, without the
// program name and without any quoting: the flags (-s to read all the
// records as one array, -r to print strings raw, -c to print one value per
// line), one --arg name value triple per parameter, and the filter last. It
// suits exec.Command("jq", r.Args()...) with the records (the lines after
// the header) on standard input, and an in-process jq such as
// github.com/itchyny/gojq: bind each parameter as the variable $name.
func (r Recipe) Args() []string { return r.r.Args() }

// Command renders the shell command for file:
//
//	tail -n +2 <file> | jq [-src] [--arg <name> <value>]... '<filter>'
//
// tail skips the header line. The flags -s, -r and -c are written as one
// word, in that order. The file path, every parameter name and value, and
// the filter are written as they are when they are plain words that no
// POSIX shell changes, and in single quotes otherwise; a relative path that
// starts with '-' is prefixed with "./" so that tail does not take it for
// an option. The filter is written without the white space around | , ;
// and : outside its strings, which never changes the program.
func (r Recipe) Command(file string) string { return r.r.Command(file) }

// Select returns the 10 recipes for records like those of sample, the
// leading records of a result set (one JSON value each), at the given detail
// level, and reports whether they are memory records: more than half of the
// sample records that are valid JSON are objects carrying id, title,
// namespace and memory_type. An empty sample is not memory records.
//
// Memory records get the specification's library, whose recipes 9 and 10
// adapt to detail (an unknown one is [Light]); other records get recipes
// derived from the sample, whatever detail. docs/recipes.md in the
// repository describes both libraries. The result depends only on detail
// and sample.
func Select(detail Detail, sample []json.RawMessage) (rs []Recipe, memory bool) {
	all, memory := engine.Select(detail, sample)
	rs = make([]Recipe, len(all))
	for i, r := range all {
		rs[i] = Recipe{Description: r.Description, r: r}
	}
	return rs, memory
}
