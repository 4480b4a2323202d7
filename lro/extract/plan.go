package extract

import (
	"bytes"
	"encoding/binary"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A plan lets a recipe run on less than whole records, with the same
// results: decoding records into gojq's values is most of the cost of a
// query, and most recipes look at one or two fields, or select a few
// records by a value that must appear in the record's text.
//
// Plans are made only for the recipes of package recipes, whose filters are
// known, never for a caller's query: each kind of plan below holds only for
// the filters it lists, and says why. A filter that is not listed, or a
// recipe whose text changes, simply runs on whole records.
//
// The zero plan decodes every record whole.
type plan struct {
	// fields, if not nil, are the only fields of an object record the
	// filter reads: the values of the other fields are checked as JSON but
	// not built. Records that are not objects are decoded whole.
	fields []string

	// needle, if not nil, is text that the line of a record must hold for
	// the filter to output anything on it (see planSelect). A line without
	// it is checked as JSON but not decoded, and counts as a record on
	// which the filter output nothing.
	needle []byte
	// fold: the needle is matched ignoring ASCII case.
	fold bool
	// asciiLine: with fold, only lines of ASCII text may be skipped.
	asciiLine bool
}

// projections are the filters that read only some fields of each record,
// by the filter's text and slurp flag. Why each reads only these fields:
//
//   - [.title, .namespace] | @tsv and {id, title, namespace} (one record at
//     a time) read the record only through .title, .namespace and .id; on
//     an object, .f is the value of key f or null whether or not the other
//     keys are present, so the output (and any error of @tsv on a value
//     that is not a string) is the same on the record reduced to these keys;
//   - the slurped group_by(.f) | map({f: .[0].f, count: length}) | .[] and
//     map(.f | strings) | unique | .[] read each record only through .f
//     (group_by sorts and groups by .f alone, length counts the records of a
//     group, not their fields), and output no record, only values of .f and
//     counts.
//
// A record that is not an object is decoded whole, so .f raises on it the
// same error as before.
var projections = map[projKey][]string{
	{`[.title, .namespace] | @tsv`, false}:                                                       {"title", "namespace"},
	{`{id, title, namespace}`, false}:                                                            {"id", "title", "namespace"},
	{`group_by(.namespace) | map({namespace: .[0].namespace, count: length}) | .[]`, true}:       {"namespace"},
	{`group_by(.memory_type) | map({memory_type: .[0].memory_type, count: length}) | .[]`, true}: {"memory_type"},
	{`map(.namespace | strings) | unique | .[]`, true}:                                           {"namespace"},
}

type projKey struct {
	filter string
	slurp  bool
}

// jqField is a jq path to one top-level field, .name or .["name"], without
// string interpolation.
const jqField = `\.(?:[A-Za-z_][A-Za-z0-9_]*|\["(?:[^"\\]|\\["\\/bfnrtu])*"\])`

// The select filters that admit a needle, each with the variable it
// compares, in the first group. Each may be preceded by "objects | " and
// followed by " | " and more filters.
var (
	// select(.f | strings | startswith($p)).
	selectPrefix = regexp.MustCompile(`^(?:objects \| )?select\(` + jqField + ` \| strings \| startswith\(\$([A-Za-z_][A-Za-z0-9_]*)\)\)(?: \| .*)?$`)
	// select(.f | strings | test($k; "i")).
	selectKeyword = regexp.MustCompile(`^(?:objects \| )?select\(` + jqField + ` \| strings \| test\(\$([A-Za-z_][A-Za-z0-9_]*); "i"\)\)(?: \| .*)?$`)
	// select(.f == $v).
	selectEqual = regexp.MustCompile(`^(?:objects \| )?select\(` + jqField + ` == \$([A-Za-z_][A-Za-z0-9_]*)\)(?: \| .*)?$`)
	// select(any(.f[]?; . == $v)).
	selectAny = regexp.MustCompile(`^(?:objects \| )?select\(any\(` + jqField + `\[\]\?; \. == \$([A-Za-z_][A-Za-z0-9_]*)\)\)(?: \| .*)?$`)
)

// planFor returns the plan of a recipe's filter, run with the variables
// names (with '$') bound to values.
func planFor(filter string, slurp bool, names []string, values []any) plan {
	if fields, ok := projections[projKey{filter, slurp}]; ok {
		return plan{fields: fields}
	}
	if slurp {
		return plan{}
	}
	return planSelect(filter, names, values)
}

// planSelect returns the plan of a select filter with a needle.
//
// On an object record, select(C) outputs the record when C yields true and
// nothing otherwise, and none of these conditions can raise an error there
// (.f is the value or null; strings drops what is not a string; startswith,
// test with a valid regular expression and == never fail on strings; .f[]?
// drops its errors). So on a record that is a valid JSON object for which C
// cannot be true, the filter outputs nothing and raises nothing, and filters
// after select never run; it can be skipped. C can be true only if the line
// holds the needle, when the line has no backslash (every string of the
// record is then written as its own bytes, except invalid UTF-8, which
// decodes to U+FFFD) and the value p is valid UTF-8 without U+FFFD:
//
//   - .f | strings | startswith(p): .f is a string that starts with p, so
//     the line holds `"` followed by p;
//   - .f == p, and any(.f[]?; . == p): a string equal to p is in the
//     record, so the line holds `"p"`;
//   - .f | strings | test(k; "i"), when k is printable ASCII without a
//     character that regular expressions treat specially (k then matches
//     itself, case-insensitively): a match is a run of characters each
//     equal to a character of k up to Unicode simple case folding. If every
//     character of k folds only to ASCII characters (not k or s, which also
//     fold to the Kelvin sign and the long s), or if the line is all ASCII,
//     the match is ASCII text, so the line holds k up to ASCII case.
//
// A filter that reads other records (input, inputs) is not planned: skipping
// records would change what those return.
func planSelect(filter string, names []string, values []any) plan {
	if strings.Contains(filter, "input") {
		return plan{}
	}
	value := func(m []string) (string, bool) {
		for i, n := range names {
			if n == "$"+m[1] {
				s, ok := values[i].(string)
				return s, ok && s != "" && utf8.ValidString(s) && !strings.ContainsRune(s, utf8.RuneError)
			}
		}
		return "", false
	}
	for _, sel := range []struct {
		re   *regexp.Regexp
		tail string // after the value in the needle
	}{{selectPrefix, ""}, {selectEqual, `"`}, {selectAny, `"`}} {
		if m := sel.re.FindStringSubmatch(filter); m != nil {
			if p, ok := value(m); ok {
				return plan{needle: []byte(`"` + p + sel.tail)}
			}
		}
	}
	if m := selectKeyword.FindStringSubmatch(filter); m != nil {
		if k, ok := value(m); ok && literalASCII(k) {
			return plan{needle: []byte(k), fold: true, asciiLine: !foldsToASCII(k)}
		}
	}
	return plan{}
}

// literalASCII reports whether k is printable ASCII that a regular
// expression matches literally.
func literalASCII(k string) bool {
	for i := 0; i < len(k); i++ {
		if k[i] < ' ' || k[i] > '~' {
			return false
		}
	}
	return regexp.QuoteMeta(k) == k
}

// foldsToASCII reports whether every character of k is equal only to ASCII
// characters under Unicode simple case folding, as regular expressions
// match with the i flag.
func foldsToASCII(k string) bool {
	for _, r := range k {
		for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
			if f >= utf8.RuneSelf {
				return false
			}
		}
	}
	return true
}

