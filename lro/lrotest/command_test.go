package lrotest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestParsePipeline(t *testing.T) {
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
		{"tabs separate words", "jq\t-c\t.", [][]string{{"jq", "-c", "."}}},
		{"non-UTF-8 bytes in a path survive", "tail -n +2 '/tmp/\xff.jsonl' | jq .", [][]string{{"tail", "-n", "+2", "/tmp/\xff.jsonl"}, {"jq", "."}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parsePipeline(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parsePipeline(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestParsePipelineRefuses(t *testing.T) {
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
		{"jq .\nrm f", "a newline"},
		{"", "nothing"},
	}
	for _, tt := range tests {
		t.Run(tt.why, func(t *testing.T) {
			if got, err := parsePipeline(tt.in); !errors.Is(err, errUnsupported) {
				t.Errorf("parsePipeline(%q) = %q, %v; want an error wrapping errUnsupported", tt.in, got, err)
			}
		})
	}
}

func TestParseRecipe(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want recipeCommand
	}{
		{"tail and jq with every option", `tail -n +2 '/tmp/a b.jsonl' | jq -s -rc --arg ns '_semantic' --argjson n 3 'map(.x)'`,
			recipeCommand{file: "/tmp/a b.jsonl", skipHeader: true, jq: &jqCall{filter: "map(.x)", slurp: true, raw: true, compact: true,
				names: []string{"$ns", "$n"}, values: []any{"_semantic", float64(3)}}}},
		{"tail -n+2", "tail -n+2 f | jq .", recipeCommand{file: "f", skipHeader: true, jq: &jqCall{filter: "."}}},
		{"tail --lines=+2 --", "tail --lines=+2 -- -f | jq .", recipeCommand{file: "-f", skipHeader: true, jq: &jqCall{filter: "."}}},
		{"cat reads the header too", "cat f | jq -n 'input'", recipeCommand{file: "f", jq: &jqCall{filter: "input", nullInput: true}}},
		{"jq reads the file", "jq -c '{id}' f", recipeCommand{file: "f", jq: &jqCall{filter: "{id}", compact: true}}},
		{"long options and -e", "tail -n +2 f | jq --slurp --raw-output --compact-output --exit-status --tab --indent 4 -S .",
			recipeCommand{file: "f", skipHeader: true, jq: &jqCall{filter: ".", slurp: true, raw: true, compact: true, exitStatus: true}}},
		{"-j joins", "tail -n +2 f | jq -j .t", recipeCommand{file: "f", skipHeader: true, jq: &jqCall{filter: ".t", raw: true, join: true}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseRecipe(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			// Where the file's word is, withFile's concern, is tested there.
			where := cmpopts.IgnoreFields(recipeCommand{}, "stages", "fileAt")
			if diff := cmp.Diff(&tt.want, got, cmp.AllowUnexported(recipeCommand{}, jqCall{}), where); diff != "" {
				t.Errorf("parseRecipe(%q) (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestParseRecipeRefuses(t *testing.T) {
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
			if got, err := parseRecipe(tt.in); !errors.Is(err, errUnsupported) {
				t.Errorf("parseRecipe(%q) = %+v, %v; want an error wrapping errUnsupported", tt.in, got, err)
			}
		})
	}
}

func FuzzParseRecipe(f *testing.F) {
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
		rc, err := parseRecipe(s)
		if err != nil {
			if !errors.Is(err, errUnsupported) {
				t.Fatalf("parseRecipe(%q): error %v does not wrap errUnsupported", s, err)
			}
			return
		}
		if rc.jq == nil || rc.file == "" || len(rc.jq.files) != 0 {
			t.Fatalf("parseRecipe(%q) = %+v: want a jq call reading one named file", s, rc)
		}
		// Quoting every word again and parsing gives the same words.
		stages, err := parsePipeline(s)
		if err != nil {
			t.Fatalf("parseRecipe accepted %q but parsePipeline refuses it: %v", s, err)
		}
		var quoted []string
		for _, st := range stages {
			var words []string
			for _, w := range st {
				words = append(words, shellQuote(w))
			}
			quoted = append(quoted, strings.Join(words, " "))
		}
		again, err := parsePipeline(strings.Join(quoted, " | "))
		if err != nil {
			t.Fatalf("requoted %q: %v", quoted, err)
		}
		if diff := cmp.Diff(stages, again); diff != "" {
			t.Fatalf("requoting %q changed the words (-want +got):\n%s", s, diff)
		}
		// withFile gives the same command on another file.
		const other = "/tmp/lrotest-1/it's a \"copy\".jsonl"
		moved, err := parseRecipe(rc.withFile(other))
		if err != nil {
			t.Fatalf("withFile of %q: %v", s, err)
		}
		if moved.file != other || moved.skipHeader != rc.skipHeader {
			t.Fatalf("withFile of %q reads %q (skip header %v), want %q (%v)", s, moved.file, moved.skipHeader, other, rc.skipHeader)
		}
		if diff := cmp.Diff(rc.jq, moved.jq, cmp.AllowUnexported(jqCall{})); diff != "" {
			t.Fatalf("withFile of %q changed the jq call (-want +got):\n%s", s, diff)
		}
	})
}

// TestWithFile checks that a recipe's command, moved to another file,
// names it in place of the file it read, whatever its form, and nothing
// else: an argument equal to the file's path is kept.
func TestWithFile(t *testing.T) {
	const to = "/tmp/lrotest-1/fetched-1.jsonl"
	tests := []struct{ command, want string }{
		{`tail -n +2 '/tmp/a.jsonl' | jq -c '{id}'`, `'tail' '-n' '+2' '/tmp/lrotest-1/fetched-1.jsonl' | 'jq' '-c' '{id}'`},
		{`tail -n+2 -- /tmp/a.jsonl | jq -r .id`, `'tail' '-n+2' '--' '/tmp/lrotest-1/fetched-1.jsonl' | 'jq' '-r' '.id'`},
		{`cat /tmp/a.jsonl | jq -c .`, `'cat' '/tmp/lrotest-1/fetched-1.jsonl' | 'jq' '-c' '.'`},
		{`jq -c --arg p /tmp/a.jsonl 'select(.p == $p)' /tmp/a.jsonl -s`, `'jq' '-c' '--arg' 'p' '/tmp/a.jsonl' 'select(.p == $p)' '/tmp/lrotest-1/fetched-1.jsonl' '-s'`},
		{`jq -c . -- "/tmp/it's.jsonl"`, `'jq' '-c' '.' '--' '/tmp/lrotest-1/fetched-1.jsonl'`},
	}
	for _, tt := range tests {
		rc, err := parseRecipe(tt.command)
		if err != nil {
			t.Fatalf("%s: %v", tt.command, err)
		}
		if got := rc.withFile(to); got != tt.want {
			t.Errorf("withFile of %s:\n got %s\nwant %s", tt.command, got, tt.want)
		}
	}
}

// TestRunnersReadTheFetchedCopy checks both runners on a file fetched
// with resources/read: a recipe naming file_path, which is not on this
// machine, reads the kit's copy.
func TestRunnersReadTheFetchedCopy(t *testing.T) {
	copyPath := filepath.Join(t.TempDir(), "fetched-1.jsonl")
	data := []byte("{\"type\":\"lro_header\"}\n{\"id\":\"a\"}\n{\"id\":\"b\"}\n")
	if err := os.WriteFile(copyPath, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f := &fileView{path: "/tmp/no-such-dir-lrotest/atlatl-recall-x.jsonl", local: copyPath, fetched: true, data: data}
	runners := []runner{&gojqRunner{}}
	if sr, ok := newShellRunner(); ok {
		runners = append(runners, sr)
	}
	for _, r := range runners {
		got := r.run(context.Background(), "tail -n +2 "+shellQuote(f.path)+" | jq -r .id", f)
		if got.err != nil || string(got.stdout) != "a\nb\n" {
			t.Errorf("%T: %q, %v; want the copy's ids", r, got.stdout, got.err)
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
			got, err := fieldRefs(tt.filter)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.all, got.all); diff != "" {
				t.Errorf("all (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.record, got.record); diff != "" {
				t.Errorf("record (-want +got):\n%s", diff)
			}
		})
	}
	if _, err := fieldRefs(`{a`); err == nil {
		t.Error("fieldRefs of a syntax error: no error")
	}
}

// TestGojqMatchesJQ runs commands with both runners on the same file and
// compares their outputs: the in-process runner mirrors jq's options.
func TestGojqMatchesJQ(t *testing.T) {
	sr, ok := newShellRunner()
	if !ok {
		if os.Getenv("CI") != "" {
			t.Fatal("jq is not installed")
		}
		t.Skip("jq is not installed")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "it's.jsonl")
	data := []byte(`{"type":"lro_header","count":3}` + "\n" +
		`{"id":"a","n":3,"tags":["x","y"],"p":{"c":0.5}}` + "\n" +
		`{"id":"b","n":1,"tags":[],"p":{"c":0.9}}` + "\n" +
		`{"id":"c","n":2,"tags":["x"],"p":{"c":0.1}}` + "\n")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	q := shellQuote(file)
	tests := []struct {
		name, args string
		fails      bool
	}{
		{"compact", `-c '{id, n}'`, false},
		{"pretty", `'{id, p}'`, false},
		{"raw strings", `-r '.id'`, false},
		{"raw non-strings stay JSON", `-r '.tags'`, false},
		{"join", `-j '.id'`, false},
		{"slurp", `-s -c 'sort_by(.p.c) | reverse | .[]'`, false},
		{"arg", `-c --arg t x 'select(any(.tags[]?; . == $t))'`, false},
		{"argjson", `-c --argjson min 2 'select(.n >= $min) | .id'`, false},
		{"null input reads inputs", `-n -c '[inputs | .n] | add'`, false},
		{"input reads the next record", `-c '[., input] | map(.id)'`, true}, // an odd count: the last input errors in both
		{"tsv", `-r '[.id, .n] | @tsv'`, false},
		{"exit status with output", `-e '.n'`, false},
		{"exit status with null", `-e '.missing'`, true},
		{"a runtime error", `'.id | tonumber'`, true},
		{"a syntax error", `'{id'`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := "tail -n +2 " + q + " | jq " + tt.args
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			f := &fileView{path: file, local: file, data: data}
			want := sr.run(ctx, cmd, f)
			got := (&gojqRunner{}).run(ctx, cmd, f)
			if (want.err != nil) != tt.fails || (got.err != nil) != tt.fails {
				t.Fatalf("errors: jq %v, gojq %v; want failure %v", want.err, got.err, tt.fails)
			}
			if tt.fails {
				return
			}
			// gojq sorts object keys where jq keeps their order: compare
			// values when the output is JSON, text otherwise.
			wv, wok := want.values()
			gv, gok := got.values()
			if wok && gok {
				if diff := cmp.Diff(wv, gv); diff != "" {
					t.Errorf("output values of %s (-jq +gojq):\n%s", cmd, diff)
				}
			} else if diff := cmp.Diff(string(want.stdout), string(got.stdout)); diff != "" {
				t.Errorf("output of %s (-jq +gojq):\n%s", cmd, diff)
			}
		})
	}
	// A file that is not the descriptor's is read from disk.
	other := (&gojqRunner{}).run(context.Background(), "jq -c '.type' "+q, &fileView{path: "/elsewhere", local: "/elsewhere"})
	if want := "\"lro_header\"\nnull\nnull\nnull\n"; other.err != nil || string(other.stdout) != want {
		t.Errorf("jq FILE read from disk: %q, %v; want %q", other.stdout, other.err, want)
	}
}

func TestShellRunnerReportsStderr(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("no jq")
	}
	r := (&shellRunner{}).run(context.Background(), "tail -n +2 /no/such/file | jq .", &fileView{})
	if r.err == nil || !strings.Contains(r.err.Error(), "No such file") {
		t.Errorf("a pipeline whose first command fails but whose last succeeds: err %v, want tail's message", r.err)
	}
}

// TestRunnersRefuseOtherCommands checks that neither runner runs a command
// outside tail | jq: the commands come from the server under test.
func TestRunnersRefuseOtherCommands(t *testing.T) {
	canary := filepath.Join(t.TempDir(), "canary")
	for _, cmd := range []string{
		"touch " + canary,
		"tail -n +2 f | jq . ; touch " + canary,
		"jq . f > " + canary,
		"tail -n +2 f | jq . | tee " + canary,
		"tail -n +2 $(touch " + canary + ") | jq .",
	} {
		for _, r := range []runner{&shellRunner{}, &gojqRunner{}} {
			res := r.run(context.Background(), cmd, &fileView{path: "f", local: "f"})
			if res.err == nil || !strings.Contains(res.err.Error(), "not run") {
				t.Errorf("%T.run(%q): err %v, want it not run", r, cmd, res.err)
			}
		}
	}
	if _, err := os.Stat(canary); err == nil {
		t.Error("a refused command ran")
	}
}

// TestGojqRunnerCache checks that the decoded-input cache serves the same
// bytes only: another file of the same size, or the same file read from
// line 1, is decoded again.
func TestGojqRunnerCache(t *testing.T) {
	g := &gojqRunner{}
	a := []byte("{\"h\":1}\n{\"v\":\"a\"}\n")
	b := []byte("{\"h\":1}\n{\"v\":\"b\"}\n")
	for _, tt := range []struct {
		cmd  string
		data []byte
		want string
	}{
		{"tail -n +2 f | jq -r .v", a, "a\n"},
		{"tail -n +2 f | jq -r .v", a, "a\n"},
		{"tail -n +2 f | jq -r .v", b, "b\n"},
		{"cat f | jq -c .", b, "{\"h\":1}\n{\"v\":\"b\"}\n"},
		{"tail -n +2 f | jq -s -c 'sort_by(.v) | reverse'", b, "[{\"v\":\"b\"}]\n"},
		{"tail -n +2 f | jq -c .", b, "{\"v\":\"b\"}\n"},
	} {
		r := g.run(context.Background(), tt.cmd, &fileView{path: "f", local: "f", data: tt.data})
		if r.err != nil || string(r.stdout) != tt.want {
			t.Errorf("%s on %q: %q, %v; want %q", tt.cmd, tt.data, r.stdout, r.err, tt.want)
		}
	}
}
