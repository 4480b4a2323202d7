// Package jqcmd reads the jq recipe commands of a descriptor (see [Parse])
// as plain shell words read with mvdan.cc/sh/v3/syntax, finds the fields
// their filters index ([FieldRefs]), and runs them with no shell
// ([Command.Run]): with a jq binary, or in process with
// github.com/itchyny/gojq, mirroring jq's -s, -r, -j, -c, -n, -e, --arg and
// --argjson. lro/lrotest's kit runs recipes with it.
package jqcmd

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/itchyny/gojq"
	"mvdan.cc/sh/v3/syntax"
)

// ErrUnsupported is wrapped by the errors of [Words], [Parse] and [ParseArgs]
// for a command outside the subset read here.
var ErrUnsupported = errors.New("unsupported command syntax")

func unsupported(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrUnsupported}, args...)...)
}

// byteBase maps each byte of invalid UTF-8 to a rune of a private use
// plane while the shell parser, which wants UTF-8, reads the command: paths
// may hold any byte.
const byteBase = 0x10FF00

// dblQuoteEscapes unescapes a part within double quotes, where a backslash
// escapes only $ ` " and itself.
var dblQuoteEscapes = strings.NewReplacer(`\$`, "$", "\\`", "`", `\"`, `"`, `\\`, `\`)

// Words splits a command line into the words of each stage of a pipeline,
// as a POSIX shell would, and refuses with an error wrapping
// [ErrUnsupported] anything a shell would expand or that changes what runs:
// ; & && || redirections, $ and backquote expansions, globs, ~ and comments,
// and what bash or zsh expand where POSIX sh does not: brace expansions
// ({a,b}, {1..3}), a word that starts with =, a ~ in an assignment.
func Words(s string) ([][]string, error) {
	if strings.ContainsAny(s, "\x00\r") {
		return nil, unsupported("a NUL or carriage return")
	}
	var b strings.Builder
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"): // a byte of invalid UTF-8
			b.WriteRune(byteBase + rune(s[i]))
		case r >= byteBase && r <= byteBase+0xFF:
			return nil, unsupported("a rune of the private use plane 16")
		default:
			b.WriteRune(r)
		}
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangPOSIX), syntax.KeepComments(true)).Parse(strings.NewReader(b.String()), "")
	if err != nil {
		return nil, unsupported("%v", err)
	}
	if len(f.Stmts) != 1 || len(f.Last) > 0 {
		return nil, unsupported("%d commands", len(f.Stmts))
	}
	var stages [][]string
	syntax.Walk(f.Stmts[0], func(n syntax.Node) bool {
		switch n := n.(type) {
		case nil:
		case *syntax.Stmt:
			if len(n.Comments) > 0 || n.Negated || n.Background || n.Coprocess || len(n.Redirs) > 0 {
				err = unsupported("a comment, !, &, or a redirection")
			}
		case *syntax.BinaryCmd:
			if n.Op != syntax.Pipe {
				err = unsupported("%s", n.Op)
			}
		case *syntax.CallExpr:
			words := make([]string, len(n.Args))
			for i, w := range n.Args {
				if words[i], err = literal(w); err != nil {
					return false
				}
			}
			if len(n.Assigns) > 0 || len(n.Args) == 0 {
				err = unsupported("an assignment")
			}
			stages = append(stages, words)
			return false
		default:
			err = unsupported("a compound command")
		}
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	return stages, nil
}

// literal returns the value of a word made of plain, quoted and escaped
// parts, or an error.
func literal(w *syntax.Word) (string, error) {
	var b strings.Builder
	var bare []byte // the word with each quoted part and escaped byte as '"', for bareExpansion
	for i, p := range w.Parts {
		switch p := p.(type) {
		case *syntax.Lit:
			if i == 0 && strings.HasPrefix(p.Value, "~") {
				return "", unsupported("~ at the start of a word")
			}
			for j := 0; j < len(p.Value); j++ {
				c := p.Value[j]
				bare = append(bare, c)
				switch {
				case c == '\\' && j+1 == len(p.Value):
					return "", unsupported("a trailing backslash")
				case c == '\\':
					j++
					b.WriteByte(p.Value[j])
					bare[len(bare)-1] = '"'
				case strings.IndexByte("*?[", c) >= 0:
					return "", unsupported("unquoted %q", c)
				case c == '$' && j+1 == len(p.Value) && i+1 < len(w.Parts):
					// POSIX sh reads $'...' and $"..." as $ and a quote;
					// bash and zsh unquote them another way.
					return "", unsupported("$ before a quote ($'...' or $\"...\")")
				default:
					b.WriteByte(c)
				}
			}
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
			bare = append(bare, '"')
		case *syntax.DblQuoted:
			bare = append(bare, '"')
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok {
					return "", unsupported("an expansion inside double quotes")
				}
				b.WriteString(dblQuoteEscapes.Replace(lit.Value))
			}
		default:
			return "", unsupported("an expansion")
		}
	}
	if what := bareExpansion(string(bare)); what != "" {
		return "", unsupported("%s", what)
	}
	var out []byte
	for _, r := range b.String() {
		if r >= byteBase && r <= byteBase+0xFF {
			out = append(out, byte(r-byteBase))
		} else {
			out = utf8.AppendRune(out, r)
		}
	}
	return string(out), nil
}

// sequenceRE matches a sequence expression of brace expansion, {1..3} or
// {a..c} (with an optional increment).
var sequenceRE = regexp.MustCompile(`\{(-?[0-9]+\.\.-?[0-9]+|[A-Za-z]\.\.[A-Za-z])(\.\.-?[0-9]+)?\}`)

// assignmentRE matches the start of a word that bash reads as an
// assignment, expanding a ~ after its = or a later : (also in a command's
// arguments, unless in POSIX mode).
var assignmentRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

// bareExpansion says what the shells that users run recipes in, bash and
// zsh, expand in a word that POSIX sh leaves as it is, given the word with
// its quoted parts and escaped characters replaced by '"': a brace
// expansion ({a,b}, {1..3}; any { followed by a , and a }, as bash finds
// an expansion past a } before the comma), an = that starts a word (zsh's
// command path), a ~ after an assignment's = or a : in it (bash); "" for
// none.
func bareExpansion(bare string) string {
	if open := strings.IndexByte(bare, '{'); open >= 0 {
		if comma := strings.IndexByte(bare[open:], ','); comma >= 0 && strings.IndexByte(bare[open+comma:], '}') >= 0 {
			return "a brace expansion"
		}
		if sequenceRE.MatchString(bare) {
			return "a brace expansion"
		}
	}
	if len(bare) > 1 && bare[0] == '=' {
		return "= at the start of a word"
	}
	if m := assignmentRE.FindString(bare); m != "" {
		if rest := bare[len(m):]; strings.HasPrefix(rest, "~") || strings.Contains(rest, ":~") {
			return "~ in an assignment"
		}
	}
	return ""
}

// Call is a parsed jq invocation.
type Call struct {
	Filter     string
	Args       []string // the arguments as given, input files left out: jq's to read standard input
	Slurp      bool     // -s
	Raw        bool     // -r (or -j)
	Join       bool     // -j: raw, no newline after each output
	Compact    bool     // -c
	NullInput  bool     // -n
	ExitStatus bool     // -e
	Names      []string // variables, with $
	Values     []any    // their values
	files      []int    // the indexes of input files among the arguments
}

// ParseArgs parses the arguments of jq (without the program name) for the
// options that recipes use. Options that change how input is read or that
// gojq cannot mirror (-R, --seq, --slurpfile, --args, ...) are refused with
// an error wrapping [ErrUnsupported].
func ParseArgs(args []string) (*Call, error) {
	j := &Call{}
	// The flags by letter and by long name (after its first -), with the
	// fields each sets.
	flags := map[string][]*bool{
		"s": {&j.Slurp}, "-slurp": {&j.Slurp},
		"r": {&j.Raw}, "-raw-output": {&j.Raw},
		"j": {&j.Raw, &j.Join}, "-join-output": {&j.Raw, &j.Join},
		"c": {&j.Compact}, "-compact-output": {&j.Compact},
		"n": {&j.NullInput}, "-null-input": {&j.NullInput},
		"e": {&j.ExitStatus}, "-exit-status": {&j.ExitStatus},
		// ASCII output, sorted keys, colours and tabs change no value.
		"a": nil, "-ascii-output": nil, "S": nil, "-sort-keys": nil, "-tab": nil,
		"C": nil, "-color-output": nil, "M": nil, "-monochrome-output": nil,
	}
	var positional []int
	for i := 0; i < len(args); i++ {
		a := args[i]
		n := map[string]int{"--arg": 2, "--argjson": 2, "--indent": 1}[a]
		if i+n >= len(args) {
			return nil, unsupported("jq %s needs %d arguments", a, n)
		}
		switch {
		case a == "--":
			for k := i + 1; k < len(args); k++ {
				positional = append(positional, k)
			}
			i = len(args)
		case a == "--arg":
			j.Names, j.Values = append(j.Names, "$"+args[i+1]), append(j.Values, args[i+2])
		case a == "--argjson":
			var v any
			if err := json.Unmarshal([]byte(args[i+2]), &v); err != nil {
				return nil, unsupported("jq --argjson %s: %v", args[i+1], err)
			}
			j.Names, j.Values = append(j.Names, "$"+args[i+1]), append(j.Values, v)
		case a == "--indent":
		case len(a) < 2 || a[0] != '-':
			positional = append(positional, i)
		default:
			names := strings.Split(a[1:], "") // -rc is -r -c
			if a[1] == '-' {
				names = []string{a[1:]}
			}
			for _, name := range names {
				set, ok := flags[name]
				if !ok {
					return nil, unsupported("jq option %s", a)
				}
				for _, p := range set {
					*p = true
				}
			}
		}
		i += n
	}
	if len(positional) == 0 {
		return nil, unsupported("jq without a filter")
	}
	j.Filter, j.files = args[positional[0]], positional[1:]
	for i, a := range args {
		if !slices.Contains(j.files, i) {
			j.Args = append(j.Args, a)
		}
	}
	return j, nil
}

// Command is a recipe command understood: the jq call and the file it
// reads.
type Command struct {
	JQ   *Call
	File string // the file the records come from
	// SkipHeader is set when jq reads the file from its second line on
	// (tail -n +2 FILE | jq ...).
	SkipHeader bool
}

// Parse parses a recipe command of one of the forms
//
//	tail -n +2 FILE | jq [options] FILTER
//	cat FILE | jq [options] FILTER
//	jq [options] FILTER FILE
//
// (tail also as -n+2, --lines=+2 or --lines +2, with an optional --), and
// returns an error wrapping [ErrUnsupported] for any other.
func Parse(command string) (*Command, error) {
	stages, err := Words(command)
	if err != nil {
		return nil, err
	}
	last := stages[len(stages)-1]
	if last[0] != "jq" {
		return nil, unsupported("the last stage runs %q, not jq", last[0])
	}
	call, err := ParseArgs(last[1:])
	if err != nil {
		return nil, err
	}
	c := &Command{JQ: call}
	switch {
	case len(stages) == 1 && len(call.files) == 1:
		c.File = last[1+call.files[0]]
	case len(stages) == 1:
		return nil, unsupported("jq reads %d files, want 1", len(call.files))
	case len(stages) > 2:
		return nil, unsupported("%d pipeline stages", len(stages))
	case len(call.files) != 0:
		return nil, unsupported("jq reads both a pipe and files")
	case stages[0][0] == "cat" && len(stages[0]) == 2:
		c.File = stages[0][1]
	case stages[0][0] == "tail":
		at, ok := tailFromLine2(stages[0][1:])
		if !ok {
			return nil, unsupported("tail %s", strings.Join(stages[0][1:], " "))
		}
		c.File, c.SkipHeader = stages[0][1+at], true
	default:
		return nil, unsupported("the first stage runs %q", strings.Join(stages[0], " "))
	}
	call.files = nil
	if c.File == "" {
		return nil, unsupported("an empty file name")
	}
	return c, nil
}

// tailFromLine2 recognizes the arguments of a tail that prints one file from
// its second line on, and returns the index of the file among them.
func tailFromLine2(args []string) (int, bool) {
	file, from2 := -1, false
	for i := 0; i < len(args); i++ {
		switch a := args[i]; {
		case (a == "-n" || a == "--lines") && i+1 < len(args) && args[i+1] == "+2":
			from2 = true
			i++
		case a == "-n+2" || a == "--lines=+2":
			from2 = true
		case a == "--" && i+2 == len(args) && file < 0:
			file = i + 1
			i++
		case strings.HasPrefix(a, "-") && a != "-" || file >= 0:
			return -1, false
		default:
			file = i
		}
	}
	return file, from2 && file >= 0 && args[file] != ""
}

// Inputs decodes the JSON values of data as jq reads them: numbers as
// float64, a number beyond its range as the largest float64 of its sign.
func Inputs(data []byte) ([]any, error) {
	var inputs []any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	for {
		var v any
		if err := dec.Decode(&v); errors.Is(err, io.EOF) {
			return inputs, nil
		} else if err != nil {
			return inputs, fmt.Errorf("jq: error: cannot parse input: %w", err)
		}
		inputs = append(inputs, floats(v))
	}
}

// Decode decodes data, which must be one JSON value, as [Inputs] does:
// what json.Unmarshal gives, but for a number beyond float64's range,
// valid JSON that json.Unmarshal refuses.
func Decode(data []byte) (any, error) {
	if !json.Valid(data) {
		var v any
		return nil, json.Unmarshal(data, &v) // the error that says why
	}
	v, err := Inputs(data)
	if err != nil {
		return nil, err
	}
	return v[0], nil
}

// floats replaces the json.Number values of v, in place, by float64, a
// number beyond float64's range by the largest float64 of its sign (as jq
// reads it).
func floats(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			f = math.Copysign(math.MaxFloat64, f)
		}
		return f
	case []any:
		for i, e := range x {
			x[i] = floats(e)
		}
	case map[string]any:
		for k, e := range x {
			x[k] = floats(e)
		}
	}
	return v
}

// Run runs the call on the decoded inputs, which it does not modify, and
// returns what jq prints, or an error where jq exits non-zero. The output
// is bounded by max bytes.
func (j *Call) Run(ctx context.Context, inputs []any, max int) ([]byte, error) {
	// The filter runs on each input in turn, which input and inputs read
	// too, or once on null (-n) or on every input (-s).
	it, roots := gojq.NewIter(inputs...), gojq.Iter(nil)
	switch {
	case j.NullInput:
		roots = gojq.NewIter[any](nil)
	case j.Slurp:
		it, roots = gojq.NewIter[any](), gojq.NewIter[any](slices.Clone(inputs))
	default:
		roots = it
	}
	q, err := gojq.Parse(j.Filter)
	var code *gojq.Code
	if err == nil {
		code, err = gojq.Compile(q, gojq.WithVariables(j.Names), gojq.WithInputIter(it))
	}
	if err != nil {
		return nil, fmt.Errorf("jq: compile error: %w", err)
	}
	var out bytes.Buffer
	var last any
	outputs := 0
	for v, ok := roots.Next(); ok; v, ok = roots.Next() {
		results := code.RunWithContext(ctx, v, j.Values...)
		for x, ok := results.Next(); ok; x, ok = results.Next() {
			if e, ok := x.(error); ok {
				var halt *gojq.HaltError
				if errors.As(e, &halt) && halt.Value() == nil && halt.ExitCode() == 0 {
					return out.Bytes(), nil
				}
				return out.Bytes(), fmt.Errorf("jq: error: %w", e)
			}
			outputs, last = outputs+1, x
			if s, ok := x.(string); ok && j.Raw {
				out.WriteString(s)
			} else {
				// gojq prints as jq does (infinite, nan, <&>), and
				// json.Indent indents that as jq does without -c.
				b, err := gojq.Marshal(x)
				if err == nil && !j.Compact {
					var indented bytes.Buffer
					err = json.Indent(&indented, b, "", "  ")
					b = indented.Bytes()
				}
				if err != nil {
					return out.Bytes(), err
				}
				out.Write(b)
			}
			if !j.Join {
				out.WriteByte('\n')
			}
			if out.Len() > max {
				return out.Bytes(), fmt.Errorf("printed more than %d bytes", max)
			}
		}
	}
	switch {
	case ctx.Err() != nil:
		err = fmt.Errorf("did not finish: %w", ctx.Err())
	case j.ExitStatus && outputs == 0:
		err = errors.New("exit status 4 (-e: no output)")
	case j.ExitStatus && (last == nil || last == false):
		err = errors.New("exit status 1 (-e: last output false or null)")
	}
	return out.Bytes(), err
}
