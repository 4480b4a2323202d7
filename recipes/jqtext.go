package recipes

import (
	"encoding/json"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/zircote/lro-go/internal/shell"
)

// jqKeywords cannot be written as .name or {name} in every jq version.
var jqKeywords = wordSet(`
	as def module import include if then elif else end and or not reduce foreach try catch label
	__loc__
`)

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func isIdent(name string) bool { return identRE.MatchString(name) && !jqKeywords[name] }

// jqString returns s as a jq string literal. JSON string syntax is valid jq
// string syntax, and json.Marshal escapes the backslash of any "\(".
func jqString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// path returns the jq path of the top-level field name: .name or .["name"].
func path(name string) string {
	if isIdent(name) {
		return "." + name
	}
	return ".[" + jqString(name) + "]"
}

// commandBytes returns how many bytes s takes in the JSON text of a
// descriptor's recipe command, not counting the quotes around it: as an
// argument of the command, a word for the shell; with filter, as a jq
// string (a field name) in the filter, which the shell quotes. The escapes
// of each layer add up: an apostrophe takes 5 bytes in either (the shell
// writes it as four, quote, backslash, quote, quote, and JSON doubles the
// backslash), a quotation mark 2 in an argument (\") and 4 in a filter
// (\\\"). A descriptor holds its recipes in full, so the bound of what a
// recipe names is on this, not on len(s). It is counted, not rendered,
// because the analysis asks it of every field name of the sample.
func commandBytes(s string, filter bool) int {
	// In a filter: the escape jqString (json.Marshal) writes, one backslash
	// more in the JSON text. In an argument: the JSON escape of the rune.
	long, short, quote := 6, 2, 2 // \u00XX, \n (and the like), \" or \\
	if filter {
		long, short, quote = 7, 3, 4
	}
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c == '\'':
				n += 5 // '\'' for the shell, its backslash escaped for JSON
			case c == '"' || c == '\\':
				n += quote
			case c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
				n += short
			case c < ' ' || filter && (c == '<' || c == '>' || c == '&'):
				n += long
			default:
				n++
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			n += long // \ufffd, \u2028, \u2029
		} else {
			n += size
		}
		i += size
	}
	return n
}

// Args returns the jq arguments of the recipe, unquoted: the flags (-s to
// read all the records as one array, -r to print strings raw, -c for one
// value per line), one --arg name value triple per parameter, and the
// filter last. It suits exec.Command("jq", r.Args()...) with the records
// (the lines after the header) on standard input, and an in-process jq
// binding each parameter as the variable $name.
func (r Recipe) Args() []string {
	args := make([]string, 0, 4+3*len(r.params))
	for _, o := range r.options {
		args = append(args, "-"+string(o))
	}
	for _, p := range r.params {
		args = append(args, "--arg", p.name, p.value)
	}
	return append(args, r.filter)
}

// Command renders the shell command for file:
//
//	tail -n +2 <file> | jq [-src] [--arg <name> <value>]... '<filter>'
//
// tail skips the header line. The path, every parameter name and value,
// and the filter are written as they are when no POSIX shell changes them,
// in single quotes otherwise; a path that starts with '-' gets "./". The
// filter is written without the white space around | , ; and : outside
// its strings, which never changes the program.
func (r Recipe) Command(file string) string {
	if strings.HasPrefix(file, "-") {
		file = "./" + file
	}
	file, filter := shell.Word(file), shell.Word(compactFilter(r.filter))
	size := len("tail -n +2  | jq - ") + len(file) + len(r.options) + len(filter)
	for _, p := range r.params {
		size += len(" --arg  ''") + len(p.name) + len(p.value) // most values need no more
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteString("tail -n +2 ")
	b.WriteString(file)
	b.WriteString(" | jq")
	if r.options != "" {
		b.WriteString(" -")
		b.WriteString(r.options)
	}
	for _, p := range r.params {
		b.WriteString(" --arg ")
		b.WriteString(shell.Word(p.name))
		b.WriteByte(' ')
		b.WriteString(shell.Word(p.value))
	}
	b.WriteByte(' ')
	b.WriteString(filter)
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
	frames := make([]int, 1, 4)
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
