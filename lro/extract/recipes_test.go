package extract_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	sh "github.com/zircote/lro-go/internal/shell"
	"github.com/zircote/lro-go/internal/spec"
	"github.com/zircote/lro-go/internal/testing/wire"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/extract"
	"github.com/zircote/lro-go/lro/internal/describe"
	core "github.com/zircote/lro-go/lro/internal/offload"
	"github.com/zircote/lro-go/recipes"
)

// needJQ skips the test when the jq binary is missing, except under CI
// (CI set), where jq is installed and a missing binary is a failure.
func needJQ(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("jq"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("jq is required under CI: %v", err)
		}
		t.Skipf("jq not found: %v", err)
	}
}

// offloadWithLRO has the offloading decorator write result (the text of a
// tool result) to dir and returns its descriptor: the file and recipes an
// agent gets.
func offloadWithLRO(t *testing.T, dir, detail, result string) offloadResponse {
	t.Helper()
	h := lro.Wrap(func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: result}}}, nil
	}, &lro.Options{OutputDir: dir, ThresholdTokens: 100})
	args, _ := json.Marshal(map[string]any{"detail": detail})
	res, err := h(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "recall_memories", Arguments: args}})
	if err != nil {
		t.Fatal(err)
	}
	var d offloadResponse
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &d); err != nil || !d.Offloaded {
		t.Fatalf("the result was not offloaded: %v", err)
	}
	if len(d.JqRecipes) != spec.RecipeCount {
		t.Fatalf("%d recipes", len(d.JqRecipes))
	}
	return d
}

// shell runs a recipe's shell command with the real jq.
func shell(t *testing.T, command string) string {
	t.Helper()
	cmd := exec.Command("sh", "-c", command)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Fatalf("%s\nfailed: %v\n%s", command, err, stderr.String())
	}
	return stdout.String()
}

// values decodes a stream of JSON values (jq's output, pretty or compact).
func values(t *testing.T, s string) []any {
	t.Helper()
	out := []any{}
	d := json.NewDecoder(strings.NewReader(s))
	for {
		var v any
		err := d.Decode(&v)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("not a JSON stream: %v\n%s", err, s)
		}
		out = append(out, v)
	}
}

// sameOutput compares the output of lro_extract with jq's: line by line for
// a raw recipe (-r), value by value otherwise (jq keeps keys in input order
// and gojq sorts them; numbers may be written differently).
// rawFlag matches jq's -r option in a command, alone or among other
// one-letter flags (-sr, -rc).
var rawFlag = regexp.MustCompile(` -[a-z]*r[a-z]* `)

func sameOutput(t *testing.T, what, command, want, got string) {
	t.Helper()
	raw := rawFlag.MatchString(command)
	if raw {
		if diff := cmp.Diff(lines(want), lines(got)); diff != "" {
			t.Errorf("%s: lro_extract differs from jq (-jq +lro_extract):\n%s\ncommand: %s", what, diff, command)
		}
		return
	}
	if diff := cmp.Diff(values(t, want), values(t, got), cmpopts.EquateApprox(1e-12, 1e-12)); diff != "" {
		t.Errorf("%s: lro_extract differs from jq (-jq +lro_extract):\n%s\ncommand: %s", what, diff, command)
	}
	if got != "" && !raw {
		for _, l := range lines(got) {
			if !json.Valid([]byte(l)) {
				t.Errorf("%s: output line is not one JSON value: %q", what, l)
			}
		}
	}
}

// fileLines returns the record lines of an offloaded file.
func fileLines(t *testing.T, path string) []json.RawMessage {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []json.RawMessage
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<26)
	for i := 0; sc.Scan(); i++ {
		if i > 0 {
			out = append(out, json.RawMessage(bytes.Clone(sc.Bytes())))
		}
	}
	return out
}

