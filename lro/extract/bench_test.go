package extract_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/zircote/lro-go/lro"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	sh "github.com/zircote/lro-go/internal/shell"
	"github.com/zircote/lro-go/internal/testing/sidebyside"
	"github.com/zircote/lro-go/lro/extract"
	core "github.com/zircote/lro-go/lro/internal/offload"
	"github.com/zircote/lro-go/recipes"
)

// benchMemories returns n full-detail memory records of about 155 tokens
// (~620 characters), the paper's average; the same shape as lro's
// benchmarks.
func benchMemories(n int) []any {
	ns := []string{"_semantic/decisions", "_semantic/architecture", "_episodic/sessions", "_procedural/runbooks"}
	out := make([]any, n)
	for i := range out {
		out[i] = map[string]any{
			"id":          fmt.Sprintf("0b7c%04x-1f2e-4d3c-8b9a-%012x", i%65536, i),
			"memory_type": []string{"semantic", "episodic", "procedural"}[i%3],
			"title":       fmt.Sprintf("Decision %d: cache invalidation strategy for the read path", i),
			"content":     "We decided to invalidate cache entries on write rather than on a timer, because stale reads were observed in the session logs after deploys; the change keeps p99 latency flat and removes a class of consistency bugs.",
			"namespace":   ns[i%len(ns)],
			"tags":        []string{"cache", "architecture", fmt.Sprintf("team-%d", i%5)},
			"status":      "active",
			"created":     "2026-10-01T12:00:00Z",
			"modified":    "2026-11-01T08:30:00Z",
			"summary":     "Invalidate on write; p99 stays flat.",
			"provenance":  map[string]any{"confidence": 0.5 + float64(i%50)/100, "trust_level": "verified", "source_type": "agent", "agent": "claude"},
		}
	}
	return out
}

// benchCase is one lro_extract call of the benchmarks: a recipe, with
// params, or a query.
type benchCase struct {
	name   string
	recipe int
	params map[string]any
	query  string
}

// benchRecipes are the calls of the benchmarks: two selective filters, a
// slurping count and a projection large enough to be offloaded in turn
// (the first four), then a filter that selects half of the records (whose
// plan skips only the other half), and two calls that run on whole records:
// a sort of all of them and a query of the caller's. See plan.go for the
// plans.
var benchRecipes = []benchCase{
	{name: "2-filter-namespace-selective", recipe: 2, params: map[string]any{"namespace": "_procedural/runbooks/none"}},
	{name: "3-search-titles", recipe: 3, params: map[string]any{"keyword": "Decision 42:"}},
	{name: "6-count-by-namespace", recipe: 6},
	{name: "1-titles-offloaded-in-turn", recipe: 1},
	{name: "2-filter-namespace-half", recipe: 2, params: map[string]any{"namespace": "_semantic"}},
	{name: "8-sort-by-created", recipe: 8},
	{name: "query-select-project", query: `select(.provenance.confidence >= 0.9) | {id, title, tags}`},
}

// args returns the arguments of the call on the file at path.
func (tc benchCase) args(path string) map[string]any {
	if tc.query != "" {
		return map[string]any{"file_path": path, "query": tc.query}
	}
	args := map[string]any{"file_path": path, "recipe": tc.recipe}
	if tc.params != nil {
		args["params"] = tc.params
	}
	return args
}

// command returns the shell command that runs the same filter with jq, as
// the descriptor gives it for a recipe.
func (tc benchCase) command(path string, rs []recipes.Recipe) string {
	if tc.query != "" {
		return "tail -n +2 " + sh.Quote(path) + " | jq -c " + sh.Quote(tc.query)
	}
	args := rs[tc.recipe-1].Args()
	for i := 0; i+2 < len(args); i++ {
		if v, ok := tc.params[args[i+1]]; ok && args[i] == "--arg" {
			args[i+2] = v.(string)
		}
	}
	for i, a := range args {
		if a != "-s" && a != "-r" && a != "-c" { // a flag is a plain word
			args[i] = sh.Word(a)
		}
	}
	return "tail -n +2 " + sh.Word(path) + " | jq " + strings.Join(args, " ")
}

// benchFile writes the 10,000-record full-detail file of the benchmarks
// and returns its path and its recipes.
func benchFile(b *testing.B, dir string) (string, []recipes.Recipe) {
	b.Helper()
	records := benchMemories(10_000)
	path := offload(b, dir, "full", records)
	sample := make([]json.RawMessage, core.SampleSize)
	for i := range sample {
		sample[i], _ = json.Marshal(records[i])
	}
	rs, _ := recipes.Select(recipes.Full, sample)
	return path, rs
}

// BenchmarkRecipeVsJQ runs recipes through lro_extract, called over an
// in-memory MCP transport, side by side with the shell command of the same
// recipe (tail | jq, as the descriptor gives it) on the same 10,000-record
// full-detail file. Target: lro_extract/jq <= 0.5.
func BenchmarkRecipeVsJQ(b *testing.B) {
	if _, err := exec.LookPath("jq"); err != nil {
		b.Skip("jq not found")
	}
	dir := b.TempDir()
	path, rs := benchFile(b, dir)
	cs := session(b, &extract.Options{LRO: &lro.Options{OutputDir: dir}})
	for _, tc := range benchRecipes {
		b.Run(tc.name, func(b *testing.B) {
			args, command := tc.args(path), tc.command(path, rs)
			viaTool := func() {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "lro_extract", Arguments: args})
				if err != nil || res.IsError {
					b.Fatalf("lro_extract failed: %v %v", err, res)
				}
			}
			viaJQ := func() {
				if _, err := exec.Command("sh", "-c", command).Output(); err != nil {
					b.Fatalf("jq failed: %v", err)
				}
			}
			sidebyside.Run(b, sidebyside.Arm{Name: "lro_extract", Run: viaTool}, sidebyside.Arm{Name: "jq", Run: viaJQ})
			cleanExtracts(b, dir, path)
		})
	}
}

// BenchmarkRecipe runs the calls of BenchmarkRecipeVsJQ through
// lro_extract alone, for profiling (-cpuprofile).
func BenchmarkRecipe(b *testing.B) {
	dir := b.TempDir()
	path, _ := benchFile(b, dir)
	cs := session(b, &extract.Options{LRO: &lro.Options{OutputDir: dir}})
	for _, tc := range benchRecipes {
		b.Run(tc.name, func(b *testing.B) {
			args := tc.args(path)
			b.ReportAllocs()
			for b.Loop() {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: extract.ToolExtract, Arguments: args})
				if err != nil || res.IsError {
					b.Fatalf("lro_extract failed: %v %v", err, res)
				}
			}
			cleanExtracts(b, dir, path)
		})
	}
}

// cleanExtracts removes the files the benchmark's extractions offloaded.
func cleanExtracts(b *testing.B, dir, keep string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if p := dir + "/" + e.Name(); p != keep {
			os.Remove(p)
		}
	}
}

var _ = runtime.GC
