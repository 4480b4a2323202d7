package interop

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/outschema"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/event"
)

// countIn is the input of every tool.
type countIn struct {
	Count int `json:"count" jsonschema:"how many records the result holds"`
}

// item is the record of list_items, search_json and list_structured.
type item struct {
	ID       string   `json:"id" jsonschema:"the item's identifier, unique"`
	Name     string   `json:"name" jsonschema:"display name"`
	Category string   `json:"category" jsonschema:"one of a few categories"`
	Price    float64  `json:"price" jsonschema:"price in euros, >= 0"`
	Labels   []string `json:"labels,omitempty" jsonschema:"free labels"`
}

// listOut is the output of list_items: one page of items and a cursor.
type listOut struct {
	Items      []item `json:"items" jsonschema:"the items"`
	NextOffset int    `json:"next_offset" jsonschema:"where the next page starts"`
}

// memory is the record of inject_context, shaped like a memory record so
// that the descriptor carries the memory recipes.
type memory struct {
	ID         string   `json:"id"`
	MemoryType string   `json:"memory_type"`
	Namespace  string   `json:"namespace"`
	Title      string   `json:"title"`
	Content    string   `json:"content"`
	Tags       []string `json:"tags"`
	Score      float64  `json:"score"`
}

// contextOut is the output of inject_context: a formatted block within a
// budget, not the records themselves.
type contextOut struct {
	Context  string `json:"context" jsonschema:"formatted context for the prompt"`
	Included int    `json:"included" jsonschema:"memories included in the context"`
	Total    int    `json:"total" jsonschema:"memories recalled"`
}

// order is the record of list_orders.
type order struct {
	OrderID  string  `json:"order_id"`
	Customer string  `json:"customer"`
	Status   string  `json:"status"`
	Total    float64 `json:"total"`
}

// ordersOut is the output of list_orders.
type ordersOut struct {
	Orders []order `json:"orders"`
}

func makeItems(n int) []item {
	cats := []string{"books", "games", "tools"}
	items := make([]item, n)
	for i := range items {
		items[i] = item{
			ID:       fmt.Sprintf("it-%04d", i),
			Name:     fmt.Sprintf("Item number %d with a reasonably descriptive name", i),
			Category: cats[i%len(cats)],
			Price:    float64(i%50) + 0.5,
			Labels:   []string{fmt.Sprintf("label%d", i%4), "common"},
		}
	}
	return items
}

func makeMemories(n int) ([]memory, []float64) {
	namespaces := []string{"_semantic/decisions", "_semantic/knowledge", "_episodic/incidents", "_procedural/runbooks"}
	types := []string{"semantic", "semantic", "episodic", "procedural"}
	ms := make([]memory, n)
	scores := make([]float64, n)
	for i := range ms {
		scores[i] = 1 - float64(i)/float64(n+1)
		ms[i] = memory{
			ID:         fmt.Sprintf("mem-%05d", i),
			MemoryType: types[i%len(types)],
			Namespace:  namespaces[i%len(namespaces)],
			Title:      fmt.Sprintf("Decision %d about the storage layer", i),
			Content:    fmt.Sprintf("We chose option %d because it keeps the write path simple and the read path fast.", i%7),
			Tags:       []string{"storage", fmt.Sprintf("t%d", i%5)},
			Score:      scores[i],
		}
	}
	return ms, scores
}

func makeOrders(n int) []order {
	statuses := []string{"open", "shipped", "delivered", "cancelled"}
	orders := make([]order, n)
	for i := range orders {
		orders[i] = order{
			OrderID:  fmt.Sprintf("ord-%06d", i),
			Customer: fmt.Sprintf("Customer %d of the regional wholesale programme", i%37),
			Status:   statuses[i%len(statuses)],
			Total:    float64(i%90) + 0.99,
		}
	}
	return orders
}

// countOf reads the count argument of a raw handler.
func countOf(req *mcp.CallToolRequest) (int, error) {
	var in countIn
	if len(req.Params.Arguments) > 0 {
		if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
			return 0, fmt.Errorf("arguments: %w", err)
		}
	}
	if in.Count < 0 {
		return 0, errors.New("count must not be negative")
	}
	return in.Count, nil
}

