package jqcmd

import (
	"context"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/zircote/lro-go/internal/shell"
)

func TestWords(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want [][]string
	}{
		{"plain words", "tail -n +2 /tmp/f.jsonl", [][]string{{"tail", "-n", "+2", "/tmp/f.jsonl"}}},
		{"pipeline", "tail -n +2 f | jq -c .", [][]string{{"tail", "-n", "+2", "f"}, {"jq", "-c", "."}}},
		{"single quotes keep everything", `jq '$x | "a b" | .[0]'`, [][]string{{"jq", `$x | "a b" | .[0]`}}},
		{"the quoted quote of ShellQuote", `tail -n +2 'it'\''s here' | jq .`, [][]string{{"tail", "-n", "+2", "it's here"}, {"jq", "."}}},
		{"double quotes with escapes", `jq "a\"b\\c\$"`, [][]string{{"jq", `a"b\c$`}}},
		{"backslash in double quotes before an ordinary character stays", `jq "a\nb"`, [][]string{{"jq", `a\nb`}}},
		{"empty quoted word", `jq --arg k '' .`, [][]string{{"jq", "--arg", "k", "", "."}}},
		{"adjacent quoted parts are one word", `jq 'a'"b"c`, [][]string{{"jq", "abc"}}},
		{"unquoted backslash escape", `tail -n +2 a\ b`, [][]string{{"tail", "-n", "+2", "a b"}}},
		{"braces are literal", "tail -n +2 {file} | jq .", [][]string{{"tail", "-n", "+2", "{file}"}, {"jq", "."}}},
		{"braces without a comma or a sequence are literal", `jq a{b}c,d '{a,b}' {a\,b} {x..yy} "{1..3}"`,
			[][]string{{"jq", "a{b}c,d", "{a,b}", "{a,b}", "{x..yy}", "{1..3}"}}},
		{"= and ~ that no shell expands", `jq a= '=x' \=y --x=~ a:~ 1a=~ a=x~`, [][]string{{"jq", "a=", "=x", "=y", "--x=~", "a:~", "1a=~", "a=x~"}}},
		{"tabs separate words", "jq\t-c\t.", [][]string{{"jq", "-c", "."}}},
		{"non-UTF-8 bytes in a path survive", "tail -n +2 '/tmp/\xff.jsonl' | jq .", [][]string{{"tail", "-n", "+2", "/tmp/\xff.jsonl"}, {"jq", "."}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Words(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Words(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestWordsRefuses(t *testing.T) {
	tests := []struct {
		in, why string
	}{
		{"jq . f; rm -rf /", "a second command"},
		{"jq . f && echo", "&&"},
		{"jq . < f", "redirection"},
		{"jq . f > out", "redirection"},
		{"jq $(cat f)", "command substitution"},
		{"jq `cat f`", "backquotes"},
		{`jq "$HOME"`, "expansion in double quotes"},
		{"tail -n +2 *.jsonl | jq .", "a glob"},
		{"tail -n +2 ~/f | jq .", "tilde"},
		{"jq . f # comment", "a comment"},
		{"jq . f || true", "||"},
		{"| jq .", "an empty stage"},
		{"jq .|", "an empty last stage"},
		{"jq 'open", "an unterminated single quote"},
		{`jq "open`, "an unterminated double quote"},
		{`jq .\`, "a trailing backslash"},
		{`jq $'.sc\x6fre' f`, "ANSI-C quoting, which bash reads as .score"},
		{`jq $".score" f`, "locale quoting"},
		{"jq .\nrm f", "a newline"},
		{"tail -n +2 f | jq -c {id,title}", "a brace expansion, which bash and zsh split into two words"},
		{"tail -n +2 f | jq -c {id,'title'}", "a brace expansion with a quoted part"},
		{"tail -n +2 f | jq -c '.a'{,}", "an empty alternative of a brace expansion"},
		{"tail -n +2 f | jq -c {x,{a,b}}", "nested brace expansions"},
		{"tail -n +2 f | jq -c {a}b,c}", "a brace expansion whose first alternative holds a }, as bash reads it"},
		{"tail -n +2 f | jq -c '.'{1..3}", "a sequence expression of numbers"},
		{"tail -n +2 f | jq -r {a..c}", "a sequence expression of letters"},
		{"tail -n +2 f | jq --arg op == .", "a word that starts with =, a command path in zsh"},
		{"tail -n +2 f | jq --arg dir x=~ .", "a tilde after the = of an assignment-like word, which bash expands"},
		{"tail -n +2 f | jq --arg p a=b:~/x .", "a tilde after a : of an assignment-like word"},
		{"", "nothing"},
	}
	for _, tt := range tests {
		t.Run(tt.why, func(t *testing.T) {
			if got, err := Words(tt.in); !errors.Is(err, ErrUnsupported) {
				t.Errorf("Words(%q) = %q, %v; want an error wrapping ErrUnsupported", tt.in, got, err)
			}
		})
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Command
	}{
		{"tail and jq with every option", `tail -n +2 '/tmp/a b.jsonl' | jq -s -rc --arg ns '_semantic' --argjson n 3 'map(.x)'`,
			Command{File: "/tmp/a b.jsonl", SkipHeader: true, JQ: &Call{Filter: "map(.x)", Slurp: true, Raw: true, Compact: true,
				Names: []string{"$ns", "$n"}, Values: []any{"_semantic", float64(3)}}}},
		{"tail -n+2", "tail -n+2 f | jq .", Command{File: "f", SkipHeader: true, JQ: &Call{Filter: "."}}},
		{"tail --lines=+2 --", "tail --lines=+2 -- -f | jq .", Command{File: "-f", SkipHeader: true, JQ: &Call{Filter: "."}}},
		{"cat reads the header too", "cat f | jq -n 'input'", Command{File: "f", JQ: &Call{Filter: "input", NullInput: true}}},
		{"jq reads the file", "jq -c '{id}' f", Command{File: "f", JQ: &Call{Filter: "{id}", Compact: true}}},
		{"long options and -e", "tail -n +2 f | jq --slurp --raw-output --compact-output --exit-status --tab --indent 4 -S .",
			Command{File: "f", SkipHeader: true, JQ: &Call{Filter: ".", Slurp: true, Raw: true, Compact: true, ExitStatus: true}}},
		{"-j joins", "tail -n +2 f | jq -j .t", Command{File: "f", SkipHeader: true, JQ: &Call{Filter: ".t", Raw: true, Join: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			// Which words are Args is TestArgs's concern.
			where := cmpopts.IgnoreFields(Call{}, "Args")
			if diff := cmp.Diff(&tt.want, got, cmp.AllowUnexported(Command{}, Call{}), where); diff != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestParseRefuses(t *testing.T) {
	tests := []struct {
		in, why string
	}{
		{"tail -n +2 f | sort", "the last stage is not jq"},
		{"tail -n +3 f | jq .", "tail from line 3"},
		{"tail -n 2 f | jq .", "the last 2 lines"},
		{"tail -f f | jq .", "another tail option"},
		{"tail -n +2 f g | jq .", "two files"},
		{"tail -n +2 | jq .", "no file"},
		{"head -n 5 f | jq .", "head"},
		{"tail -n +2 f | jq . g", "a pipe and a file"},
		{"jq .", "no input file"},
		{"jq . f g", "two input files"},
		{"tail -n +2 f | grep x | jq .", "three stages"},
		{"tail -n +2 f | jq -R .", "raw input"},
		{"tail -n +2 f | jq --seq .", "an unknown long option"},
		{"tail -n +2 f | jq -c", "no filter"},
		{"tail -n +2 f | jq --arg x", "--arg without a value"},
		{"tail -n +2 f | jq --argjson x '{' .", "--argjson that is not JSON"},
		{`jq 0 ""`, "an empty file name"},
	}
	for _, tt := range tests {
		t.Run(tt.why, func(t *testing.T) {
			if got, err := Parse(tt.in); !errors.Is(err, ErrUnsupported) {
				t.Errorf("Parse(%q) = %+v, %v; want an error wrapping ErrUnsupported", tt.in, got, err)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`tail -n +2 '/tmp/x.jsonl' | jq -c --arg k 'v' 'select(.a == $k)'`,
		`tail -n +2 'it'\''s' | jq -s 'map(.a) | .[]'`,
		`jq "a\"b" f`, "cat f | jq -n 'input'", "tail -n+2 a\\ b | jq -rc .", "jq",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			return
		}
		rc, err := Parse(s)
		if err != nil {
			if !errors.Is(err, ErrUnsupported) {
				t.Fatalf("Parse(%q): error %v does not wrap ErrUnsupported", s, err)
			}
			return
		}
		if rc.JQ == nil || rc.File == "" || len(rc.JQ.files) != 0 {
			t.Fatalf("Parse(%q) = %+v: want a jq call reading one named file", s, rc)
		}
		// Quoting every word again and parsing gives the same words.
		stages, err := Words(s)
		if err != nil {
			t.Fatalf("Parse accepted %q but Words refuses it: %v", s, err)
		}
		var quoted []string
		for _, st := range stages {
			var words []string
			for _, w := range st {
				words = append(words, shell.Quote(w))
			}
			quoted = append(quoted, strings.Join(words, " "))
		}
		again, err := Words(strings.Join(quoted, " | "))
		if err != nil {
			t.Fatalf("requoted %q: %v", quoted, err)
		}
		if diff := cmp.Diff(stages, again); diff != "" {
			t.Fatalf("requoting %q changed the words (-want +got):\n%s", s, diff)
		}
		// The same call reading the file from standard input: Args are
		// the words of the jq stage but the file.
		var args []string
		for _, a := range rc.JQ.Args {
			args = append(args, shell.Quote(a))
		}
		const other = "/tmp/lrotest-1/it's a \"copy\".jsonl"
		moved, err := Parse("cat " + shell.Quote(other) + " | jq " + strings.Join(args, " "))
		if err != nil {
			t.Fatalf("jq with the Args of %q: %v", s, err)
		}
		if diff := cmp.Diff(rc.JQ, moved.JQ, cmp.AllowUnexported(Call{})); diff != "" {
			t.Fatalf("jq with the Args of %q is another call (-want +got):\n%s", s, diff)
		}
	})
}

// TestArgs checks that a recipe's jq arguments, whatever its form, leave
// out the file it reads and nothing else: an argument equal to the file's
// path is kept.
func TestArgs(t *testing.T) {
	tests := []struct {
		command string
		want    []string
	}{
		{`tail -n +2 '/tmp/a.jsonl' | jq -c '{id}'`, []string{"-c", "{id}"}},
		{`tail -n+2 -- /tmp/a.jsonl | jq -r .id`, []string{"-r", ".id"}},
		{`cat /tmp/a.jsonl | jq -c .`, []string{"-c", "."}},
		{`jq -c --arg p /tmp/a.jsonl 'select(.p == $p)' /tmp/a.jsonl -s`,
			[]string{"-c", "--arg", "p", "/tmp/a.jsonl", "select(.p == $p)", "-s"}},
		{`jq -c . -- "/tmp/it's.jsonl"`, []string{"-c", ".", "--"}},
	}
	for _, tt := range tests {
		rc, err := Parse(tt.command)
		if err != nil {
			t.Fatalf("%s: %v", tt.command, err)
		}
		if diff := cmp.Diff(tt.want, rc.JQ.Args); diff != "" {
			t.Errorf("Args of %s (-want +got):\n%s", tt.command, diff)
		}
	}
}

func TestFieldRefs(t *testing.T) {
	tests := []struct {
		name        string
		filter      string
		all, record [][]string
	}{
		{"a path", `.provenance.confidence`, [][]string{{"provenance", "confidence"}}, [][]string{{"provenance", "confidence"}}},
		{"in a sort", `sort_by(.created) | .[]`, [][]string{{"created"}}, [][]string{{"created"}}},
		{"object shorthand", `{id, title, "name"}`, [][]string{{"id"}, {"title"}, {"name"}}, [][]string{{"id"}, {"title"}, {"name"}}},
		{"iteration is looked through", `.tags[]?.name`, [][]string{{"tags", "name"}}, [][]string{{"tags", "name"}}},
		{"elements of a slurped array", `.[0].namespace, .[].id`, [][]string{{"namespace"}, {"id"}}, [][]string{{"namespace"}, {"id"}}},
		{"string keys", `."score", .["x y"]`, [][]string{{"score"}, {"x y"}}, [][]string{{"score"}, {"x y"}}},
		{"a computed index ends the path", `.a[$k].b`, [][]string{{"a"}}, [][]string{{"a"}}},
		{"variables are not records", `$x.a, .b as $y | $y.c`, [][]string{{"b"}}, [][]string{{"b"}}},
		{"keys built before use are not record fields",
			`group_by(.ns) | map({ns: .[0].ns, count: length}) | sort_by(-.count)`,
			[][]string{{"ns"}, {"ns"}, {"count"}}, [][]string{{"ns"}}},
		{"to_entries keys", `to_entries | map(.key)`, [][]string{{"key"}}, nil},
		{"inside functions, conditionals and strings", `select(.a | test("x")) | if .b then "\(.c)" else .d end | reduce .e[] as $v (0; . + $v)`,
			[][]string{{"a"}, {"b"}, {"c"}, {"d"}, {"e"}}, [][]string{{"a"}, {"b"}, {"c"}, {"d"}, {"e"}}},
		{"in function definitions", `def f: .g; f`, [][]string{{"g"}}, [][]string{{"g"}}},
		{"identity and recursion name nothing", `., ..`, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := FieldRefs(tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.all, got.All); diff != "" {
				t.Errorf("all (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.record, got.Record); diff != "" {
				t.Errorf("record (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := FieldRefs(`{a`); err == nil {
		t.Error("FieldRefs of a syntax error: no error")
	}
}

// TestLimitedBufferKeepsItsBound checks that what jq prints is cut at the
// bound when it is copied in as os/exec copies it, with io.Copy from a
// reader that is not a WriterTo.
func TestLimitedBufferKeepsItsBound(t *testing.T) {
	b := &limitedBuffer{max: 4}
	if _, err := io.Copy(b, struct{ io.Reader }{strings.NewReader("123456789")}); err != nil {
		t.Fatal(err)
	}
	if got := b.buf.String(); got != "1234" || !b.truncated {
		t.Errorf("kept %q, truncated %v; want %q, true", got, b.truncated, "1234")
	}
}

// TestRunBoundsAnotherFile checks that a command reading a file other than
// the one given reads it from disk only up to the bound.
func TestRunBoundsAnotherFile(t *testing.T) {
	other := filepath.Join(t.TempDir(), "other.jsonl")
	if err := os.WriteFile(other, []byte("{\"a\":1}\n{\"a\":2}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Parse("tail -n +2 " + other + " | jq -c .a")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := c.Run(context.Background(), "", "given.jsonl", nil, 1<<10); err != nil || string(out) != "2\n" {
		t.Errorf("within the bound: %q, %v; want %q", out, err, "2\n")
	}
	if _, err := c.Run(context.Background(), "", "given.jsonl", nil, 8); err == nil || !strings.Contains(err.Error(), "more than the kit reads (8)") {
		t.Errorf("over the bound: err %v, want it refused", err)
	}
}

// TestInputsBeyondFloat64 reads numbers beyond float64's range, valid JSON
// that jq reads as the largest float64 of their sign: the in-process jq
// failed the whole input ("cannot parse input") where jq prints them.
func TestInputsBeyondFloat64(t *testing.T) {
	got, err := Inputs([]byte("{\"a\":1e400}\n-1e999\n[1e-400, 2]\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []any{map[string]any{"a": math.MaxFloat64}, -math.MaxFloat64, []any{0.0, 2.0}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Inputs (-want +got):\n%s", diff)
	}
	out, err := (&Call{Filter: ".a", Compact: true}).Run(context.Background(), got[:1], 1<<10)
	if err != nil || string(out) != "1.7976931348623157e+308\n" {
		t.Errorf("jq -c .a: %q, %v; want what jq prints, 1.7976931348623157e+308", out, err)
	}
	for _, in := range []string{`{"a":1e400}`, `-1e999`} {
		if _, err := Decode([]byte(in)); err != nil {
			t.Errorf("Decode(%s): %v", in, err)
		}
	}
	for _, in := range []string{`{"a":1e400} 2`, `{"a":`, ``} {
		if v, err := Decode([]byte(in)); err == nil {
			t.Errorf("Decode(%q) = %v, want an error: not one JSON value", in, v)
		}
	}
}

// TestRunPrintsAsJQ runs filters whose output encoding/json cannot print as
// jq does: infinite and nan (jq prints the largest float64 and null, where
// json.MarshalIndent fails), and <&> (which it escapes). Without -c the
// in-process jq failed the recipe, which jq runs.
func TestRunPrintsAsJQ(t *testing.T) {
	for _, compact := range []bool{false, true} {
		out, err := (&Call{Filter: `[infinite, nan, "<&>"]`, Compact: compact}).Run(context.Background(), []any{nil}, 1<<10)
		want := "[\n  1.7976931348623157e+308,\n  null,\n  \"<&>\"\n]\n"
		if compact {
			want = "[1.7976931348623157e+308,null,\"<&>\"]\n"
		}
		if err != nil || string(out) != want {
			t.Errorf("compact %v: %q, %v; want %q", compact, out, err, want)
		}
	}
}
