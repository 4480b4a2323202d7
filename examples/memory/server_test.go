package main

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/examples/memory/memory"
	"github.com/zircote/lro-go/internal/testing/wire"
	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro"
)

// Stores shared by the tests: they are read-only.
var (
	bigStore   = mustStore(memory.Generate(memory.DefaultCorpusSize, memory.DefaultSeed))
	smallStore = mustStore(memory.Generate(6, memory.DefaultSeed)) // a page of it under the threshold at any detail
)

func mustStore(ms []memory.Memory) *memory.Store {
	s, err := memory.NewStore(ms)
	if err != nil {
		panic(err)
	}
	return s
}

// stdioBinary, when set (by TestToolsOverStdio), makes connect start this
// built program over stdio instead of serving in-process. The program
// generates the same corpus (same seed, same size) as the store passed in.
var stdioBinary string

// connect serves store in-process, or through the built program when
// stdioBinary is set, and returns a connected client session.
func connect(t *testing.T, store *memory.Store, opts *lro.Options) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	if stdioBinary != "" {
		args := []string{"-records", strconv.Itoa(store.Len())}
		if opts != nil && opts.OutputDir != "" {
			args = append(args, "-output-dir", opts.OutputDir)
		}
		if opts != nil && opts.ExtractTools {
			args = append(args, "-extract")
		}
		cmd := exec.Command(stdioBinary, args...)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := newServer(store, opts).Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

// testOpts writes offloaded files to a fresh folder.
func testOpts(t *testing.T) *lro.Options {
	return &lro.Options{OutputDir: t.TempDir()}
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): %v", tool, args, err)
	}
	if res.IsError {
		t.Fatalf("%s(%v) failed: %s", tool, args, text(res))
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// remarshal decodes the JSON form of v into out.
func remarshal(t *testing.T, v, out any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("decoding %s: %v", b, err)
	}
}

// generic returns v as decoded JSON (maps, slices, float64...), for cmp.Diff.
func generic(t *testing.T, v any) any {
	t.Helper()
	var out any
	remarshal(t, v, &out)
	return out
}

func isOffloaded(t *testing.T, res *mcp.CallToolResult) bool {
	t.Helper()
	var probe struct {
		Offloaded bool `json:"offloaded"`
	}
	remarshal(t, res.StructuredContent, &probe)
	return probe.Offloaded
}

// offload is what an offloaded call is checked against.
type offload struct {
	operation string
	detail    string
	query     *string
	records   []memory.Record
	scores    []float64 // nil: no score range
}

