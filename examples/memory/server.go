package main

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/examples/memory/memory"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/extract"
	"github.com/zircote/lro-go/recipes"
)

// Limits of the tool arguments.
const (
	maxLimit           = 10000   // largest limit of recall, search and list
	defaultQueryLimit  = 10      // recall_memories and search_memories
	defaultListLimit   = 50      // list_memories
	defaultTokenBudget = 2000    // inject_context
	maxTokenBudget     = 1000000 // inject_context
	maxQueryTerms      = 1000    // distinct words of a query
)

// version is the server's advertised version.
const version = "v0.1.0"

// queryArgs are the arguments of recall_memories and search_memories.
type queryArgs struct {
	Query     string `json:"query" jsonschema:"the words to look for"`
	Limit     *int   `json:"limit,omitempty" jsonschema:"largest number of memories returned, 1 to 10000"`
	Detail    string `json:"detail,omitempty" jsonschema:"detail level of each memory: light, medium or full"`
	Namespace string `json:"namespace,omitempty" jsonschema:"keep only memories whose namespace starts with this prefix, for example _semantic"`
}

// listArgs are the arguments of list_memories.
type listArgs struct {
	Limit     *int   `json:"limit,omitempty" jsonschema:"largest number of memories in an inline page, 1 to 10000"`
	Offset    *int   `json:"offset,omitempty" jsonschema:"number of memories to skip, 0 or more, for example a previous next_offset"`
	Detail    string `json:"detail,omitempty" jsonschema:"detail level of each memory: light, medium or full"`
	Namespace string `json:"namespace,omitempty" jsonschema:"keep only memories whose namespace starts with this prefix, for example _semantic"`
}

// injectArgs are the arguments of inject_context.
type injectArgs struct {
	Query       string `json:"query" jsonschema:"the words every recalled memory must contain"`
	TokenBudget *int   `json:"token_budget,omitempty" jsonschema:"largest estimated size of the context string, in tokens, 1 to 1000000"`
	Detail      string `json:"detail,omitempty" jsonschema:"detail level of the memories: light, medium or full"`
}

// hitsOutput is the inline result of recall_memories and search_memories.
type hitsOutput struct {
	Memories []memory.Record `json:"memories" jsonschema:"the matching memories, best first, at the requested detail level"`
	Scores   []float64       `json:"scores" jsonschema:"relevance score of each memory, in the same order, between 0 and 1"`
	Count    int             `json:"count" jsonschema:"number of memories returned"`
}

// listOutput is the inline result of list_memories.
type listOutput struct {
	Memories   []memory.Record `json:"memories" jsonschema:"one page of memories, newest first, at the requested detail level"`
	Count      int             `json:"count" jsonschema:"number of memories in this page"`
	Total      int             `json:"total" jsonschema:"number of memories the namespace filter keeps"`
	NextOffset *int            `json:"next_offset,omitempty" jsonschema:"offset of the next page; absent on the last page"`
}

// injectOutput is the inline result of inject_context.
type injectOutput struct {
	Context         string `json:"context" jsonschema:"the formatted context string"`
	Included        int    `json:"included" jsonschema:"number of memories in the context string"`
	Matched         int    `json:"matched" jsonschema:"number of memories recalled before the token budget was applied"`
	EstimatedTokens int    `json:"estimated_tokens" jsonschema:"estimated tokens of the context string"`
}

// tools holds the services the tool handlers call.
type tools struct {
	store  *memory.Store
	recall *memory.RecallService
	search *memory.SearchService
	prompt *memory.PromptIntegration
}

// newServer returns an MCP server exposing store through recall_memories,
// search_memories, list_memories and inject_context, each offloading large
// result sets as opts says (nil means the specification's defaults).
// extractLimits are the limits of the extraction tools, from the flags
// -extract-timeout and -extract-max-memory; zero means the defaults.
var extractLimits struct {
	Timeout        time.Duration
	MaxMemoryBytes int64
}

// offloadingTools are the tools newServer registers with lro.AddTool, which
// the tables [prompt.offload.tools.NAME] may name.
var offloadingTools = []string{"recall_memories", "search_memories", "list_memories", "inject_context"}

