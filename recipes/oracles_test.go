package recipes_test

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/zircote/lro-go/recipes"
)

// The oracles of the generic library: what each kind of recipe outputs,
// computed in Go.

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}

func oCount(_ recipes.Data, recs []any) []any { return []any{float64(len(recs))} }

func oTypes(_ recipes.Data, recs []any) []any {
	var names []any
	for _, v := range recs {
		names = append(names, typeName(v))
	}
	return countGroups(names, func(v any) any { return v }, "type", false)
}

func oCountMixed(r recipes.Data, recs []any) []any {
	byType := oTypes(r, recs)
	if byType == nil {
		byType = []any{}
	}
	return []any{map[string]any{"total": float64(len(recs)), "by_type": byType}}
}

func oFieldList(_ recipes.Data, recs []any) []any {
	var keys []any
	for _, o := range objects(recs) {
		for k := range o.(map[string]any) {
			keys = append(keys, k)
		}
	}
	return countGroups(keys, func(v any) any { return v }, "field", false)
}

func oProject(fields ...string) oracle {
	return func(_ recipes.Data, recs []any) []any {
		var out []any
		for _, o := range objects(recs) {
			p := map[string]any{}
			for _, f := range fields {
				p[f] = get(o, f)
			}
			out = append(out, p)
		}
		return out
	}
}

func oSearch(field string) oracle {
	return func(r recipes.Data, recs []any) []any {
		match := matcher(r)
		return filter(objects(recs), func(o any) bool { return match(get(o, field)) })
	}
}

func oFilterEq(field string) oracle {
	return func(r recipes.Data, recs []any) []any {
		return filter(objects(recs), func(o any) bool { return get(o, field) == param(r, "value") })
	}
}

func oCountBy(field, key string) oracle {
	return func(_ recipes.Data, recs []any) []any {
		var out []any
		for _, g := range groupBy(objects(recs), func(o any) any { return get(o, field) }) {
			out = append(out, map[string]any{key: get(g[0], field), "count": float64(len(g))})
		}
		return sortBy(out, func(v any) any { return -v.(map[string]any)["count"].(float64) })
	}
}

func oTop(field string) oracle {
	return func(_ recipes.Data, recs []any) []any {
		nums := filter(objects(recs), func(o any) bool { _, ok := get(o, field).(float64); return ok })
		return head(sortBy(nums, func(o any) any { return -get(o, field).(float64) }), 10)
	}
}

func unique(vs []any) []any {
	var out []any
	for _, g := range groupBy(vs, func(v any) any { return v }) {
		out = append(out, g[0])
	}
	return out
}

func oStats(field string) oracle {
	return func(_ recipes.Data, recs []any) []any {
		var ns []float64
		for _, o := range objects(recs) {
			if n, ok := get(o, field).(float64); ok {
				ns = append(ns, n)
			}
		}
		return []any{stats(ns, true)}
	}
}

func oFullText(r recipes.Data, recs []any) []any {
	match := matcher(r)
	return filter(recs, func(v any) bool {
		for _, s := range strs(v) {
			if match(s) {
				return true
			}
		}
		return false
	})
}

func oArrayContains(field string) oracle {
	return func(r recipes.Data, recs []any) []any {
		return filter(objects(recs), func(o any) bool {
			arr, _ := get(o, field).([]any)
			for _, e := range arr {
				if tostring(e) == param(r, "value") {
					return true
				}
			}
			return false
		})
	}
}

// oLookup is the lookup of a record by identifier: the string identifiers
// equal to the value, or any identifier whose text is the value when the
// identifiers are not strings.
func oLookup(field string) oracle {
	return func(r recipes.Data, recs []any) []any {
		asText := strings.Contains(r.Filter, "tostring")
		return filter(objects(recs), func(o any) bool {
			v := get(o, field)
			if asText {
				return tostring(v) == param(r, "value")
			}
			return v == param(r, "value")
		})
	}
}

// oNamedContains is the membership filter on arrays of objects with a
// name, as GitHub's labels.
func oNamedContains(field string) oracle {
	return func(r recipes.Data, recs []any) []any {
		return filter(objects(recs), func(o any) bool {
			arr, _ := get(o, field).([]any)
			for _, e := range arr {
				if get(e, "name") == param(r, "value") {
					return true
				}
			}
			return false
		})
	}
}