// checkOffloaded checks the descriptor of res and the file it points to, and
// returns the descriptor.
func checkOffloaded(t *testing.T, res *mcp.CallToolResult, dir string, want offload) offloadResponse {
	t.Helper()
	var desc offloadResponse
	remarshal(t, res.StructuredContent, &desc)
	if !desc.Offloaded {
		t.Fatalf("result not offloaded: %s", text(res))
	}
	var raw map[string]any
	remarshal(t, res.StructuredContent, &raw)
	for _, k := range []string{"memories", "next_offset", "context", "scores"} {
		if _, ok := raw[k]; ok {
			t.Errorf("offloaded result has inline field %q", k)
		}
	}
	if strings.Contains(text(res), "Relevant memories for") {
		t.Errorf("offloaded result still carries the formatted context")
	}
	if !filepath.IsAbs(desc.FilePath) || filepath.Dir(desc.FilePath) != dir {
		t.Errorf("file_path = %q, want an absolute path in %s", desc.FilePath, dir)
	}
	base := filepath.Base(desc.FilePath)
	if !strings.HasPrefix(base, "atlatl-"+want.operation+"-") || !strings.HasSuffix(base, ".jsonl") {
		t.Errorf("file name %q is not atlatl-%s-{ulid}.jsonl", base, want.operation)
	}
	if n := len(desc.JqRecipes); n != 10 {
		t.Errorf("%d jq recipes, want 10", n)
	}
	if desc.LineSchema == nil || desc.Guidance == "" || desc.Summary == nil {
		t.Fatalf("descriptor lacks line_schema, guidance or summary: %+v", desc)
	}
	s := desc.Summary
	if s.Count != len(want.records) || s.Operation != want.operation || s.Detail != want.detail {
		t.Errorf("summary = count %d, operation %q, detail %q; want %d, %q, %q", s.Count, s.Operation, s.Detail, len(want.records), want.operation, want.detail)
	}
	if want.scores == nil {
		if s.ScoreRange != nil {
			t.Errorf("score_range = %v, want none", *s.ScoreRange)
		}
	} else if s.ScoreRange == nil || s.ScoreRange[0] != slices.Min(want.scores) || s.ScoreRange[1] != slices.Max(want.scores) {
		t.Errorf("score_range = %v, want [%v %v]", s.ScoreRange, slices.Min(want.scores), slices.Max(want.scores))
	}

	h, recs, err := jsonl.ReadFile(desc.FilePath)
	if err != nil {
		t.Fatal(err)
	}
	if h.Operation != want.operation || h.Detail != want.detail || h.Count != len(want.records) || h.Count != len(recs) {
		t.Errorf("header = %+v; want operation %q, detail %q, count %d (file has %d records)", h, want.operation, want.detail, len(want.records), len(recs))
	}
	if diff := cmp.Diff(want.query, h.Query); diff != "" {
		t.Errorf("header query mismatch (-want +got):\n%s", diff)
	}
	got := make([]any, len(recs))
	for i, r := range recs {
		if err := json.Unmarshal(r, &got[i]); err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if strings.Contains(string(r), `"score"`) {
			t.Errorf("record %d carries a score: %s", i, r)
		}
	}
	if diff := cmp.Diff(generic(t, want.records), any(got)); diff != "" {
		t.Errorf("file records differ from the service's (-want +got):\n%s", diff)
	}
	return desc
}

func ptr[T any](v T) *T { return &v }

func hitRecords(hs []memory.SearchHit, d memory.Detail) ([]memory.Record, []float64) {
	rs := make([]memory.Record, len(hs))
	sc := make([]float64, len(hs))
	for i := range hs {
		rs[i] = memory.Project(&hs[i].Memory, d)
		sc[i] = hs[i].Score
	}
	return rs, sc
}