func newServer(store *memory.Store, opts *lro.Options) *mcp.Server {
	base := lro.Options{}
	if opts != nil {
		base = *opts
	}
	recallSvc := &memory.RecallService{Store: store}
	t := &tools{
		store:  store,
		recall: recallSvc,
		search: &memory.SearchService{Store: store},
		prompt: &memory.PromptIntegration{Recall: recallSvc},
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "lro-memory", Title: "LRO example memory server", Version: version},
		&mcp.ServerOptions{Instructions: instructions(&base)})
	s.AddReceivingMiddleware(lro.GuardNullArguments)
	if base.ExtractTools && !base.Disabled {
		// lro_extract, lro_read and lro_search over the offloaded files, for
		// clients without a shell. The options were validated by setup.
		eo := &extract.Options{LRO: &base, Timeout: extractLimits.Timeout, MaxMemoryBytes: extractLimits.MaxMemoryBytes}
		if err := extract.AddTools(s, eo); err != nil {
			panic(err)
		}
	}

	toolOpts := func(operation string, detail recipes.Detail, field string) *lro.Options {
		o := base
		o.Operation = operation
		o.DefaultDetail = detail
		o.RecordsField = field
		o.RecordType = reflect.TypeFor[memory.Record]()
		return &o
	}
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(bool)}

	lro.AddTool(s, &mcp.Tool{
		Name:        "recall_memories",
		Title:       "Recall memories",
		Description: "Recall the memories in which every word of the query occurs (in the title, content, tags or namespace), best first, with a relevance score each. " + offloadNote,
		InputSchema: queryInputSchema(),
		Annotations: readOnly,
	}, t.recallMemories, toolOpts("recall", recipes.Light, "memories"))

	lro.AddTool(s, &mcp.Tool{
		Name:        "search_memories",
		Title:       "Search memories",
		Description: "Search for memories in which any word of the query occurs (in the title, content, summary, tags, entity names or namespace), best first, with a relevance score each. Broader than recall_memories. " + offloadNote,
		InputSchema: queryInputSchema(),
		Annotations: readOnly,
	}, t.searchMemories, toolOpts("search", recipes.Light, "memories"))

	lro.AddTool(s, &mcp.Tool{
		Name:  "list_memories",
		Title: "List memories",
		Description: "List memories, newest first, optionally under a namespace prefix. While the whole listing is small it is returned inline, " +
			"one page of limit memories at a time, with next_offset while more remain. A large listing is offloaded whole to a JSONL file " +
			"(no next_offset then: the file holds every memory from offset on).",
		InputSchema: listInputSchema(),
		Annotations: readOnly,
	}, t.listMemories, toolOpts("list", recipes.Light, "memories"))

	lro.AddTool(s, &mcp.Tool{
		Name:  "inject_context",
		Title: "Inject context",
		Description: "Recall the memories matching the query and format them, best first, into a context string of at most token_budget tokens. " +
			"When the recalled set before budgeting is large, it is offloaded whole to a JSONL file and the descriptor replaces the context string.",
		InputSchema: injectInputSchema(),
		Annotations: readOnly,
	}, t.injectContext, toolOpts("inject", recipes.Medium, ""))
	return s
}

const offloadNote = "A large result set is offloaded to a JSONL file and replaced by a descriptor (offloaded: true, file_path, jq_recipes)."

