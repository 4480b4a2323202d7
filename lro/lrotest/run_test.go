package lrotest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zircote/lro-go/internal/jqcmd"
	"github.com/zircote/lro-go/internal/shell"
)

// recipeRun is the outcome of running one recipe command.
type recipeRun struct {
	err    error
	stdout []byte
}

// values decodes the output as a stream of JSON values, or reports false
// when it is not one (raw output).
func (r recipeRun) values() ([]any, bool) {
	vals, err := jqcmd.Inputs(r.stdout)
	return vals, err == nil
}

// runner runs recipes as a check does: with the jq at path jq, or in
// process when jq is "".
type runner struct{ jq string }

func (r runner) run(ctx context.Context, command string, f *offloadFile) recipeRun {
	out, err := (&checker{jq: r.jq}).runRecipe(ctx, parseRecipe(command), f)
	return recipeRun{err, out}
}

func (r runner) String() string { return "runner " + r.jq }

// jqRunner is the runner with jq, if it is installed.
func jqRunner() (runner, bool) {
	jq, _ := jqcmd.FindJQ()
	return runner{jq}, jq != ""
}

var gojqRunner = runner{}

// TestRunnersReadTheFetchedCopy checks both runners on a file fetched
// with resources/read: a recipe naming file_path, which is not on this
// machine, reads what was fetched.
func TestRunnersReadTheFetchedCopy(t *testing.T) {
	data := []byte("{\"type\":\"lro_header\"}\n{\"id\":\"a\"}\n{\"id\":\"b\"}\n")
	f := &offloadFile{Path: "/tmp/no-such-dir-lrotest/atlatl-recall-x.jsonl", Fetched: true, Data: data}
	runners := []runner{gojqRunner}
	if sr, ok := jqRunner(); ok {
		runners = append(runners, sr)
	}
	for _, r := range runners {
		got := r.run(context.Background(), "tail -n +2 "+shell.Quote(f.Path)+" | jq -r .id", f)
		if got.err != nil || string(got.stdout) != "a\nb\n" {
			t.Errorf("%v: %q, %v; want the copy's ids", r, got.stdout, got.err)
		}
	}
}

// TestGojqMatchesJQ runs commands with both runners on the same file and
// compares their outputs: the in-process runner mirrors jq's options.
func TestGojqMatchesJQ(t *testing.T) {
	jqInstalled(t)
	sr, _ := jqRunner()
	dir := t.TempDir()
	file := filepath.Join(dir, "it's.jsonl")
	data := []byte(`{"type":"lro_header","count":3}` + "\n" +
		`{"id":"a","n":3,"tags":["x","y"],"p":{"c":0.5}}` + "\n" +
		`{"id":"b","n":1,"tags":[],"p":{"c":0.9}}` + "\n" +
		`{"id":"c","n":2,"tags":["x"],"p":{"c":0.1}}` + "\n")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	q := shell.Quote(file)
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
			f := &offloadFile{Path: file, Data: data}
			want := sr.run(ctx, cmd, f)
			got := gojqRunner.run(ctx, cmd, f)
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
	other := gojqRunner.run(context.Background(), "jq -c '.type' "+q, &offloadFile{Path: "/elsewhere"})
	if want := "\"lro_header\"\nnull\nnull\nnull\n"; other.err != nil || string(other.stdout) != want {
		t.Errorf("jq FILE read from disk: %q, %v; want %q", other.stdout, other.err, want)
	}
}

// TestRunnersReportAMissingFile checks that a recipe whose tail reads no
// file fails, saying why, though jq alone would succeed on no input.
func TestRunnersReportAMissingFile(t *testing.T) {
	for _, r := range []runner{{"jq"}, gojqRunner} {
		res := r.run(context.Background(), "tail -n +2 /no/such/file | jq .", &offloadFile{})
		if res.err == nil || !strings.Contains(strings.ToLower(res.err.Error()), "no such file") {
			t.Errorf("%v: a pipeline whose first command fails but whose last succeeds: err %v, want tail's message", r, res.err)
		}
	}
}

// TestRunnersReportStderr checks that jq writing to standard error fails
// the recipe though jq exits 0.
func TestRunnersReportStderr(t *testing.T) {
	jqInstalled(t)
	sr, _ := jqRunner()
	res := sr.run(context.Background(), `tail -n +2 f | jq '"x" | debug'`, &offloadFile{Path: "f", Data: []byte("{}\n{}\n")})
	if res.err == nil || !strings.Contains(res.err.Error(), "wrote to standard error") {
		t.Errorf("jq that writes to standard error: err %v, want it reported", res.err)
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
		for _, r := range []runner{{"jq"}, gojqRunner} {
			res := r.run(context.Background(), cmd, &offloadFile{Path: "f"})
			if res.err == nil || !strings.Contains(res.err.Error(), "not run") {
				t.Errorf("%v.run(%q): err %v, want it not run", r, cmd, res.err)
			}
		}
	}
	if _, err := os.Stat(canary); err == nil {
		t.Error("a refused command ran")
	}
}

// TestGojqRunnerInputs checks that the in-process runner reads each
// recipe's input afresh: another file of the same size, or the same file
// read from line 1.
func TestGojqRunnerInputs(t *testing.T) {
	s := &checker{}
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
		out, err := s.runRecipe(context.Background(), parseRecipe(tt.cmd), &offloadFile{Path: "f", Data: tt.data})
		if err != nil || string(out) != tt.want {
			t.Errorf("%s on %q: %q, %v; want %q", tt.cmd, tt.data, out, err, tt.want)
		}
	}
}

// parseRecipe reads a recipe command as readRecipes does.
func parseRecipe(command string) *recipe {
	r := &recipe{Command: command}
	r.Parsed, r.RefsErr = jqcmd.Parse(command)
	return r
}
