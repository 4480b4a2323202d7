package recipes

import (
	"cmp"
	"maps"
	"slices"
	"strconv"

	"github.com/zircote/lro-go/internal/spec"
)

// scalarRecipes returns the library of other values: counts, a search or
// a threshold, value frequencies and statistics.
func scalarRecipes(a *analysis) []Recipe {
	value := cmp.Or(mostCommon(maps.All(a.values)), spec.ParamValue)
	var search, least, most Recipe
	if len(a.numbers) > a.strs {
		search = recipe("Numbers greater than a threshold", "greater than min",
			`numbers | select(. > ($min | tonumber))`, "c",
			param{"min", median(a.numbers), ""})
		least = recipe("The 10 smallest numbers", "smallest 10",
			`map(numbers) | sort | .[:10][]`, "sc")
		most = recipe("The 10 largest numbers", "largest 10",
			`map(numbers) | sort | reverse | .[:10][]`, "sc")
	} else {
		search = recipe("Strings with a keyword", "search", `strings | select(test($keyword; "i"))`, "c",
			keywordParam(a.strWords.pick(), ""))
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
			param{spec.ParamValue, value, ""}),
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