func TestQueryTools(t *testing.T) {
	recall := &memory.RecallService{Store: bigStore}
	search := &memory.SearchService{Store: bigStore}
	tests := []struct {
		name      string
		tool      string
		args      map[string]any
		detail    memory.Detail // expected
		offloaded bool
		service   func() ([]memory.SearchHit, error)
	}{
		{"recall default limit and detail", "recall_memories", map[string]any{"query": "redis"}, memory.Light, false,
			func() ([]memory.SearchHit, error) { return recall.Recall("redis", 10, "") }},
		{"recall inline medium", "recall_memories", map[string]any{"query": "redis", "limit": 3, "detail": "medium"}, memory.Medium, false,
			func() ([]memory.SearchHit, error) { return recall.Recall("redis", 3, "") }},
		{"recall inline full in a namespace", "recall_memories", map[string]any{"query": "redis", "limit": 3, "detail": "full", "namespace": "_episodic"}, memory.Full, false,
			func() ([]memory.SearchHit, error) { return recall.Recall("redis", 3, "_episodic") }},
		{"recall offloaded light", "recall_memories", map[string]any{"query": "semantic", "limit": 100}, memory.Light, true,
			func() ([]memory.SearchHit, error) { return recall.Recall("semantic", 100, "") }},
		{"recall offloaded medium", "recall_memories", map[string]any{"query": "semantic", "limit": 100, "detail": "medium"}, memory.Medium, true,
			func() ([]memory.SearchHit, error) { return recall.Recall("semantic", 100, "") }},
		{"recall offloaded full", "recall_memories", map[string]any{"query": "semantic", "limit": 10000, "detail": "full"}, memory.Full, true,
			func() ([]memory.SearchHit, error) { return recall.Recall("semantic", 10000, "") }},
		{"search inline light", "search_memories", map[string]any{"query": "outbox redis", "limit": 3}, memory.Light, false,
			func() ([]memory.SearchHit, error) { return search.Search("outbox redis", 3, "") }},
		{"search inline full", "search_memories", map[string]any{"query": "outbox redis", "limit": 3, "detail": "full"}, memory.Full, false,
			func() ([]memory.SearchHit, error) { return search.Search("outbox redis", 3, "") }},
		{"search offloaded light", "search_memories", map[string]any{"query": "outbox redis", "limit": 50}, memory.Light, true,
			func() ([]memory.SearchHit, error) { return search.Search("outbox redis", 50, "") }},
		{"search offloaded medium in a namespace", "search_memories", map[string]any{"query": "outbox redis", "limit": 500, "detail": "medium", "namespace": "_procedural"}, memory.Medium, true,
			func() ([]memory.SearchHit, error) { return search.Search("outbox redis", 500, "_procedural") }},
		{"search offloaded full", "search_memories", map[string]any{"query": "outbox redis", "limit": 500, "detail": "full"}, memory.Full, true,
			func() ([]memory.SearchHit, error) { return search.Search("outbox redis", 500, "") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := testOpts(t)
			cs := connect(t, bigStore, opts)
			hs, err := tt.service()
			if err != nil {
				t.Fatal(err)
			}
			records, scores := hitRecords(hs, tt.detail)
			res := call(t, cs, tt.tool, tt.args)
			if got := isOffloaded(t, res); got != tt.offloaded {
				t.Fatalf("offloaded = %v, want %v", got, tt.offloaded)
			}
			if tt.offloaded {
				op := strings.TrimSuffix(tt.tool, "_memories")
				checkOffloaded(t, res, opts.OutputDir, offload{op, string(tt.detail), ptr(tt.args["query"].(string)), records, scores})
				return
			}
			var out hitsOutput
			remarshal(t, res.StructuredContent, &out)
			if diff := cmp.Diff(generic(t, records), generic(t, out.Memories)); diff != "" {
				t.Errorf("inline memories mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(scores, out.Scores); diff != "" {
				t.Errorf("inline scores mismatch (-want +got):\n%s", diff)
			}
			if out.Count != len(records) || len(records) == 0 {
				t.Errorf("count = %d, want %d (> 0)", out.Count, len(records))
			}
		})
	}
}

func TestListMemories(t *testing.T) {
	tests := []struct {
		name      string
		store     *memory.Store
		args      map[string]any
		detail    memory.Detail
		offloaded bool
		namespace string
		offset    int
		limit     int
		wantNext  *int
	}{
		{"inline first page", smallStore, map[string]any{"limit": 4}, memory.Light, false, "", 0, 4, ptr(4)},
		{"inline last page has no next_offset", smallStore, map[string]any{"limit": 4, "offset": 4, "detail": "medium"}, memory.Medium, false, "", 4, 4, nil},
		// The client receives a typed tool's result twice (text and
		// structured content), and the threshold counts both.
		{"inline full, one memory", smallStore, map[string]any{"detail": "full", "limit": 1}, memory.Full, false, "", 0, 1, ptr(1)},
		{"inline namespace", smallStore, map[string]any{"namespace": "_episodic", "limit": 1}, memory.Light, false, "_episodic", 0, 1, ptr(1)},
		{"offloaded light: the whole listing, not a page", bigStore, map[string]any{"limit": 5}, memory.Light, true, "", 0, 0, nil},
		{"offloaded medium from an offset", bigStore, map[string]any{"limit": 5, "offset": 100, "detail": "medium"}, memory.Medium, true, "", 100, 0, nil},
		{"offloaded full in a namespace", bigStore, map[string]any{"detail": "full", "namespace": "_episodic"}, memory.Full, true, "_episodic", 0, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := testOpts(t)
			cs := connect(t, tt.store, opts)
			res := call(t, cs, "list_memories", tt.args)
			if got := isOffloaded(t, res); got != tt.offloaded {
				t.Fatalf("offloaded = %v, want %v", got, tt.offloaded)
			}
			if tt.offloaded {
				rest, _ := tt.store.List(memory.ListOptions{Namespace: tt.namespace, Offset: tt.offset})
				checkOffloaded(t, res, opts.OutputDir, offload{"list", string(tt.detail), nil, memory.ProjectAll(rest, tt.detail), nil})
				return
			}
			page, total := tt.store.List(memory.ListOptions{Namespace: tt.namespace, Offset: tt.offset, Limit: tt.limit})
			var out listOutput
			remarshal(t, res.StructuredContent, &out)
			if diff := cmp.Diff(generic(t, memory.ProjectAll(page, tt.detail)), generic(t, out.Memories)); diff != "" {
				t.Errorf("page mismatch (-want +got):\n%s", diff)
			}
			if out.Count != len(page) || out.Total != total {
				t.Errorf("count, total = %d, %d; want %d, %d", out.Count, out.Total, len(page), total)
			}
			if diff := cmp.Diff(tt.wantNext, out.NextOffset); diff != "" {
				t.Errorf("next_offset mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestInjectContext(t *testing.T) {
	p := &memory.PromptIntegration{Recall: &memory.RecallService{Store: bigStore}}
	tests := []struct {
		name      string
		args      map[string]any
		query     string
		budget    int
		detail    memory.Detail
		offloaded bool
	}{
		{"inline with the defaults", map[string]any{"query": "runbook envoy"}, "runbook envoy", 2000, memory.Medium, false},
		{"inline light", map[string]any{"query": "runbook envoy", "detail": "light"}, "runbook envoy", 2000, memory.Light, false},
		{"inline full, tight budget", map[string]any{"query": "runbook envoy", "detail": "full", "token_budget": 100}, "runbook envoy", 100, memory.Full, false},
		{"offloaded: the pre-budget set exceeds the threshold though the context fits", map[string]any{"query": "semantic", "token_budget": 500}, "semantic", 500, memory.Medium, true},
		{"offloaded light", map[string]any{"query": "semantic", "detail": "light"}, "semantic", 2000, memory.Light, true},
		{"offloaded full", map[string]any{"query": "outbox", "detail": "full"}, "outbox", 2000, memory.Full, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := testOpts(t)
			cs := connect(t, bigStore, opts)
			hs, inj, err := p.Inject(tt.query, tt.budget, tt.detail)
			if err != nil {
				t.Fatal(err)
			}
			res := call(t, cs, "inject_context", tt.args)
			if got := isOffloaded(t, res); got != tt.offloaded {
				t.Fatalf("offloaded = %v, want %v", got, tt.offloaded)
			}
			if tt.offloaded {
				records, scores := hitRecords(hs, tt.detail)
				checkOffloaded(t, res, opts.OutputDir, offload{"inject", string(tt.detail), ptr(tt.query), records, scores})
				return
			}
			var out injectOutput
			remarshal(t, res.StructuredContent, &out)
			want := injectOutput{Context: inj.Text, Included: inj.Included, Matched: len(hs), EstimatedTokens: inj.Tokens}
			if diff := cmp.Diff(want, out); diff != "" {
				t.Errorf("inline result mismatch (-want +got):\n%s", diff)
			}
			if text(res) != inj.Text {
				t.Errorf("text content = %q, want the context string", text(res))
			}
			if inj.Included == 0 {
				t.Error("the context string holds no memory")
			}
		})
	}
}

func TestBadArguments(t *testing.T) {
	cs := connect(t, smallStore, testOpts(t))
	tests := []struct {
		name    string
		tool    string
		args    map[string]any
		wantArg string
	}{
		{"recall without query", "recall_memories", map[string]any{}, "query"},
		{"recall empty query", "recall_memories", map[string]any{"query": "  "}, "query"},
		{"recall unknown detail", "recall_memories", map[string]any{"query": "x", "detail": "huge"}, "detail"},
		{"recall zero limit", "recall_memories", map[string]any{"query": "x", "limit": 0}, "limit"},
		{"recall negative limit", "recall_memories", map[string]any{"query": "x", "limit": -1}, "limit"},
		{"recall limit too large", "recall_memories", map[string]any{"query": "x", "limit": 10001}, "limit"},
		{"search empty query", "search_memories", map[string]any{"query": ""}, "query"},
		{"search unknown detail", "search_memories", map[string]any{"query": "x", "detail": "none"}, "detail"},
		{"search limit too large", "search_memories", map[string]any{"query": "x", "limit": 20000}, "limit"},
		{"list negative offset", "list_memories", map[string]any{"offset": -1}, "offset"},
		{"list zero limit", "list_memories", map[string]any{"limit": 0}, "limit"},
		{"list unknown detail", "list_memories", map[string]any{"detail": "all"}, "detail"},
		{"inject empty query", "inject_context", map[string]any{"query": ""}, "query"},
		{"inject zero budget", "inject_context", map[string]any{"query": "x", "token_budget": 0}, "token_budget"},
		{"inject unknown detail", "inject_context", map[string]any{"query": "x", "detail": "max"}, "detail"},
		// Each word is looked for in every memory: a query of 100,000 words
		// held a core for 13 s on 500 memories, and could not be cancelled.
		{"recall too many words", "recall_memories", map[string]any{"query": words(maxQueryTerms + 1)}, "query"},
		{"search too many words", "search_memories", map[string]any{"query": words(maxQueryTerms + 1)}, "query"},
		{"inject too many words", "inject_context", map[string]any{"query": words(maxQueryTerms + 1)}, "query"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tt.tool, Arguments: tt.args})
			if err != nil {
				t.Fatalf("protocol error %v, want a tool error", err)
			}
			if !res.IsError {
				t.Fatalf("no error; result %s", text(res))
			}
			if msg := text(res); !strings.Contains(msg, tt.wantArg) {
				t.Errorf("error %q does not name %q", msg, tt.wantArg)
			}
		})
	}
}

// words returns a query of n distinct words.
func words(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = "w" + strconv.Itoa(i)
	}
	return strings.Join(w, " ")
}