// instructions explains the server, and offloading, to the model.
func instructions(opts *lro.Options) string {
	var b strings.Builder
	b.WriteString("This server stores memories (MIF objects: semantic, episodic and procedural) and offers recall_memories, search_memories, list_memories and inject_context. ")
	b.WriteString("Every memory tool takes detail: light (id, title, namespace, memory_type, tags, status, dates; content is empty), medium (adds content, summary and confidence) or full (every field; confidence is under provenance).\n\n")
	if opts.Disabled {
		b.WriteString("Large Result Offloading is disabled on this server: results are always inline. Page through list_memories with limit and offset.")
		return b.String()
	}
	threshold := opts.ThresholdTokens
	if threshold == 0 {
		threshold = 1600 // the default of lro.Options.ThresholdTokens
	}
	fmt.Fprintf(&b, "Large Result Offloading: when a result set is estimated above %d tokens, the server writes the complete result set to a JSONL file and returns a compact descriptor instead: ", threshold)
	b.WriteString(`{"offloaded": true, "summary": {...}, "file_path": "...", "line_schema": {...}, "jq_recipes": [10 commands], "guidance": "..."}. `)
	b.WriteString("Line 1 of the file is a header; each later line is one memory at the requested detail level. ")
	b.WriteString("Extract what you need with a shell, for example: tail -n +2 FILE | jq -r '[.title, .namespace] | @tsv'. ")
	if opts.ExtractTools {
		b.WriteString("Without a shell, use the tools lro_extract (a recipe number or a jq filter over the file), lro_read (lines) and lro_search (regular expression) with the descriptor's file_path. ")
	}
	b.WriteString("An offloaded result has no next_offset: the file already holds every record, so count and aggregate over the file rather than paging. ")
	b.WriteString("Files are temporary and are deleted after their time to live.")
	return b.String()
}

// Input schemas: inferred from the argument types, with the defaults (and
// the detail levels as an enum) added so that clients see them. Numeric
// bounds are in the descriptions and checked by the handlers, whose errors
// read better than the schema validator's.

func queryInputSchema() *jsonschema.Schema {
	s := mustSchema[queryArgs]()
	setDefault(s, "limit", defaultQueryLimit)
	setDetail(s, memory.Light)
	return s
}

func listInputSchema() *jsonschema.Schema {
	s := mustSchema[listArgs]()
	setDefault(s, "limit", defaultListLimit)
	setDefault(s, "offset", 0)
	setDetail(s, memory.Light)
	return s
}

func injectInputSchema() *jsonschema.Schema {
	s := mustSchema[injectArgs]()
	setDefault(s, "token_budget", defaultTokenBudget)
	setDetail(s, memory.Medium)
	return s
}

func mustSchema[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(err)
	}
	return s
}

func setDefault(s *jsonschema.Schema, name string, def any) {
	b, err := json.Marshal(def)
	if err != nil {
		panic(err)
	}
	s.Properties[name].Default = b
}

func setDetail(s *jsonschema.Schema, def memory.Detail) {
	setDefault(s, "detail", def)
	p := s.Properties["detail"]
	p.Enum = []any{string(memory.Light), string(memory.Medium), string(memory.Full)}
}

// argError is the tool error of a bad argument.
func argError(name string, format string, args ...any) error {
	return fmt.Errorf("invalid argument %q: %s", name, fmt.Sprintf(format, args...))
}

// intArg returns *p, or def when p is nil, checked against [min, max]
// (max < 0: no upper bound).
func intArg(name string, p *int, def, min, max int) (int, error) {
	v := def
	if p != nil {
		v = *p
	}
	if v < min || (max >= 0 && v > max) {
		if max < 0 {
			return 0, argError(name, "%d is below %d", v, min)
		}
		return 0, argError(name, "%d is outside %d..%d", v, min, max)
	}
	return v, nil
}

func detailArg(s string, def memory.Detail) (memory.Detail, error) {
	if s == "" {
		return def, nil
	}
	d, err := memory.ParseDetail(s)
	if err != nil {
		return "", argError("detail", "%v", err)
	}
	return d, nil
}

func queryArg(q string) error {
	switch n := len(memory.Terms(q)); {
	case n == 0:
		return argError("query", "it has no words to look for")
	case n > maxQueryTerms:
		return argError("query", "it has %d different words, more than %d", n, maxQueryTerms)
	}
	return nil
}

func (q *queryArgs) parse() (limit int, detail memory.Detail, err error) {
	if err := queryArg(q.Query); err != nil {
		return 0, "", err
	}
	if limit, err = intArg("limit", q.Limit, defaultQueryLimit, 1, maxLimit); err != nil {
		return 0, "", err
	}
	if detail, err = detailArg(q.Detail, memory.Light); err != nil {
		return 0, "", err
	}
	return limit, detail, nil
}