// oTimeRange selects the records whose string field is from the value of
// from (inclusive) to the value of to (exclusive), compared as text.
func oTimeRange(field string) oracle {
	return func(r recipes.Data, recs []any) []any {
		return filter(objects(recs), func(o any) bool {
			s, ok := get(o, field).(string)
			return ok && s >= param(r, "from") && s < param(r, "to")
		})
	}
}

func oArrayCount(field string) oracle {
	return func(_ recipes.Data, recs []any) []any {
		var elems []any
		for _, o := range objects(recs) {
			arr, _ := get(o, field).([]any)
			elems = append(elems, arr...)
		}
		return countGroups(elems, func(v any) any { return v }, "value", true)
	}
}

func oMissing(field string) oracle {
	return func(_ recipes.Data, recs []any) []any {
		return filter(objects(recs), func(o any) bool { _, ok := o.(map[string]any)[field]; return !ok })
	}
}

func oFirst(n int) oracle {
	return func(_ recipes.Data, recs []any) []any { return head(recs, n) }
}

func oLast(n int) oracle {
	return func(_ recipes.Data, recs []any) []any { return tail(recs, n) }
}

func oShapes(_ recipes.Data, recs []any) []any {
	var sets []any
	for _, o := range objects(recs) {
		sets = append(sets, toAny(keysOf(o.(map[string]any))))
	}
	return countGroups(sets, func(v any) any { return v }, "fields", true)
}

// oNested lists, for each field whose value is an object, its fields as
// "field.sub", counted over the records.
func oNested(_ recipes.Data, recs []any) []any {
	var all []any
	for _, o := range objects(recs) {
		for k, v := range o.(map[string]any) {
			if sub, ok := v.(map[string]any); ok {
				for s := range sub {
					all = append(all, k+"."+s)
				}
			}
		}
	}
	return countGroups(all, func(v any) any { return v }, "path", false)
}

func oRecordN(r recipes.Data, recs []any) []any {
	n, _ := strconv.Atoi(param(r, "n"))
	if n < 1 || n > len(recs) {
		return []any{nil}
	}
	return []any{recs[n-1]}
}

func oNotObjects(_ recipes.Data, recs []any) []any {
	return filter(recs, func(v any) bool { _, ok := v.(map[string]any); return !ok })
}

func oMostFields(_ recipes.Data, recs []any) []any {
	return head(sortBy(objects(recs), func(o any) any { return -float64(len(o.(map[string]any))) }), 5)
}

// Text lines.

func lineText(o any) string { return tostring(get(o, "line")) + ": " + tostring(get(o, "text")) }

func formatLines(recs []any) []any {
	var out []any
	for _, o := range recs {
		out = append(out, lineText(o))
	}
	return out
}

func oGrep(r recipes.Data, recs []any) []any {
	match := matcher(r)
	return formatLines(filter(objects(recs), func(o any) bool { return match(get(o, "text")) }))
}

func oGrepCount(r recipes.Data, recs []any) []any {
	return []any{float64(len(oGrep(r, recs)))}
}

func oRange(r recipes.Data, recs []any) []any {
	from, _ := strconv.ParseFloat(param(r, "first"), 64)
	to, _ := strconv.ParseFloat(param(r, "last"), 64)
	return formatLines(filter(objects(recs), func(o any) bool {
		n, ok := get(o, "line").(float64)
		return ok && n >= from && n <= to
	}))
}

var (
	levelRE = regexp.MustCompile(`(^|[^A-Z])(TRACE|DEBUG|INFO|WARN|WARNING|ERROR|FATAL|CRITICAL)([^A-Z]|$)`)
	errorRE = regexp.MustCompile(`(^|[^A-Z])(ERROR|FATAL|CRITICAL)([^A-Z]|$)`)
	failRE  = regexp.MustCompile(`(?i)error|fail|fatal|exception|panic`)
)

func oLevels(_ recipes.Data, recs []any) []any {
	var levels []any
	for _, o := range objects(recs) {
		if s, ok := get(o, "text").(string); ok {
			if m := levelRE.FindStringSubmatch(s); m != nil {
				levels = append(levels, m[2])
			}
		}
	}
	return countGroups(levels, func(v any) any { return v }, "level", false)
}

func oLinesMatching(re *regexp.Regexp) oracle {
	return func(_ recipes.Data, recs []any) []any {
		return formatLines(filter(objects(recs), func(o any) bool {
			s, ok := get(o, "text").(string)
			return ok && re.MatchString(s)
		}))
	}
}

