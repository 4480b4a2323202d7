package lrotest

import (
	"errors"
	"fmt"
	"strings"
)

// errUnsupported is wrapped by the errors of parsePipeline and parseJQ for a
// command outside the small shell and jq subset that the kit understands.
// Such a command is still run with sh and jq when jq is installed; only the
// checks that need its parts (the file it reads, the filter) skip it.
var errUnsupported = errors.New("unsupported command syntax")

// parsePipeline splits a command line into the words of each stage of a
// pipeline, as a POSIX shell would, for the subset that recipe commands use:
// words separated by blanks, single quotes, double quotes (with \ escaping
// $ ` " \ and newline), backslash escapes, and | between stages. Anything
// that a shell would expand or that would change what runs (; & < > ( ) $ `
// globs, ~ and # at the start of a word, ||) is refused with an error
// wrapping errUnsupported: the kit never guesses at a command it cannot read
// exactly.
//
// It is written by hand because the kit needs exactly this subset, and no
// well-kept Go library splits shell words without also expanding them.
func parsePipeline(s string) ([][]string, error) {
	var (
		stages [][]string
		words  []string
		word   strings.Builder
		inWord bool
	)
	endWord := func() {
		if inWord {
			words = append(words, word.String())
			word.Reset()
			inWord = false
		}
	}
	endStage := func() error {
		endWord()
		if len(words) == 0 {
			return fmt.Errorf("%w: empty pipeline stage", errUnsupported)
		}
		stages = append(stages, words)
		words = nil
		return nil
	}
	rs := s // bytes: every special character is ASCII, and paths may hold any byte
	for i := 0; i < len(rs); i++ {
		c := rs[i]
		switch {
		case c == ' ' || c == '\t':
			endWord()
		case c == '\'':
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			if j == len(rs) {
				return nil, fmt.Errorf("%w: unterminated single quote", errUnsupported)
			}
			word.WriteString(rs[i+1 : j])
			inWord = true
			i = j
		case c == '"':
			j := i + 1
			for ; j < len(rs) && rs[j] != '"'; j++ {
				switch rs[j] {
				case '\\':
					if j+1 < len(rs) && strings.IndexByte("$`\"\\\n", rs[j+1]) >= 0 {
						j++
						if rs[j] != '\n' {
							word.WriteByte(rs[j])
						}
						continue
					}
					word.WriteByte('\\')
				case '$', '`':
					return nil, fmt.Errorf("%w: expansion %q inside double quotes", errUnsupported, rs[j])
				default:
					word.WriteByte(rs[j])
				}
			}
			if j == len(rs) {
				return nil, fmt.Errorf("%w: unterminated double quote", errUnsupported)
			}
			inWord = true
			i = j
		case c == '\\':
			if i+1 == len(rs) {
				return nil, fmt.Errorf("%w: trailing backslash", errUnsupported)
			}
			i++
			if rs[i] != '\n' {
				word.WriteByte(rs[i])
				inWord = true
			}
		case c == '|':
			if i+1 < len(rs) && rs[i+1] == '|' {
				return nil, fmt.Errorf("%w: ||", errUnsupported)
			}
			if err := endStage(); err != nil {
				return nil, err
			}
		case strings.IndexByte(";&<>()$`*?[\n\r", c) >= 0:
			return nil, fmt.Errorf("%w: unquoted %q", errUnsupported, c)
		case (c == '#' || c == '~') && !inWord:
			return nil, fmt.Errorf("%w: unquoted %q at the start of a word", errUnsupported, c)
		case c == 0:
			return nil, fmt.Errorf("%w: NUL byte", errUnsupported)
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	if err := endStage(); err != nil {
		return nil, err
	}
	return stages, nil
}

// jqCall is a parsed jq invocation.
type jqCall struct {
	filter     string
	slurp      bool     // -s
	raw        bool     // -r (or -j)
	join       bool     // -j: raw, no newline after each output
	compact    bool     // -c
	nullInput  bool     // -n
	exitStatus bool     // -e
	names      []string // variables, with $
	values     []any    // their values
	files      []string // input files; none means standard input
	filesAt    []int    // the index of each of files among the arguments
}

// parseJQ parses the arguments of jq (without the program name) for the
// options that recipes use. Options that change how input is read or that
// the kit cannot mirror (-R, --seq, --slurpfile, --rawfile, --args, ...)
// are refused with an error wrapping errUnsupported.
func parseJQ(args []string) (*jqCall, error) {
	j := &jqCall{}
	var positional []string
	var positionalAt []int
	addVar := func(name string, v any) {
		j.names = append(j.names, "$"+name)
		j.values = append(j.values, v)
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		need := func(n int) ([]string, error) {
			if i+n >= len(args) {
				return nil, fmt.Errorf("%w: jq %s needs %d arguments", errUnsupported, a, n)
			}
			vals := args[i+1 : i+1+n]
			i += n
			return vals, nil
		}
		switch {
		case a == "--":
			for k := i + 1; k < len(args); k++ {
				positional = append(positional, args[k])
				positionalAt = append(positionalAt, k)
			}
			i = len(args)
		case a == "--arg":
			v, err := need(2)
			if err != nil {
				return nil, err
			}
			addVar(v[0], v[1])
		case a == "--argjson":
			v, err := need(2)
			if err != nil {
				return nil, err
			}
			val, err := decodeJSON([]byte(v[1]))
			if err != nil {
				return nil, fmt.Errorf("%w: jq --argjson %s: %v", errUnsupported, v[0], err)
			}
			addVar(v[0], val)
		case a == "--indent":
			if _, err := need(1); err != nil {
				return nil, err
			}
		case a == "--slurp":
			j.slurp = true
		case a == "--raw-output":
			j.raw = true
		case a == "--join-output":
			j.raw, j.join = true, true
		case a == "--compact-output":
			j.compact = true
		case a == "--null-input":
			j.nullInput = true
		case a == "--exit-status":
			j.exitStatus = true
		case a == "--tab", a == "--sort-keys", a == "--ascii-output", a == "--color-output", a == "--monochrome-output":
			// Formatting only.
		case strings.HasPrefix(a, "--"):
			return nil, fmt.Errorf("%w: jq option %s", errUnsupported, a)
		case len(a) > 1 && a[0] == '-':
			for _, f := range a[1:] {
				switch f {
				case 's':
					j.slurp = true
				case 'r':
					j.raw = true
				case 'j':
					j.raw, j.join = true, true
				case 'c':
					j.compact = true
				case 'n':
					j.nullInput = true
				case 'e':
					j.exitStatus = true
				case 'a', 'S', 'C', 'M':
					// Formatting only.
				default:
					return nil, fmt.Errorf("%w: jq option -%c", errUnsupported, f)
				}
			}
		default:
			positional = append(positional, a)
			positionalAt = append(positionalAt, i)
		}
	}
	if len(positional) == 0 {
		return nil, fmt.Errorf("%w: jq without a filter", errUnsupported)
	}
	j.filter = positional[0]
	if len(positional) > 1 {
		j.files, j.filesAt = positional[1:], positionalAt[1:]
	}
	return j, nil
}

// recipeCommand is a recipe command understood: the jq call and the file it
// reads.
type recipeCommand struct {
	jq *jqCall
	// file is the file the records come from.
	file string
	// skipHeader is set when jq reads the file from its second line on
	// (tail -n +2 FILE | jq ...).
	skipHeader bool
	// stages are the words of each stage of the pipeline, and fileAt the
	// stage and the word that name file.
	stages [][]string
	fileAt [2]int
}

// withFile returns the command rc was parsed from with the file it reads
// replaced by file: the same pipeline, each word quoted for sh, so that sh
// runs the same commands with the same arguments on another file.
func (rc *recipeCommand) withFile(file string) string {
	var b strings.Builder
	for i, stage := range rc.stages {
		if i > 0 {
			b.WriteString(" | ")
		}
		for j, w := range stage {
			if j > 0 {
				b.WriteByte(' ')
			}
			if i == rc.fileAt[0] && j == rc.fileAt[1] {
				w = file
			}
			b.WriteString(shellQuote(w))
		}
	}
	return b.String()
}

// parseRecipe parses a recipe command of one of the forms
//
//	tail -n +2 FILE | jq [options] FILTER
//	cat FILE | jq [options] FILTER
//	jq [options] FILTER FILE
//
// (tail also as -n+2, --lines=+2 or --lines +2, with an optional --), and
// returns an error wrapping errUnsupported for any other.
func parseRecipe(command string) (*recipeCommand, error) {
	stages, err := parsePipeline(command)
	if err != nil {
		return nil, err
	}
	jqStage := stages[len(stages)-1]
	if jqStage[0] != "jq" {
		return nil, fmt.Errorf("%w: the last stage runs %q, not jq", errUnsupported, jqStage[0])
	}
	call, err := parseJQ(jqStage[1:])
	if err != nil {
		return nil, err
	}
	rc := &recipeCommand{jq: call, stages: stages}
	switch len(stages) {
	case 1:
		if len(call.files) != 1 {
			return nil, fmt.Errorf("%w: jq reads %d files, want 1", errUnsupported, len(call.files))
		}
		rc.file, rc.fileAt = call.files[0], [2]int{0, call.filesAt[0] + 1}
		call.files, call.filesAt = nil, nil
	case 2:
		if len(call.files) != 0 {
			return nil, fmt.Errorf("%w: jq reads both a pipe and files", errUnsupported)
		}
		src := stages[0]
		switch src[0] {
		case "tail":
			at, ok := tailFromLine2(src[1:])
			if !ok {
				return nil, fmt.Errorf("%w: tail %s", errUnsupported, strings.Join(src[1:], " "))
			}
			rc.file, rc.skipHeader, rc.fileAt = src[1+at], true, [2]int{0, 1 + at}
		case "cat":
			if len(src) != 2 {
				return nil, fmt.Errorf("%w: cat %s", errUnsupported, strings.Join(src[1:], " "))
			}
			rc.file, rc.fileAt = src[1], [2]int{0, 1}
		default:
			return nil, fmt.Errorf("%w: the first stage runs %q", errUnsupported, src[0])
		}
	default:
		return nil, fmt.Errorf("%w: %d pipeline stages", errUnsupported, len(stages))
	}
	if rc.file == "" {
		return nil, fmt.Errorf("%w: an empty file name", errUnsupported)
	}
	return rc, nil
}

// tailFromLine2 recognizes the arguments of a tail that prints one file from
// its second line on, and returns the index of the file among them.
func tailFromLine2(args []string) (int, bool) {
	file := -1
	from2 := false
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case a == "-n" || a == "--lines":
			if i+1 == len(args) || args[i+1] != "+2" {
				return -1, false
			}
			from2 = true
			i++
		case a == "-n+2" || a == "--lines=+2":
			from2 = true
		case a == "--":
			if i+2 != len(args) || file >= 0 {
				return -1, false
			}
			file = i + 1
			i++
		case strings.HasPrefix(a, "-") && a != "-":
			return -1, false
		default:
			if file >= 0 {
				return -1, false
			}
			file = i
		}
	}
	return file, from2 && file >= 0 && args[file] != ""
}