func listItems(_ context.Context, _ *mcp.CallToolRequest, in countIn) (*mcp.CallToolResult, listOut, error) {
	return nil, listOut{Items: makeItems(in.Count), NextOffset: in.Count}, nil
}

// injectContext formats the best few memories within a small budget and
// hands the whole recall set to the decorator, as inject_context does.
func injectContext(ctx context.Context, _ *mcp.CallToolRequest, in countIn) (*mcp.CallToolResult, contextOut, error) {
	ms, scores := makeMemories(in.Count)
	lro.Provide(ctx, lro.ResultSet{Records: ms, Scores: scores})
	var b strings.Builder
	n := min(len(ms), 3)
	for _, m := range ms[:n] {
		fmt.Fprintf(&b, "- [%s] %s (%.2f)\n", m.Namespace, m.Title, m.Score)
	}
	return nil, contextOut{Context: b.String(), Included: n, Total: len(ms)}, nil
}

func searchJSON(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	n, err := countOf(req)
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(map[string]any{"results": makeItems(n), "total": n})
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(data)}}}, nil
}

func tailLogs(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	n, err := countOf(req)
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "2026-11-21T10:%02d:%02dZ INFO request %d served in %dms\n", (i/60)%60, i%60, i, i%17)
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}, nil
}

func listStructured(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	n, err := countOf(req)
	if err != nil {
		return nil, err
	}
	return jsonResult(listOut{Items: makeItems(n), NextOffset: n})
}

// jsonResult returns v as a tool result: its JSON as a text and as the
// structured content.
func jsonResult(v any) (*mcp.CallToolResult, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(data)}},
		StructuredContent: json.RawMessage(data),
	}, nil
}

func listOrders(_ context.Context, _ *mcp.CallToolRequest, in countIn) (*mcp.CallToolResult, ordersOut, error) {
	return nil, ordersOut{Orders: makeOrders(in.Count)}, nil
}

// brokenSchema returns structured content that lacks the field its output
// schema requires.
func brokenSchema(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	n, err := countOf(req)
	if err != nil {
		return nil, err
	}
	return jsonResult(map[string]any{"count": n})
}

