package recipes

import (
	"encoding/json"
	"strings"
)

// Count is the number of recipes in every library: exactly 10.
const Count = 10

// Detail is the detail level of memory records.
type Detail string

// The detail levels of the specification.
const (
	Light  Detail = "light"
	Medium Detail = "medium"
	Full   Detail = "full"
)

// Param is a named jq variable of a recipe.
type Param struct {
	Name        string // jq variable name, without the '$'
	Value       string // value used in Command
	Description string // what the parameter means
	// Field, when not empty, is the top-level field of the records that
	// the parameter is matched against, a string field: a keyword found
	// in it, or a value it equals. A filter without jq (lro_extract's
	// where) can then state the same condition: {Field: {"contains":
	// Value}} for ParamKeyword, {Field: Value} for ParamValue.
	Field string
}

// Recipe is one jq recipe.
//
// The Filter reads one record per input (or, when Slurp is set, one array of
// all the records) and refers to each of its Params as $name, a string
// variable. To run a recipe in process (lro_extract), bind every parameter
// as a variable (gojq.WithVariables with "$"+Name, the Value or a caller's
// replacement at run time), run the filter once per record or once on the
// array of records when Slurp is set, and print string results unquoted
// when Raw is set. A Recipe is a plain value; its methods are safe for
// concurrent use.
type Recipe struct {
	Number      int     // 1 to 10
	Description string  // what it does
	Label       string  // what it does in a few words, for a list such as "1=titles+namespaces, 2=filter namespace"
	Filter      string  // jq program, reading one record per input
	Slurp       bool    // run with -s
	Raw         bool    // run with -r
	Params      []Param // jq variables the Filter uses
	// Compact is set when the recipe outputs whole records or objects: they
	// are printed one per line (jq -c), so an agent can pipe them to head or
	// wc -l.
	Compact bool
}

// Args returns the jq command-line arguments of the recipe, without the
// program name and without any quoting: the flags (-s, -r, -c), one
// --arg name value triple per parameter, and the filter last. It suits
// exec.Command("jq", r.Args()...) with the records on standard input.
func (r Recipe) Args() []string {
	args := make([]string, 0, 4+3*len(r.Params))
	if r.Slurp {
		args = append(args, "-s")
	}
	if r.Raw {
		args = append(args, "-r")
	}
	if r.Compact {
		args = append(args, "-c")
	}
	for _, p := range r.Params {
		args = append(args, "--arg", p.Name, p.Value)
	}
	return append(args, r.Filter)
}

// Command renders the shell command for file:
//
//	tail -n +2 <file> | jq [-src] [--arg <name> <value>]... '<filter>'
//
// tail skips the header line. The flags -s, -r and -c are written as one
// word, in that order. The file path, every parameter name and value, and
// the filter are written as they are when they are plain words that no
// shell changes (see [ShellWord]), and quoted with [ShellQuote] otherwise;
// a relative path that starts with '-' is prefixed with "./" so that tail
// does not take it for an option. Descriptors carry ten commands, so every
// quote left out is a token saved ten times.
func (r Recipe) Command(file string) string {
	if strings.HasPrefix(file, "-") {
		file = "./" + file
	}
	var b strings.Builder
	b.WriteString("tail -n +2 ")
	b.WriteString(ShellWord(file))
	b.WriteString(" | jq")
	if r.Slurp || r.Raw || r.Compact {
		b.WriteString(" -")
		if r.Slurp {
			b.WriteByte('s')
		}
		if r.Raw {
			b.WriteByte('r')
		}
		if r.Compact {
			b.WriteByte('c')
		}
	}
	for _, p := range r.Params {
		b.WriteString(" --arg ")
		b.WriteString(ShellWord(p.Name))
		b.WriteByte(' ')
		b.WriteString(ShellWord(p.Value))
	}
	b.WriteByte(' ')
	b.WriteString(ShellWord(compactFilter(r.Filter)))
	return b.String()
}