// Arguments that are JSON null mean the defaults; they used to crash the
// server (see lro.GuardNullArguments).
func TestNullArguments(t *testing.T) {
	cs := connect(t, smallStore, testOpts(t))
	res := call(t, cs, "list_memories", nil) // a nil map is sent as "arguments": null
	var out listOutput
	remarshal(t, res.StructuredContent, &out)
	if out.Count != 6 {
		t.Errorf("count = %d, want all 6", out.Count)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "recall_memories", Arguments: map[string]any(nil)})
	if err != nil || !res.IsError || !strings.Contains(text(res), "query") {
		t.Errorf("recall with null arguments = %v, %v; want a tool error naming query", res, err)
	}
}

func TestDisabled(t *testing.T) {
	opts := testOpts(t)
	opts.Disabled = true
	cs := connect(t, bigStore, opts)
	res := call(t, cs, "list_memories", map[string]any{"limit": 200, "detail": "full"})
	var out listOutput
	remarshal(t, res.StructuredContent, &out)
	if out.Count != 200 || out.NextOffset == nil || *out.NextOffset != 200 {
		t.Errorf("count %d, next_offset %v; want 200 inline with next_offset 200", out.Count, out.NextOffset)
	}
	if matches, _ := filepath.Glob(filepath.Join(opts.OutputDir, "*")); len(matches) > 0 {
		t.Errorf("files written while disabled: %v", matches)
	}
}