// newServer returns the server with every tool registered.
func newServer(outputDir string, logger *slog.Logger) (*mcp.Server, error) {
	s := mcp.NewServer(&mcp.Implementation{Name: "lro-interop-testserver", Version: "v0.0.0"}, &mcp.ServerOptions{Logger: logger})
	opts := func(operation string) *lro.Options {
		return &lro.Options{OutputDir: outputDir, Operation: operation, Observer: event.Slog(logger)}
	}
	if err := opts("").Validate(); err != nil {
		return nil, err
	}
	countSchema, err := jsonschema.For[countIn](nil)
	if err != nil {
		return nil, err
	}

	// (a) A typed tool whose output holds an array of records.
	lro.AddTool(s, &mcp.Tool{Name: "list_items", Description: "Lists count items, one page with a cursor."},
		listItems, opts("list"))

	// (b) A typed tool that returns a formatted string and provides the full set.
	lro.AddTool(s, &mcp.Tool{Name: "inject_context", Description: "Formats the best of count recalled memories."},
		injectContext, opts("inject"))

	// (c) A raw handler returning JSON text, no output schema.
	s.AddTool(&mcp.Tool{Name: "search_json", Description: "Searches count items, as JSON text.", InputSchema: countSchema},
		lro.Wrap(searchJSON, opts("search")))

	// (d) A raw handler returning plain text lines.
	s.AddTool(&mcp.Tool{Name: "tail_logs", Description: "Returns the last count log lines.", InputSchema: countSchema},
		lro.Wrap(tailLogs, opts("logs")))

	// A raw handler with structured content and a widened output schema.
	itemsSchema, err := jsonschema.For[listOut](nil)
	if err != nil {
		return nil, err
	}
	widened, err := outschema.Widen(itemsSchema)
	if err != nil {
		return nil, err
	}
	s.AddTool(&mcp.Tool{Name: "list_structured", Description: "Lists count items as structured content.", InputSchema: countSchema, OutputSchema: widened},
		lro.Wrap(listStructured, opts("structured")))

	// Negative control: the same handler with the narrow output schema.
	s.AddTool(&mcp.Tool{Name: "list_unwidened", Description: "Lists count items; the output schema is not widened.", InputSchema: countSchema, OutputSchema: itemsSchema},
		lro.Wrap(listStructured, opts("unwidened")))

	// (e) A plain typed tool that only the middleware covers.
	mcp.AddTool(s, &mcp.Tool{Name: "list_orders", Description: "Lists count orders."}, listOrders)
	s.AddReceivingMiddleware(lro.Middleware(opts(""), "list_orders"))

	// (f) The typed tools again, with a folder that cannot be written to:
	// a regular file stands where its parent should be (written below,
	// after the tools are set up: Options.Validate refuses one before).
	// Each call above the threshold falls back to the leading records:
	// list_items_unwritable's and list_orders_unwritable's in their own
	// shape, inject_context_unwritable's (provided with lro.Provide) as
	// text, its structured content {"offloaded":false}.
	blocker := filepath.Join(outputDir, "unwritable")
	unwritable := func(operation string) *lro.Options {
		o := opts(operation)
		o.OutputDir = filepath.Join(blocker, "out")
		return o
	}
	lro.AddTool(s, &mcp.Tool{Name: "list_items_unwritable", Description: "list_items, its files unwritable."},
		listItems, unwritable("list"))
	lro.AddTool(s, &mcp.Tool{Name: "inject_context_unwritable", Description: "inject_context, its files unwritable."},
		injectContext, unwritable("inject"))
	mcp.AddTool(s, &mcp.Tool{Name: "list_orders_unwritable", Description: "list_orders, its files unwritable."}, listOrders)
	s.AddReceivingMiddleware(lro.Middleware(unwritable(""), "list_orders_unwritable"))
	if err := os.WriteFile(blocker, []byte("not a folder\n"), 0o600); err != nil {
		return nil, err
	}

	// Negative control: the result lacks the required field "missing".
	s.AddTool(&mcp.Tool{
		Name:         "broken_schema",
		Description:  "Returns structured content that does not match its output schema.",
		InputSchema:  countSchema,
		OutputSchema: map[string]any{"type": "object", "required": []any{"missing"}, "properties": map[string]any{"missing": map[string]any{"type": "string"}}},
	}, brokenSchema)
	return s, nil
}

// testServerEnv, set to "1", makes the test binary run the test server.
const testServerEnv = "LRO_INTEROP_TESTSERVER"

func TestMain(m *testing.M) {
	if os.Getenv(testServerEnv) == "1" {
		runTestServer(os.Args[1:])
	}
	os.Exit(m.Run())
}

// runTestServer serves, on stdio, the server of the "every wrapping style" run of TestTypeScriptClient: the
// test binary itself, started by client.mjs with testServerEnv set (see
// TestMain). It registers one tool for every way of using package lro, each
// taking a count argument so that the same tool can be called small (inline)
// and large (offloaded):
//
//   - list_items, inject_context: typed tools of [lro.AddTool]; inject_context
//     returns a short string and hands the scored records over with [lro.Provide];
//   - search_json, tail_logs: raw handlers wrapped by [lro.Wrap] returning JSON
//     text, and plain text lines;
//   - list_structured: a raw handler with structured content, its output
//     schema widened by outschema.Widen;
//   - list_orders: a plain [mcp.AddTool] tool that only [lro.Middleware] covers;
//   - list_items_unwritable, inject_context_unwritable,
//     list_orders_unwritable: the typed tools with a folder that cannot be
//     written to, whose results fall back;
//   - broken_schema, list_unwidened: negative controls a validating client must
//     reject (a missing required field; list_structured with its schema left
//     narrow, valid inline but not offloaded).
//
// Offloaded files go to the folder named by -output-dir; it logs to stderr only.
func runTestServer(args []string) {
	fs := flag.NewFlagSet("testserver", flag.ExitOnError)
	outputDir := fs.String("output-dir", "", "folder for offloaded files")
	fs.Parse(args)
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	s, err := newServer(*outputDir, logger)
	if err != nil {
		logger.Error("testserver: setup", "err", err)
		os.Exit(2)
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		logger.Error("testserver: run", "err", err)
		os.Exit(1)
	}
	os.Exit(0)
}