// skips reports whether the record on line certainly makes the filter
// output nothing and raise no error, so that it need not be decoded: the
// line lacks the needle, has no backslash (and is ASCII, if the plan asks),
// and is a valid JSON object.
func (p *plan) skips(line []byte, d *decoder) bool {
	if p.needle == nil {
		return false
	}
	if p.fold {
		if indexFold(line, p.needle) >= 0 {
			return false
		}
	} else if bytes.Contains(line, p.needle) {
		return false
	}
	if bytes.IndexByte(line, '\\') >= 0 || p.asciiLine && !isASCII(line) {
		return false
	}
	first := bytes.TrimLeft(line, " \t\r\n")
	return len(first) > 0 && first[0] == '{' && d.valid(line)
}

// indexFold returns the index of the first occurrence of the ASCII text k
// in s, ignoring ASCII case, or -1. It looks for one byte of k with
// bytes.IndexByte, one that case does not change if there is one.
// (bytes.EqualFold matches only ASCII here: a character that folds to an
// ASCII one, such as the Kelvin sign, is longer than it.)
func indexFold(s, k []byte) int {
	if len(k) == 0 {
		return 0
	}
	anchor := max(bytes.IndexFunc(k, func(r rune) bool { return !unicode.IsLetter(r) && r != ' ' }), 0)
	a, b := byte(unicode.ToLower(rune(k[anchor]))), byte(unicode.ToUpper(rune(k[anchor])))
	for i := anchor; i < len(s); {
		j := bytes.IndexByte(s[i:], a)
		if a != b {
			if jb := bytes.IndexByte(s[i:], b); jb >= 0 && (j < 0 || jb < j) {
				j = jb
			}
		}
		if j < 0 {
			return -1
		}
		start := i + j - anchor
		if start+len(k) <= len(s) && bytes.EqualFold(s[start:start+len(k)], k) {
			return start
		}
		i += j + 1
	}
	return -1
}

// isASCII reports whether b has no byte above 0x7f, checking eight bytes at
// a time.
func isASCII(b []byte) bool {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if binary.LittleEndian.Uint64(b[i:])&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(b); i++ {
		if b[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}
