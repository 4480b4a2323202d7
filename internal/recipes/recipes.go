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

// Param is a named jq variable of a recipe, a string.
type Param struct {
	Name        string // jq variable name, without the '$'
	Value       string // value used in Command
	Description string // what the parameter means
	// Field, when not empty, is the top-level string field matched against
	// the parameter, for lro_extract's where: {Field: {"contains": Value}}
	// for ParamKeyword, {Field: Value} for ParamValue.
	Field string
}

// Recipe is one jq recipe. Its Filter reads one record per input (or, with
// Slurp, one array of all the records) and refers to each of its Params as
// $name. A Recipe is a plain value; its methods are safe for concurrent use.
type Recipe struct {
	Number      int     // 1 to 10
	Description string  // what it does
	Label       string  // what it does in a few words, for a list such as "1=titles+namespaces, 2=filter namespace"
	Filter      string  // jq program, reading one record per input
	Slurp       bool    // run with -s
	Raw         bool    // run with -r
	Params      []Param // jq variables the Filter uses
	Compact     bool    // run with -c: one output per line
}

// recipe returns the recipe of filter, run with the jq options of the
// letters options (s, r, c), described by desc and labeled label.
func recipe(desc, label, filter, options string, params ...Param) Recipe {
	return Recipe{
		Description: desc,
		Label:       label,
		Filter:      filter,
		Slurp:       strings.Contains(options, "s"),
		Raw:         strings.Contains(options, "r"),
		Compact:     strings.Contains(options, "c"),
		Params:      params,
	}
}

// Args returns the jq command-line arguments of the recipe, without the
// program name and without any quoting: the flags (-s, -r, -c), one
// --arg name value triple per parameter, and the filter last.
func (r Recipe) Args() []string {
	var args []string
	for _, o := range r.options() {
		args = append(args, "-"+string(o))
	}
	for _, p := range r.Params {
		args = append(args, "--arg", p.Name, p.Value)
	}
	return append(args, r.Filter)
}

// options returns the letters of the jq options of r, s, r and c, in order:
// one word of the shell command.
func (r Recipe) options() string {
	i := 0
	for bit, on := range [...]bool{r.Slurp, r.Raw, r.Compact} {
		if on {
			i |= 1 << bit
		}
	}
	return [...]string{"", "s", "r", "sr", "c", "sc", "rc", "src"}[i]
}

// Command renders the shell command for file,
//
//	tail -n +2 <file> | jq [-src] [--arg <name> <value>]... '<filter>'
//
// every piece a [ShellWord], the filter compacted (see
// github.com/zircote/lro-go/recipes.Recipe.Command).
func (r Recipe) Command(file string) string {
	if strings.HasPrefix(file, "-") {
		file = "./" + file
	}
	var b strings.Builder
	b.WriteString("tail -n +2 ")
	b.WriteString(ShellWord(file))
	b.WriteString(" | jq")
	if o := r.options(); o != "" {
		b.WriteString(" -")
		b.WriteString(o)
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
// the separators | , ; and : outside string literals (whose interpolated
// code is compacted too): "{a: .x, b: .y} | .a" becomes "{a:.x,b:.y}|.a".
// The separator stays between the tokens, so the program is the same. A
// program with a comment (#) is returned unchanged.
func compactFilter(f string) string {
	const separators = "|,;:"
	isSpace := func(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
	// frames holds 0 for the program, -1 for each string literal open, and
	// for each interpolation open the depth of its parentheses.
	frames := []int{0}
	var b strings.Builder
	b.Grow(len(f))
	for i := 0; i < len(f); i++ {
		c, top := f[i], len(frames)-1
		if frames[top] < 0 { // in a string literal
			b.WriteByte(c)
			switch c {
			case '\\':
				if i+1 < len(f) {
					i++
					b.WriteByte(f[i])
					if f[i] == '(' { // interpolation: code until its ')'
						frames = append(frames, 0)
					}
				}
			case '"':
				frames = frames[:top]
			}
			continue
		}
		switch {
		case c == '#':
			return f
		case c == '"':
			frames = append(frames, -1)
		case c == '(' && top > 0: // parentheses count only in an interpolation
			frames[top]++
		case c == ')' && top > 0:
			if frames[top] == 0 { // the end of the interpolation
				frames = frames[:top]
			} else {
				frames[top]--
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

// ShellQuote quotes s in single quotes for a POSIX shell, as one word whose
// value is exactly s (no shell word holds a NUL byte):
//
//	ShellQuote("it's") == `'it'\''s'`
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Select returns the 10 recipes, numbered, for records like those of
// sample at the given detail level, and reports whether they are memory
// records: github.com/zircote/lro-go/recipes.Select, whose documentation
// describes the libraries.
func Select(detail Detail, sample []json.RawMessage) (rs []Recipe, memory bool) {
	recs, valid := decodeMemories(sample)
	if isMemory(recs, valid) {
		return memoryLibrary(detail, recs), true
	}
	return genericRecipes(sample), false
}

// SelectAndProject returns what [Select] and [Projection] return for
// sample, reading it once.
func SelectAndProject(detail Detail, sample []json.RawMessage) (rs []Recipe, memory bool, fields [][]string) {
	recs, valid := decodeMemories(sample)
	if isMemory(recs, valid) {
		return memoryLibrary(detail, recs), true, memoryProjection()
	}
	a := analyze(decodeRecords(sample))
	return genericOf(a), false, previewFields(a)
}