func TestThresholdOption(t *testing.T) {
	opts := testOpts(t)
	opts.ThresholdTokens = 100
	cs := connect(t, bigStore, opts)
	// Three light records are ~220 tokens: inline under the default, offloaded at 100.
	res := call(t, cs, "recall_memories", map[string]any{"query": "redis", "limit": 3})
	if !isOffloaded(t, res) {
		t.Errorf("not offloaded at threshold 100: %s", text(res))
	}
}

func TestListTools(t *testing.T) {
	cs := connect(t, smallStore, nil)
	if ins := cs.InitializeResult().Instructions; !strings.Contains(ins, "1600 tokens") || !strings.Contains(ins, "tail -n +2") {
		t.Errorf("instructions do not explain offloading: %q", ins)
	}
	defaults := map[string]map[string]any{
		"recall_memories": {"limit": 10.0, "detail": "light"},
		"search_memories": {"limit": 10.0, "detail": "light"},
		"list_memories":   {"limit": 50.0, "offset": 0.0, "detail": "light"},
		"inject_context":  {"token_budget": 2000.0, "detail": "medium"},
	}
	seen := 0
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		want, ok := defaults[tool.Name]
		if !ok {
			t.Errorf("unexpected tool %q", tool.Name)
			continue
		}
		seen++
		var in struct {
			Properties map[string]struct {
				Default any `json:"default"`
			} `json:"properties"`
		}
		remarshal(t, tool.InputSchema, &in)
		got := map[string]any{}
		for name, p := range in.Properties {
			if p.Default != nil {
				got[name] = p.Default
			}
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s defaults mismatch (-want +got):\n%s", tool.Name, diff)
		}
		if tool.OutputSchema == nil {
			t.Errorf("%s has no output schema", tool.Name)
		} else if b, _ := json.Marshal(tool.OutputSchema); !strings.Contains(string(b), "file_path") {
			t.Errorf("%s output schema does not accept a descriptor: %s", tool.Name, b)
		}
	}
	if seen != len(defaults) {
		t.Errorf("saw %d tools, want %d", seen, len(defaults))
	}
}

