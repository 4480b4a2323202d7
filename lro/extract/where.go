package extract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"

	"github.com/itchyny/gojq"

	"github.com/zircote/lro-go/lro/internal/describe"
	"github.com/zircote/lro-go/lro/internal/offload"
	"github.com/zircote/lro-go/recipes"
)

// A where filter runs as a jq program of this package whose text is fixed:
// the caller's paths and values reach it only as the values of $__where and
// $__fields. whereOps are the operators of a condition.
var whereOps = []string{"eq", "prefix", "contains", "matches", "gt", "gte", "lt", "lte", "in"}

// whereDefs are the functions of the where programs. __vals yields the
// values at a path, crossing arrays, and an array at the end and its
// elements; a missing field is null. __holds applies one operator ([name,
// value]); contains arrives as matches of a literal. __get reads a path for
// fields, an array on the way giving the array of its elements' values.
const whereDefs = `
def __vals($p):
  if ($p | length) == 0 then ., (if type == "array" then .[] else empty end)
  elif type == "array" then .[] | __vals($p)
  elif type == "object" or type == "null" then .[$p[0]] | __vals($p[1:])
  else empty end;
def __holds($o):
  $o[1] as $v |
  if $o[0] == "eq" then . == $v
  elif $o[0] == "prefix" then type == "string" and startswith($v)
  elif $o[0] == "matches" then type == "string" and test($v)
  elif $o[0] == "gt" then type == ($v | type) and . > $v
  elif $o[0] == "gte" then type == ($v | type) and . >= $v
  elif $o[0] == "lt" then type == ($v | type) and . < $v
  elif $o[0] == "lte" then type == ($v | type) and . <= $v
  elif $o[0] == "in" then . as $x | any($v[]; . == $x)
  else error("unknown operator") end;
def __match:
  . as $r | all($__where[]; . as $c | any($r | __vals($c.p); . as $x | all($c.o[]; . as $o | $x | __holds($o))));
def __get($p):
  if ($p | length) == 0 then .
  elif type == "array" then map(__get($p))
  elif type == "object" then .[$p[0]] | __get($p[1:])
  else null end;
def __project:
  . as $r | reduce $__fields[] as $f ({}; .[$f[0]] = ($r | __get($f[1])));
`

// The where programs: the matching records, their fields, or their number;
// and, after a filter matched none, the paths of its conditions at which no
// record has a value (a misspelt or misplaced field).
const (
	whereRecords = whereDefs + `select(__match)`
	whereFields  = whereDefs + `select(__match) | __project`
	whereCount   = whereDefs + `map(select(__match)) | length`
	whereAbsent  = whereDefs + `. as $rs | $__where[] | . as $c | select(all($rs[]; all(__vals($c.p); . == null))) | $c.p | join(".")`
)

// whereFilter is a parsed where filter, which a worker runs.
type whereFilter struct {
	Conds  []byte // JSON: [{"p": [segment, ...], "o": [[operator, value], ...]}, ...]
	Fields []byte // JSON: [[path, [segment, ...]], ...]
	Count  bool
	Label  string // what the caller asked, for the answer
	Absent bool   // run whereAbsent instead of the filter
}

type whereCond struct {
	P []string `json:"p"`
	O [][2]any `json:"o"`
}

// parseWhere reads the where, count and fields arguments of lro_extract.
func parseWhere(a args) (*whereFilter, error) {
	for _, name := range []string{argWhere, argFields} {
		if len(a[name]) > maxQueryBytes {
			return nil, errorf("%s is %d bytes, more than %d", name, len(a[name]), maxQueryBytes)
		}
	}
	w := &whereFilter{}
	m, err := a.object(argWhere)
	if err == nil {
		w.Count, err = a.boolean(argCount)
	}
	if err != nil {
		return nil, err
	}
	conds := make([]whereCond, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		p, err := fieldPath(k)
		if err != nil {
			return nil, errorf("where: %v", err)
		}
		ops, err := whereOperators(k, m[k])
		if err != nil {
			return nil, err
		}
		conds = append(conds, whereCond{P: p, O: ops})
	}
	if w.Conds, err = json.Marshal(conds); err != nil {
		return nil, err
	}
	fields, err := decodeArg[[]string](a, argFields, `an array of field paths (strings), such as ["id", "title"]`)
	if err != nil {
		return nil, err
	}
	switch {
	case fields != nil && len(fields) == 0: // given as []
		return nil, errorf("fields is empty: name the fields to show, or leave fields out to show whole records")
	case len(fields) > 0 && w.Count:
		return nil, errorf("give count or fields, not both: count returns only the number of matching records")
	}
	proj := make([][2]any, 0, len(fields))
	for _, f := range fields {
		p, err := fieldPath(f)
		if err != nil {
			return nil, errorf("fields: %v", err)
		}
		proj = append(proj, [2]any{f, p})
	}
	if w.Fields, err = json.Marshal(proj); err != nil {
		return nil, err
	}
	var label bytes.Buffer
	label.WriteString("where ")
	_ = json.Compact(&label, a[argWhere])
	if w.Count {
		label.WriteString(" | count")
	}
	if len(fields) > 0 {
		label.WriteString(" | fields ")
		_ = json.Compact(&label, a[argFields])
	}
	w.Label = label.String()
	return w, nil
}

// fieldPath splits a dotted field path into its field names.
func fieldPath(s string) ([]string, error) {
	if s == "" {
		return nil, fmt.Errorf("a field path is empty")
	}
	p := strings.Split(s, ".")
	if slices.Contains(p, "") {
		return nil, fmt.Errorf("field path %q has an empty part: write field names joined by single dots, such as owner.login", s)
	}
	return p, nil
}