// oLineTimes selects the lines whose text (without a leading '[' when the
// times are in brackets) is from the value of from (inclusive) to the value
// of to (exclusive).
func oLineTimes(r recipes.Data, recs []any) []any {
	brackets := strings.Contains(r.Filter, `ltrimstr("[")`)
	return formatLines(filter(objects(recs), func(o any) bool {
		s, ok := get(o, "text").(string)
		if brackets {
			s = strings.TrimPrefix(s, "[")
		}
		return ok && s >= param(r, "from") && s < param(r, "to")
	}))
}

func oLastLines(_ recipes.Data, recs []any) []any { return formatLines(objects(tail(recs, 20))) }

func oLongest(_ recipes.Data, recs []any) []any {
	ss := filter(objects(recs), func(o any) bool { _, ok := get(o, "text").(string); return ok })
	var out []any
	for _, o := range head(sortBy(ss, func(o any) any { return -float64(utf8.RuneCountInString(get(o, "text").(string))) }), 10) {
		text := get(o, "text").(string)
		out = append(out, fmt.Sprintf("%s (%d chars): %s", tostring(get(o, "line")), utf8.RuneCountInString(text), text))
	}
	return out
}

func oGrepV(r recipes.Data, recs []any) []any {
	match := matcher(r)
	return formatLines(filter(objects(recs), func(o any) bool {
		_, ok := get(o, "text").(string)
		return ok && !match(get(o, "text"))
	}))
}

func oDups(_ recipes.Data, recs []any) []any {
	var texts []any
	for _, o := range objects(recs) {
		if s, ok := get(o, "text").(string); ok {
			texts = append(texts, s)
		}
	}
	var out []any
	for _, g := range groupBy(texts, func(v any) any { return v }) {
		if len(g) > 1 {
			out = append(out, map[string]any{"text": g[0], "count": float64(len(g))})
		}
	}
	return sortBy(out, func(v any) any { return -v.(map[string]any)["count"].(float64) })
}

func oPlain(_ recipes.Data, recs []any) []any {
	var out []any
	for _, o := range objects(recs) {
		if s, ok := get(o, "text").(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// Scalars.

func stringsOf(recs []any) []any {
	return filter(recs, func(v any) bool { _, ok := v.(string); return ok })
}

func numbersOf(recs []any) []float64 {
	var out []float64
	for _, v := range recs {
		if n, ok := v.(float64); ok {
			out = append(out, n)
		}
	}
	return out
}

func floats(ns []float64) []any {
	out := make([]any, len(ns))
	for i, n := range ns {
		out[i] = n
	}
	return out
}

func oSearchStrings(r recipes.Data, recs []any) []any {
	return filter(stringsOf(recs), matcher(r))
}

func oEqText(r recipes.Data, recs []any) []any {
	return filter(recs, func(v any) bool { return tostring(v) == param(r, "value") })
}

func oFreq(_ recipes.Data, recs []any) []any {
	return head(countGroups(recs, func(v any) any { return v }, "value", true), 20)
}

func oDistinctCount(_ recipes.Data, recs []any) []any {
	return []any{float64(len(unique(recs)))}
}

func oLongestStrings(_ recipes.Data, recs []any) []any {
	return head(sortBy(stringsOf(recs), func(v any) any { return -float64(utf8.RuneCountInString(v.(string))) }), 10)
}

func sortedNumbers(recs []any) []float64 {
	ns := numbersOf(recs)
	sort.Float64s(ns)
	return ns
}

func oSmallest(_ recipes.Data, recs []any) []any { return head(floats(sortedNumbers(recs)), 10) }

func oLargest(_ recipes.Data, recs []any) []any {
	return head(reverse(floats(sortedNumbers(recs))), 10)
}

func oGreater(r recipes.Data, recs []any) []any {
	min, _ := strconv.ParseFloat(param(r, "min"), 64)
	return filter(recs, func(v any) bool { n, ok := v.(float64); return ok && n > min })
}

func oNumStats(_ recipes.Data, recs []any) []any { return []any{stats(numbersOf(recs), true)} }

func oStrLenStats(_ recipes.Data, recs []any) []any {
	var ls []float64
	for _, s := range stringsOf(recs) {
		ls = append(ls, float64(utf8.RuneCountInString(s.(string))))
	}
	return []any{stats(ls, false)}
}

func oDistinctStrings(_ recipes.Data, recs []any) []any { return unique(stringsOf(recs)) }