// compactFilter returns the jq program f without the white space around
// the separators | , ; and : (outside string literals), which a descriptor
// repeats in ten commands: "{a: .x, b: .y} | .a" becomes "{a:.x,b:.y}|.a".
// Removing it never joins two tokens, since the separator stays between
// them, and so never changes the program. String literals, the code
// interpolated in them with \(...) included, are tracked and left as they
// are inside; a program with a comment (#) is returned unchanged. The
// Filter itself, which lro_extract runs, keeps its spaces.
func compactFilter(f string) string {
	const separators = "|,;:"
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	// frames: each true for a string literal, false for code; the depth of
	// each code frame's parentheses is in depths.
	frames, depths := []bool{false}, []int{0}
	var b strings.Builder
	b.Grow(len(f))
	for i := 0; i < len(f); i++ {
		c, top := f[i], len(frames)-1
		if frames[top] { // in a string literal
			b.WriteByte(c)
			switch c {
			case '\\':
				if i+1 < len(f) {
					i++
					b.WriteByte(f[i])
					if f[i] == '(' { // interpolation: code until its ')'
						frames, depths = append(frames, false), append(depths, 0)
					}
				}
			case '"':
				frames, depths = frames[:top], depths[:top]
			}
			continue
		}
		switch {
		case c == '#':
			return f
		case c == '"':
			frames, depths = append(frames, true), append(depths, 0)
		case c == '(':
			depths[top]++
		case c == ')':
			if depths[top] == 0 && top > 0 { // the end of an interpolation
				frames, depths = frames[:top], depths[:top]
			} else {
				depths[top]--
			}
		case isSpace(c):
			j := i
			for j < len(f) && isSpace(f[j]) {
				j++
			}
			prev := b.String()
			if j == len(f) || strings.IndexByte(separators, f[j]) >= 0 ||
				len(prev) > 0 && strings.IndexByte(separators, prev[len(prev)-1]) >= 0 {
				i = j - 1
				continue
			}
		}
		b.WriteByte(c)
	}
	if len(frames) != 1 {
		return f // not a whole program: leave it to jq to say so
	}
	return b.String()
}

// ShellWord returns s unchanged when it is a plain word that a POSIX shell
// leaves as it is (letters, digits and _ . / + , : @ % = -, not empty, not
// starting with '-' or '='), and [ShellQuote](s) otherwise.
func ShellWord(s string) string {
	if s == "" || s[0] == '-' || s[0] == '=' {
		return ShellQuote(s)
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || strings.ContainsRune("_./+,:@%=-", c)) {
			return ShellQuote(s)
		}
	}
	return s
}

// ShellQuote quotes s for a POSIX shell. The result is one shell word whose
// value is exactly s, whatever s contains ($, backquotes, backslashes,
// newlines, ...), except NUL bytes, which no shell word can hold. s is
// wrapped in single quotes, and each single quote inside becomes a closing
// quote, an escaped quote and an opening quote:
//
//	ShellQuote("it's") == `'it'\''s'`
//	ShellQuote("")     == `''`
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Select returns the 10 recipes for records like those of sample, the
// leading records of a result set (one JSON value each), at the given detail
// level, and reports whether they are memory records: more than half of the
// sample records that are valid JSON are objects carrying id, title,
// namespace and memory_type. An empty sample is not memory records.
//
// For memory records, the recipes are the specification's library. Recipes
// 1 to 8 are the same at every level and use only Light fields; recipes 9
// and 10 adapt to detail (an unknown detail is treated as [Light], whose
// recipes reference the fewest fields):
//
//	light:  9 lists the unique namespaces, 10 counts by memory_type;
//	medium: 9 sorts by .confidence, descending; 10 searches .content;
//	full:   9 sorts by .provenance.confidence, descending; 10 searches .content.
//
// Their parameters ([ParamNamespace], [ParamKeyword], [ParamMemoryType],
// [ParamTag]) default to the most common namespace prefix (the part before
// the first '/'), memory type and tag of sample, and a distinctive word of
// its titles (recipe 3) or contents (recipe 10); when sample has none, to
// the specification's literals "_semantic", "semantic", "TAG" and
// "keyword".
//
// For other records, the recipes are derived from the sample, whatever the
// tool, and detail is not used. They depend on the shape of most records
// and on what their fields are: the identifiers of objects are listed and
// looked up, their measures ranked and summarized, their categories counted
// and filtered, their arrays filtered by membership, their dates filtered by
// range and their text searched; the {"line": N, "text": "..."} records of a
// plain-text result get the tools of grep and tail, and log levels, error
// lines and a time range when the lines carry them; other values get counts,
// searches and value frequencies. Parameter defaults come from the sample,
// so that the filters select something. At most the first 1000 sample records (and
// 4 MiB) are examined; an empty sample gives recipes that work on any file.
//
// The result depends only on detail and sample.
func Select(detail Detail, sample []json.RawMessage) (rs []Recipe, memory bool) {
	recs, valid := decodeMemories(sample)
	if isMemory(recs, valid) {
		return memoryLibrary(detail, recs), true
	}
	return genericRecipes(sample), false
}
