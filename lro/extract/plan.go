package extract

import (
	"bytes"
	"encoding/binary"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A plan lets a recipe run on less than whole records, with the same
// results: decoding is most of the cost of a query. Plans are made only for
// the known filters of package recipes, never for a caller's query; a
// filter not listed below runs on whole records, as does the zero plan.
type plan struct {
	// fields, if not nil, are the only fields of an object record the
	// filter reads: the other values are checked as JSON but not built.
	fields []string
	// needle, if not nil, is text that the line of a record must hold for
	// the filter to output anything on it (see planSelect): a valid object
	// line without it is skipped undecoded.
	needle    []byte
	fold      bool // the needle is matched ignoring ASCII case
	asciiLine bool // with fold, only lines of ASCII text may be skipped
}

// projections are the filters that read each record only through the
// listed fields, by text and slurp flag: on an object .f is the value of
// key f or null whatever the other keys, and the slurped ones output only
// values of .f and counts. A record that is not an object is decoded whole,
// so .f raises the same error on it.
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

// jqField is a jq path to one top-level field, .name or .["name"].
const jqField = `\.(?:[A-Za-z_][A-Za-z0-9_]*|\["(?:[^"\\]|\\["\\/bfnrtu])*"\])`

// The select filters that admit a needle, each with the variable it
// compares in the first group, maybe after "objects | " and before " | ...".
var (
	selectPrefix  = regexp.MustCompile(`^(?:objects \| )?select\(` + jqField + ` \| strings \| startswith\(\$([A-Za-z_][A-Za-z0-9_]*)\)\)(?: \| .*)?$`)
	selectKeyword = regexp.MustCompile(`^(?:objects \| )?select\(` + jqField + ` \| strings \| test\(\$([A-Za-z_][A-Za-z0-9_]*); "i"\)\)(?: \| .*)?$`)
	selectEqual   = regexp.MustCompile(`^(?:objects \| )?select\(` + jqField + ` == \$([A-Za-z_][A-Za-z0-9_]*)\)(?: \| .*)?$`)
	selectAny     = regexp.MustCompile(`^(?:objects \| )?select\(any\(` + jqField + `\[\]\?; \. == \$([A-Za-z_][A-Za-z0-9_]*)\)\)(?: \| .*)?$`)
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
// On an object record none of these conditions C can raise an error, so
// select(C) outputs nothing and raises nothing where C cannot be true. On a
// line without a backslash (its strings are written as their own bytes,
// invalid UTF-8 aside) and a value p that is valid UTF-8 without U+FFFD, C
// can be true only if the line holds the needle: `"p` for startswith(p),
// `"p"` for == p and any(.f[]?; . == p), and for test(k; "i") with k
// printable ASCII that matches itself, k up to ASCII case, if every
// character of k folds only to ASCII (not k or s: the Kelvin sign, the long
// s) or the line is ASCII. Filters that read other records (input, inputs)
// are not planned.
func planSelect(filter string, names []string, values []any) plan {
	if strings.Contains(filter, "input") {
		return plan{}
	}
	value := func(m []string) (string, bool) {
		i := slices.Index(names, "$"+m[1])
		if i < 0 {
			return "", false
		}
		s, ok := values[i].(string)
		return s, ok && s != "" && utf8.ValidString(s) && !strings.ContainsRune(s, utf8.RuneError)
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
		// k is printable ASCII that a regular expression matches literally.
		if k, ok := value(m); ok && regexp.QuoteMeta(k) == k && !strings.ContainsFunc(k, func(r rune) bool { return r < ' ' || r > '~' }) {
			return plan{needle: []byte(k), fold: true, asciiLine: !foldsToASCII(k)}
		}
	}
	return plan{}
}

// foldsToASCII reports whether every character of k folds only to ASCII
// characters under Unicode simple case folding.
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
// output nothing and raise no error, so that it need not be decoded.
func (p *plan) skips(line []byte, d *decoder) bool {
	if p.needle == nil {
		return false
	}
	if p.fold && indexFold(line, p.needle) >= 0 || !p.fold && bytes.Contains(line, p.needle) ||
		bytes.IndexByte(line, '\\') >= 0 || p.asciiLine && !isASCII(line) {
		return false
	}
	first := bytes.TrimLeft(line, " \t\r\n")
	return len(first) > 0 && first[0] == '{' && d.valid(line)
}

// indexFold returns the index of the first occurrence of the ASCII text k
// in s, ignoring ASCII case, or -1. It looks for one byte of k with
// bytes.IndexByte, one that case does not change if there is one.
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

// isASCII reports whether b has no byte above 0x7f, eight bytes at a time:
// it runs on every line a case-insensitive needle misses.
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