func resultText(t *testing.T, records any) string {
	t.Helper()
	b, err := json.Marshal(records)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// numbers returns n numbers, integers and fractions, some repeated.
func numbers(n int) []any {
	out := make([]any, n)
	for i := range out {
		if i%3 == 0 {
			out[i] = float64(i%17) + 0.25
		} else {
			out[i] = (i * 37) % 101
		}
	}
	return out
}

type recipeCase struct {
	name, detail, result string
}

func recipeCases(t *testing.T) []recipeCase {
	var text strings.Builder
	for i := range 80 {
		text.WriteString([]string{"ERROR disk full on node-", "INFO retrying upload ", "WARN slow response from ", "INFO upload done "}[i%4])
		text.WriteString(strings.Repeat("x", i%5) + " line\n")
	}
	return []recipeCase{
		{"memory light", "light", resultText(t, memories(60, "light"))},
		{"memory medium", "medium", resultText(t, memories(60, "medium"))},
		{"memory full", "full", resultText(t, memories(60, "full"))},
		{"generic objects", "full", resultText(t, generic(60))},
		{"generic text lines", "full", text.String()},
		{"generic numbers", "full", resultText(t, numbers(200))},
	}
}

// TestRecipesMatchJQ runs every recipe of real descriptors (memory records
// at each detail level, and the generic libraries) through lro_extract and
// through the descriptor's own shell command with the jq binary, and wants
// the same output.
func TestRecipesMatchJQ(t *testing.T) {
	needJQ(t)
	for _, tc := range recipeCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			d := offloadWithLRO(t, dir, tc.detail, tc.result)
			cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir, ThresholdTokens: 1 << 30}})
			nonEmpty := 0
			for i, jr := range d.JqRecipes {
				texts, isErr := call(t, cs, extract.ToolExtract, map[string]any{"file_path": d.FilePath, "recipe": i + 1})
				if isErr {
					t.Fatalf("recipe %d: %v", i+1, texts)
				}
				got := strings.Join(texts, "")
				if strings.HasPrefix(got, "No results") {
					got = ""
				}
				want := shell(t, jr.Command)
				if want != "" {
					nonEmpty++
				}
				sameOutput(t, jr.Description, jr.Command, want, got)
			}
			// Recipes default to values found in the file, so all of them
			// select something: the comparison is never of two empty outputs.
			if nonEmpty < spec.RecipeCount {
				t.Errorf("only %d of %d recipes produced output", nonEmpty, spec.RecipeCount)
			}
		})
	}
}

// TestRecipeParamsMatchJQ runs the parameterized recipes with other values
// than their defaults: lro_extract's params against jq's --arg.
func TestRecipeParamsMatchJQ(t *testing.T) {
	needJQ(t)
	for _, tc := range recipeCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			d := offloadWithLRO(t, dir, tc.detail, tc.result)
			cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir, ThresholdTokens: 1 << 30}})
			lines := fileLines(t, d.FilePath)
			all, _ := recipes.Select(recipes.Detail(tc.detail), lines[:core.SampleSize])
			rs := describe.Recipes(all)
			// Other plausible values: the defaults a later part of the file
			// would give.
			others, _ := recipes.Select(recipes.Detail(tc.detail), lines[len(lines)-core.SampleSize:])
			other := describe.Recipes(others)
			tested := 0
			for i, r := range rs {
				if r.Command(d.FilePath) != d.JqRecipes[i].Command {
					t.Fatalf("recipe %d rebuilt from the file differs from the descriptor's:\n%s\n%s", i+1, r.Command(d.FilePath), d.JqRecipes[i].Command)
				}
				if len(r.Params) == 0 {
					continue
				}
				params := map[string]any{}
				for j := range r.Params {
					v := r.Params[j].Value + "x"
					if j < len(other[i].Params) && other[i].Params[j].Name == r.Params[j].Name && other[i].Params[j].Value != r.Params[j].Value {
						v = other[i].Params[j].Value
					}
					r.Params[j].Value = v
					params[r.Params[j].Name] = v
				}
				texts, isErr := call(t, cs, extract.ToolExtract, map[string]any{"file_path": d.FilePath, "recipe": i + 1, "params": params})
				if isErr {
					t.Fatalf("recipe %d with %v: %v", i+1, params, texts)
				}
				got := strings.Join(texts, "")
				if strings.HasPrefix(got, "No results") {
					got = ""
				}
				command := commandWith(r, d.FilePath)
				sameOutput(t, r.Description, command, shell(t, command), got)
				tested++
			}
			if tested == 0 {
				t.Error("no parameterized recipe")
			}
		})
	}
}

// offloadResponse is what these tests read of a descriptor.
type offloadResponse = wire.Descriptor

// commandWith renders the shell command of r for file, as Command does but
// with the values of r.Params.
func commandWith(r describe.Recipe, file string) string {
	args := r.Args()
	for i := 0; i+2 < len(args); i++ {
		if args[i] != "--arg" {
			continue
		}
		for _, p := range r.Params {
			if p.Name == args[i+1] {
				args[i+2] = p.Value
			}
		}
	}
	for i, a := range args {
		if a != "-s" && a != "-r" && a != "-c" { // a flag is a plain word
			args[i] = sh.Word(a)
		}
	}
	return "tail -n +2 " + sh.Word(file) + " | jq " + strings.Join(args, " ")
}