func TestInstructionsDisabled(t *testing.T) {
	got := instructions(&lro.Options{Disabled: true})
	if !strings.Contains(got, "disabled") || strings.Contains(got, "tail -n +2") {
		t.Errorf("instructions when disabled = %q", got)
	}
	if got := instructions(&lro.Options{ThresholdTokens: 900}); !strings.Contains(got, "900 tokens") {
		t.Errorf("instructions do not name the threshold: %q", got)
	}
}

// An offloaded full-detail file loads back (-load) into the same memories.
func TestLoadOffloadedFile(t *testing.T) {
	opts := testOpts(t)
	cs := connect(t, bigStore, opts)
	res := call(t, cs, "list_memories", map[string]any{"detail": "full"})
	var desc offloadResponse
	remarshal(t, res.StructuredContent, &desc)
	got, err := memory.LoadFile(desc.FilePath)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := bigStore.List(memory.ListOptions{})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("loaded memories differ from the store's (-want +got):\n%s", diff)
	}
}

// TestExtractTools serves the extraction tools (-extract): the descriptor
// points to lro_extract, and lro_extract's recipe 6 counts the namespaces of
// the offloaded result set as the service does.
func TestExtractTools(t *testing.T) {
	dir := t.TempDir()
	cs := connect(t, bigStore, &lro.Options{OutputDir: dir, ExtractTools: true})
	hs, err := (&memory.RecallService{Store: bigStore}).Recall("semantic", 300, "")
	if err != nil {
		t.Fatal(err)
	}
	records, _ := hitRecords(hs, memory.Full)
	res := call(t, cs, "recall_memories", map[string]any{"query": "semantic", "limit": 300, "detail": "full"})
	var d offloadResponse
	if err := json.Unmarshal([]byte(text(res)), &d); err != nil || !d.Offloaded {
		t.Fatalf("not offloaded: %s", text(res))
	}
	if !strings.Contains(d.Guidance, "lro_extract(file_path=") {
		t.Errorf("guidance does not point to lro_extract:\n%s", d.Guidance)
	}
	out := call(t, cs, "lro_extract", map[string]any{"file_path": d.FilePath, "recipe": 6})
	got := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(text(out)), "\n") {
		var c struct {
			Namespace string `json:"namespace"`
			Count     int    `json:"count"`
		}
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("recipe 6 line %q: %v", line, err)
		}
		got[c.Namespace] = c.Count
	}
	if diff := cmp.Diff(recordCounts(records, byNamespace), got); diff != "" {
		t.Errorf("lro_extract recipe 6 (-want +got):\n%s", diff)
	}
}

// offloadResponse and jqRecipe are what these tests read of a descriptor.
type (
	offloadResponse = wire.Descriptor
	jqRecipe        = wire.JqRecipe
)