// hits turns search hits into the tool's output, and hands the records with
// their scores to the offloading decorator, for the summary's score_range.
func hits(ctx context.Context, hs []memory.SearchHit, d memory.Detail) hitsOutput {
	out := hitsOutput{
		Memories: make([]memory.Record, len(hs)),
		Scores:   make([]float64, len(hs)),
		Count:    len(hs),
	}
	for i := range hs {
		out.Memories[i] = memory.Project(&hs[i].Memory, d)
		out.Scores[i] = hs[i].Score
	}
	lro.Provide(ctx, lro.ResultSet{Records: out.Memories, Scores: out.Scores})
	return out
}

func (t *tools) recallMemories(ctx context.Context, _ *mcp.CallToolRequest, in queryArgs) (*mcp.CallToolResult, hitsOutput, error) {
	limit, detail, err := in.parse()
	if err != nil {
		return nil, hitsOutput{}, err
	}
	hs, err := t.recall.Recall(in.Query, limit, in.Namespace)
	if err != nil {
		return nil, hitsOutput{}, err
	}
	return nil, hits(ctx, hs, detail), nil
}

func (t *tools) searchMemories(ctx context.Context, _ *mcp.CallToolRequest, in queryArgs) (*mcp.CallToolResult, hitsOutput, error) {
	limit, detail, err := in.parse()
	if err != nil {
		return nil, hitsOutput{}, err
	}
	hs, err := t.search.Search(in.Query, limit, in.Namespace)
	if err != nil {
		return nil, hitsOutput{}, err
	}
	return nil, hits(ctx, hs, detail), nil
}

// listMemories returns one page inline. The result set the offloading
// decision is made on is the whole listing from offset on, not the page:
// when it is offloaded, the file must hold everything the pages would have
// (the specification: "the agent can access the complete data via the JSONL
// file"), since no next_offset is returned then.
func (t *tools) listMemories(ctx context.Context, _ *mcp.CallToolRequest, in listArgs) (*mcp.CallToolResult, listOutput, error) {
	limit, err := intArg("limit", in.Limit, defaultListLimit, 1, maxLimit)
	if err != nil {
		return nil, listOutput{}, err
	}
	offset, err := intArg("offset", in.Offset, 0, 0, -1)
	if err != nil {
		return nil, listOutput{}, err
	}
	detail, err := detailArg(in.Detail, memory.Light)
	if err != nil {
		return nil, listOutput{}, err
	}
	rest, total := t.store.List(memory.ListOptions{Namespace: in.Namespace, Offset: offset})
	records := memory.ProjectAll(rest, detail)
	lro.Provide(ctx, lro.ResultSet{Records: records})
	page := records[:min(limit, len(records))]
	out := listOutput{Memories: page, Count: len(page), Total: total}
	if next := offset + len(page); next < total {
		out.NextOffset = &next
	}
	return nil, out, nil
}

// injectContext returns the formatted context string inline and hands the
// pre-budget recall set to the offloading decorator, which evaluates the
// threshold on it (the specification's inject_context rule).
func (t *tools) injectContext(ctx context.Context, _ *mcp.CallToolRequest, in injectArgs) (*mcp.CallToolResult, injectOutput, error) {
	if err := queryArg(in.Query); err != nil {
		return nil, injectOutput{}, err
	}
	budget, err := intArg("token_budget", in.TokenBudget, defaultTokenBudget, 1, maxTokenBudget)
	if err != nil {
		return nil, injectOutput{}, err
	}
	detail, err := detailArg(in.Detail, memory.Medium)
	if err != nil {
		return nil, injectOutput{}, err
	}
	hs, inj, err := t.prompt.Inject(in.Query, budget, detail)
	if err != nil {
		return nil, injectOutput{}, err
	}
	records := make([]memory.Record, len(hs))
	scores := make([]float64, len(hs))
	for i := range hs {
		records[i] = memory.Project(&hs[i].Memory, detail)
		scores[i] = hs[i].Score
	}
	lro.Provide(ctx, lro.ResultSet{Records: records, Scores: scores})
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: inj.Text}}}
	return res, injectOutput{
		Context:         inj.Text,
		Included:        inj.Included,
		Matched:         len(hs),
		EstimatedTokens: inj.Tokens,
	}, nil
}