// whereOperators reads the condition on field key, valid JSON: a value to
// compare for equality, or an object of operators.
func whereOperators(key string, raw json.RawMessage) ([][2]any, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil { // a number beyond float64, say
		return nil, errorf("where %q: %v", key, err)
	}
	var byName map[string]json.RawMessage
	switch {
	case json.Unmarshal(raw, &byName) != nil || byName == nil: // not an object, or null
		return [][2]any{{"eq", raw}}, nil
	case len(byName) == 0:
		return nil, errorf(`where %q: an empty object; give a value to compare for equality, or operators such as {"gte": 0.8} (%s)`, key, strings.Join(whereOps, ", "))
	}
	ops := make([][2]any, 0, len(byName))
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		var val any
		_ = json.Unmarshal(byName[name], &val)
		want, known := opValues[name]
		switch {
		case !known:
			return nil, errorf("where %q: unknown operator %q (the operators are %s; to compare with an object for equality, use eq)", key, name, strings.Join(whereOps, ", "))
		case want != "" && !strings.Contains(want, jsonType(val)):
			return nil, errorf("where %q: the value of %s must be %s, not %s", key, name, want, jsonType(val))
		case name == "contains":
			ops = append(ops, [2]any{"matches", "(?i)" + regexp.QuoteMeta(val.(string))})
		case name == "prefix", name == "matches": // a pattern is checked in the worker (checkPatterns)
			ops = append(ops, [2]any{name, val})
		default:
			ops = append(ops, [2]any{name, byName[name]})
		}
	}
	return ops, nil
}

// opValues says what the value of each operator must be, in words that
// hold the name of each type it may have (see jsonType); eq takes any value.
var opValues = map[string]string{
	"eq": "", "prefix": "a string", "contains": "a string", "matches": "a string (a regular expression, RE2 syntax)",
	"gt": "a number or a string", "gte": "a number or a string", "lt": "a number or a string", "lte": "a number or a string",
	"in": "an array of values",
}

// jsonType names the JSON type of a decoded value: "a string", "null".
func jsonType(v any) string {
	switch t := gojq.TypeOf(v); t {
	case "null":
		return t
	case "array", "object":
		return "an " + t
	default:
		return "a " + t
	}
}

// checkPatterns returns a tool error naming the condition of the first
// value of matches in conds that is not a valid regular expression. It runs
// in the worker, under the call's limits: parsing a pattern can take much
// memory and time.
func checkPatterns(conds []byte) error {
	var cs []whereCond
	if err := json.Unmarshal(conds, &cs); err != nil {
		return err
	}
	for _, c := range cs {
		for _, o := range c.O {
			if re, ok := o[1].(string); ok && o[0] == "matches" {
				if _, err := syntax.Parse(re, syntax.Perl); err != nil {
					return errorf("where %q: the value of matches is not a valid regular expression (RE2 syntax): %s", strings.Join(c.P, "."), truncate(err.Error(), maxMessage))
				}
			}
		}
	}
	return nil
}

// whereProgram prepares the program of a where filter, in the worker.
func whereProgram(w *whereFilter) (*program, error) {
	text := whereRecords
	switch {
	case w.Absent:
		text = whereAbsent
	case w.Count:
		text = whereCount
	case string(w.Fields) != "[]":
		text = whereFields
	}
	q, err := gojq.Parse(text)
	if err != nil {
		return nil, fmt.Errorf("the where program does not parse: %w", err) // a bug of this package
	}
	if err := checkPatterns(w.Conds); err != nil {
		return nil, err
	}
	p := &program{query: q, names: []string{"$__where", "$__fields"}, values: make([]any, 2), slurp: w.Count || w.Absent, raw: w.Absent}
	for i, text := range [][]byte{w.Conds, w.Fields} {
		if p.values[i], err = newDecoder().decode(text); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// maxPreview is the most matching records wherePreview names.
const maxPreview = 10

// wherePreview returns the text that leads the answer of a where filter
// without fields whose matching records (res) were offloaded: their number
// and the fields that identify the first of them (those of the listing
// recipe of the matches), within a quarter of threshold tokens, or "".
func wherePreview(res *results, threshold int) string {
	sample := make([]json.RawMessage, min(len(res.Spans), maxPreview))
	for i := range sample {
		sample[i] = res.text(i)
	}
	all, memory := recipes.Select(recipes.Light, sample)
	rs := describe.Recipes(all)
	list := slices.IndexFunc(rs, func(r describe.Recipe) bool {
		return r.Label == "list" || memory && r.Label == "IDs+titles" // one at most
	})
	if list < 0 {
		return ""
	}
	q, err := gojq.Parse(rs[list].Filter)
	if err != nil {
		return ""
	}
	var lines, fields []string
	size := 0
	dec := newDecoder() // integers exact, as the records are printed
	for _, text := range sample {
		r, err := dec.decode(text)
		if err != nil {
			continue
		}
		v, ok := q.Run(r).Next()
		if _, isErr := v.(error); !ok || isErr {
			continue
		}
		b, err := gojq.Marshal(v)
		if err != nil {
			continue
		}
		if size += (offload.Heuristic{}).Tokens(b); size > threshold/4 {
			break
		}
		if o, ok := v.(map[string]any); ok && fields == nil {
			fields = slices.Sorted(maps.Keys(o))
		}
		lines = append(lines, string(b))
	}
	if len(lines) == 0 {
		return ""
	}
	f, _ := json.Marshal(fields)
	return fmt.Sprintf("%d records match. The first %d, by the fields that identify them:\n%s\nThe whole records are in the offloaded file described below; to have other fields inline, ask again with fields, such as fields=%s.",
		len(res.Spans), len(lines), strings.Join(lines, "\n"), f)
}
