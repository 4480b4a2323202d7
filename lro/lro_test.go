package lro_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/estimate"
	"github.com/zircote/lro-go/internal/disk"
	"github.com/zircote/lro-go/internal/spec"
	dwire "github.com/zircote/lro-go/internal/testing/wire"
	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/descriptor"
	"github.com/zircote/lro-go/lro/event"
	"github.com/zircote/lro-go/lro/internal/offload"
)

// item is a record type of a tool that is not a memory tool. Its tags are in
// the go-sdk convention: the jsonschema tag is a plain description.
type item struct {
	ID       string   `json:"id" jsonschema:"the item's identifier, unique"`
	Name     string   `json:"name" jsonschema:"display name"`
	Category string   `json:"category" jsonschema:"one of a few categories"`
	Price    float64  `json:"price" jsonschema:"price in euros, >= 0"`
	Labels   []string `json:"labels,omitempty" jsonschema:"free labels"`
}

type listIn struct {
	Count int `json:"count" jsonschema:"how many items to list"`
}

type listOut struct {
	Items      []item `json:"items" jsonschema:"the items"`
	NextOffset int    `json:"next_offset,omitempty" jsonschema:"where the next page starts"`
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
			Labels:   []string{"label" + fmt.Sprint(i%4), "common"},
		}
	}
	return items
}

// recorder is an Observer that keeps every event.
type recorder struct {
	mu     sync.Mutex
	events []event.Event
}

func (r *recorder) Observe(_ context.Context, e event.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recorder) all() []event.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]event.Event(nil), r.events...)
}

// connect serves s in memory and returns a connected client session.
func connect(t *testing.T, s *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func newServer() *mcp.Server {
	return mcp.NewServer(&mcp.Implementation{Name: "test-server", Version: "v0"}, nil)
}

// textHandler returns a raw handler whose result is the JSON text of n items.
func textHandler(n int) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		data, err := json.Marshal(makeItems(n))
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(data)}}}, nil
	}
}

var rawInputSchema = &jsonschema.Schema{Type: "object"}

// descriptorOf decodes the descriptor in a result, failing the test if the
// result is not offloaded.
func descriptorOf(t *testing.T, res *mcp.CallToolResult) offloadResponse {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %v", res.Content)
	}
	if len(res.Content) != 1 {
		t.Fatalf("offloaded result has %d content items, want 1", len(res.Content))
	}
	var d offloadResponse
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &d); err != nil {
		t.Fatalf("content is not a descriptor: %v", err)
	}
	if !d.Offloaded {
		t.Fatalf("descriptor.offloaded is false")
	}
	return d
}

func TestWrapInlineBelowThreshold(t *testing.T) {
	dir := t.TempDir()
	s := newServer()
	s.AddTool(&mcp.Tool{Name: "items", InputSchema: rawInputSchema}, lro.Wrap(textHandler(3), &lro.Options{OutputDir: dir}))
	cs := connect(t, s)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "items"})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(makeItems(3))
	if got := res.Content[0].(*mcp.TextContent).Text; got != string(want) {
		t.Errorf("inline result changed:\n got %s\nwant %s", got, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("inline call wrote %d files", len(entries))
	}
}

func TestWrapOffloadsAboveThreshold(t *testing.T) {
	dir := t.TempDir()
	obs := &recorder{}
	s := newServer()
	s.AddTool(&mcp.Tool{Name: "items", InputSchema: rawInputSchema},
		lro.Wrap(textHandler(200), &lro.Options{OutputDir: dir, Operation: "catalog", Observer: obs}))
	cs := connect(t, s)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "items", Arguments: map[string]any{"query": "all items"}})
	if err != nil {
		t.Fatal(err)
	}
	d := descriptorOf(t, res)

	if !filepath.IsAbs(d.FilePath) || filepath.Dir(d.FilePath) != dir {
		t.Errorf("file_path %q is not an absolute path in %s", d.FilePath, dir)
	}
	op, _, ok := disk.ParseName(filepath.Base(d.FilePath), "atlatl")
	if !ok || op != "catalog" {
		t.Errorf("file name %q does not follow atlatl-{operation}-{ulid}.jsonl with operation catalog", filepath.Base(d.FilePath))
	}
	fi, err := os.Stat(d.FilePath)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o400 {
		t.Errorf("file mode %v, want 0400 (private, read-only: its expiry is recorded)", fi.Mode().Perm())
	}

	h, lines, rebuilt := readOffloaded(t, d.FilePath)
	// The text the tool returned, and its estimate: what the client would
	// have received.
	bare, _ := textHandler(200)(context.Background(), nil)
	text := bare.Content[0].(*mcp.TextContent).Text
	query := "all items"
	wantHeader := offload.FileHeader{Header: jsonl.Header{Operation: "catalog", Query: &query, Count: 200,
		SchemaVersion: lro.DefaultSchemaVersion, Timestamp: h.Timestamp, EstimatedTokens: estimate.Tokens(text), Detail: "full"},
		// The records were the text's JSON array: the header keeps the
		// rest of the result, here nothing but the text item around them.
		Shape: offload.Shape{Result: json.RawMessage(`{"content":[{"type":"text","text":[]}]}`),
			RecordsAt: []offload.Placement{{At: "/content/0/text", As: "array", Count: 200, InText: "/content/0/text"}}}}
	if diff := cmp.Diff(wantHeader, h); diff != "" {
		t.Errorf("header (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(makeItems(200), decodeItems(t, lines)); diff != "" {
		t.Errorf("file records (-want +got):\n%s", diff)
	}
	checkRebuilt(t, resultJSON(t, bare), rebuilt)

	if d.Summary.Count != 200 || d.Summary.Operation != "catalog" || d.Summary.Detail != "full" {
		t.Errorf("summary = %+v", d.Summary)
	}
	if d.Summary.EstimatedTokens != h.EstimatedTokens {
		t.Errorf("summary estimated_tokens %d, header %d; want both the result's", d.Summary.EstimatedTokens, h.EstimatedTokens)
	}
	if d.Beside != nil {
		t.Errorf("beside = %+v, want none: the result held nothing but the records", d.Beside)
	}
	if len(d.JqRecipes) != spec.RecipeCount {
		t.Errorf("%d recipes, want exactly %d", len(d.JqRecipes), spec.RecipeCount)
	}
	if d.LineSchema == nil || !strings.Contains(d.Guidance, d.FilePath) {
		t.Errorf("descriptor lacks line_schema or guidance with the path: %+v", d)
	}
	// The line schema, inferred from the records, accepts every line.
	validateAll(t, d.LineSchema, lines)

	evs := obs.all()
	if len(evs) != 1 || !is[event.Offloaded](evs[0]) {
		t.Fatalf("events = %v, want one Offloaded", evs)
	}
	if e := evs[0].(event.Offloaded); e.Path != d.FilePath || e.Count != 200 || e.Tool != "items" {
		t.Errorf("Offloaded event = %+v", e)
	}
}

// decodeItems decodes record lines as items.
func decodeItems(t *testing.T, lines []json.RawMessage) []item {
	t.Helper()
	var got []item
	for _, l := range lines {
		var it item
		if err := json.Unmarshal(l, &it); err != nil {
			t.Fatal(err)
		}
		got = append(got, it)
	}
	return got
}

// validateAll checks every line against the JSON Schema schema.
func validateAll(t *testing.T, schema any, lines []json.RawMessage) {
	t.Helper()
	data, _ := json.Marshal(schema)
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("line_schema is not a JSON Schema: %v", err)
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("line_schema does not resolve: %v", err)
	}
	for i, l := range lines {
		var v any
		_ = json.Unmarshal(l, &v)
		if err := resolved.Validate(v); err != nil {
			t.Fatalf("line %d fails line_schema: %v\nschema: %s", i+2, err, data)
		}
	}
}

func TestAddToolTyped(t *testing.T) {
	dir := t.TempDir()
	s := newServer()
	lro.AddTool(s, &mcp.Tool{Name: "list_items", Description: "Lists items."},
		func(ctx context.Context, req *mcp.CallToolRequest, in listIn) (*mcp.CallToolResult, listOut, error) {
			return nil, listOut{Items: makeItems(in.Count), NextOffset: in.Count}, nil
		}, &lro.Options{OutputDir: dir, Operation: "list", SchemaDescriptions: true})
	cs := connect(t, s)

	// The advertised output schema accepts both shapes.
	var outSchema any
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		outSchema = tool.OutputSchema
	}
	if outSchema == nil {
		t.Fatal("tool advertises no output schema")
	}

	inline, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_items", Arguments: map[string]any{"count": 2}})
	if err != nil {
		t.Fatal(err)
	}
	var out listOut
	data, _ := json.Marshal(inline.StructuredContent)
	if err := json.Unmarshal(data, &out); err != nil || len(out.Items) != 2 || out.NextOffset != 2 {
		t.Errorf("inline structured content = %s (err %v), want 2 items and next_offset 2", data, err)
	}
	validateAll(t, outSchema, []json.RawMessage{data})

	off, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_items", Arguments: map[string]any{"count": 300}})
	if err != nil {
		t.Fatal(err)
	}
	d := descriptorOf(t, off)
	sc, _ := json.Marshal(off.StructuredContent)
	validateAll(t, outSchema, []json.RawMessage{sc})
	// The structured content is the descriptor, as the text is.
	var scd offloadResponse
	if err := json.Unmarshal(sc, &scd); err != nil || scd.FilePath != d.FilePath {
		t.Errorf("structured content %.200s is not the descriptor of %s (%v)", sc, d.FilePath, err)
	}
	// Nothing is lost: the cursor beside the records is shown by the
	// descriptor and kept in the header; the text copy of the structured
	// content is one of its copies; the file puts the result back together.
	if d.Beside == nil || string(d.Beside.Values) != `{".structuredContent.next_offset":300}` || len(d.Beside.Other) != 0 {
		t.Errorf("beside = %+v, want the values {\".structuredContent.next_offset\":300}", d.Beside)
	}
	h, _, rebuilt := readOffloaded(t, d.FilePath)
	out300, _ := json.Marshal(listOut{Items: makeItems(300), NextOffset: 300})
	wantResult := `{"content":[{"type":"text","text":null}],"structuredContent":{"items":[],"next_offset":300}}`
	if string(h.Result) != wantResult {
		t.Errorf("header result %s, want %s", h.Result, wantResult)
	}
	if diff := cmp.Diff([]offload.Copy{{At: "/content/0/text", Of: "/structuredContent"}}, h.Copies); diff != "" {
		t.Errorf("header copies (-want +got):\n%s", diff)
	}
	checkRebuilt(t, resultJSON(t, &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(out300)}},
		StructuredContent: json.RawMessage(out300),
	}), rebuilt)
	// The client would have received the Out value twice.
	if want := 2 * estimate.Tokens(string(out300)); h.EstimatedTokens != want || d.Summary.EstimatedTokens != want {
		t.Errorf("estimated_tokens %d in the header, %d in the summary; want %d, the text and the structured content", h.EstimatedTokens, d.Summary.EstimatedTokens, want)
	}
	// The line schema is inferred from the records and takes from the
	// record type its number types and, with SchemaDescriptions, the go-sdk
	// style descriptions, kept whole.
	props := d.LineSchema.(map[string]any)["properties"].(map[string]any)
	if got := props["id"].(map[string]any)["description"]; got != "the item's identifier, unique" {
		t.Errorf("id description = %v", got)
	}
	if got := props["price"].(map[string]any)["type"]; got != "number" {
		t.Errorf("price type = %v", got)
	}
	_, lines, err := jsonl.ReadFile(d.FilePath)
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 300 {
		t.Fatalf("%d lines, want 300", len(lines))
	}
	validateAll(t, d.LineSchema, lines)
}

func TestProvideEvaluatesTheFullSet(t *testing.T) {
	dir := t.TempDir()
	s := newServer()
	handler := func(n int) mcp.ToolHandler {
		return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			items := makeItems(n)
			scores := make([]float64, n)
			for i := range scores {
				scores[i] = 1 - float64(i)/float64(n+1)
			}
			if !lro.Provide(ctx, lro.ResultSet{Records: items, Scores: scores}) {
				return nil, errors.New("no decorator listening")
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "formatted context within budget"}}}, nil
		}
	}
	s.AddTool(&mcp.Tool{Name: "small", InputSchema: rawInputSchema}, lro.Wrap(handler(2), &lro.Options{OutputDir: dir}))
	s.AddTool(&mcp.Tool{Name: "large", InputSchema: rawInputSchema}, lro.Wrap(handler(100), &lro.Options{OutputDir: dir, Operation: "inject"}))
	cs := connect(t, s)

	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "small"})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "formatted context within budget" {
		t.Errorf("small set: got %q, want the handler's own string", got)
	}
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "large"})
	if err != nil {
		t.Fatal(err)
	}
	d := descriptorOf(t, res)
	if d.Summary.Count != 100 {
		t.Errorf("summary.count = %d, want 100", d.Summary.Count)
	}
	// A provided set is the whole result: the file holds its records and
	// nothing else, and its estimate is the sum of its record lines.
	h, lines, rebuilt := readOffloaded(t, d.FilePath)
	tokens := 0
	for _, l := range lines {
		tokens += estimate.Tokens(string(l))
	}
	if h.EstimatedTokens != tokens || d.Summary.EstimatedTokens != tokens {
		t.Errorf("estimated_tokens %d in the header, %d in the summary; want %d, the records'", h.EstimatedTokens, d.Summary.EstimatedTokens, tokens)
	}
	if h.Result != nil || d.Beside != nil {
		t.Errorf("header result %s, beside %+v; want none for a provided set", h.Result, d.Beside)
	}
	if set, _ := json.Marshal(makeItems(100)); !bytes.Equal(compactJSON(t, set), compactJSON(t, rebuilt)) {
		t.Errorf("the file rebuilds into %.200s, want the provided set %.200s", rebuilt, set)
	}
	last, n := 99.0, 101.0 // as the handler computes them, at run time
	if want := [2]float64{1 - last/n, 1}; d.Summary.ScoreRange == nil || *d.Summary.ScoreRange != want {
		t.Errorf("summary.score_range = %v, want %v", d.Summary.ScoreRange, want)
	}
	if lro.Provide(context.Background(), lro.ResultSet{}) {
		t.Error("Provide outside a decorator reported true")
	}
}

// TestProvideNonFiniteScores hands over scores that JSON cannot carry: the
// records are still offloaded, and score_range is that of the finite ones
// (before, the descriptor failed to encode and the result went out whole,
// leaving the file behind).
func TestProvideNonFiniteScores(t *testing.T) {
	dir := t.TempDir()
	h := lro.Wrap(func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		scores := make([]float64, 100)
		for i := range scores {
			scores[i] = float64(i) / 100
		}
		scores[0], scores[1], scores[2] = math.NaN(), math.Inf(1), math.Inf(-1)
		lro.Provide(ctx, lro.ResultSet{Records: makeItems(100), Scores: scores})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "formatted"}}}, nil
	}, &lro.Options{OutputDir: dir})
	res, err := h(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "t"}})
	if err != nil {
		t.Fatal(err)
	}
	d := descriptorOf(t, res)
	if want := [2]float64{0.03, 0.99}; d.Summary.ScoreRange == nil || *d.Summary.ScoreRange != want {
		t.Errorf("summary.score_range = %v, want %v", d.Summary.ScoreRange, want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the folder, want the one offloaded", len(entries))
	}
}

func TestPassThrough(t *testing.T) {
	big := strings.Repeat("word ", 5000)
	tests := []struct {
		name string
		res  *mcp.CallToolResult
	}{
		{"tool errors are not offloaded", &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: big}}}},
		{"tool errors with structured content are not offloaded", &mcp.CallToolResult{IsError: true,
			Content: []mcp.Content{&mcp.TextContent{Text: "failed"}}, StructuredContent: map[string]any{"log": big}}},
		{"results that need input are not offloaded", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: big}}, RequestState: "state"}},
		{"images are not counted", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "a picture"}, &mcp.ImageContent{Data: []byte(big), MIMEType: "image/png"}}}},
		{"audio is not counted", &mcp.CallToolResult{Content: []mcp.Content{&mcp.AudioContent{Data: []byte(big), MIMEType: "audio/wav"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			before := resultJSON(t, tt.res)
			h := lro.Wrap(func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return tt.res, nil }, &lro.Options{OutputDir: dir})
			res, err := h(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "t"}})
			if err != nil || res != tt.res {
				t.Fatalf("Wrap returned %v, %v; want the handler's result", res, err)
			}
			if after := resultJSON(t, res); !bytes.Equal(before, after) {
				t.Errorf("result changed:\nbefore %.300s\nafter  %.300s", before, after)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("wrote %d files", len(entries))
			}
		})
	}
}

// TestMediaStaysBesideTheDescriptor: a result above the threshold is
// offloaded whole, except its images and audio, which are not text: they stay
// in the response after the descriptor. Other items, such as a resource link,
// are text to the client: they go to the file's header, and the descriptor
// names them.
func TestMediaStaysBesideTheDescriptor(t *testing.T) {
	big, _ := json.Marshal(makeItems(200))
	image := &mcp.ImageContent{Data: []byte("png"), MIMEType: "image/png"}
	audio := &mcp.AudioContent{Data: []byte("wav"), MIMEType: "audio/wav"}
	link := &mcp.ResourceLink{URI: "file:///catalog.csv", Name: "catalog"}
	orig := &mcp.CallToolResult{Content: []mcp.Content{image, &mcp.TextContent{Text: string(big)}, audio, link}}
	want := resultJSON(t, orig)
	h := lro.Wrap(func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: append([]mcp.Content(nil), orig.Content...)}, nil
	}, &lro.Options{OutputDir: t.TempDir()})
	res, err := h(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "t"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 3 || res.Content[1] != image || res.Content[2] != audio {
		t.Fatalf("content %v, want the descriptor, the image and the audio", res.Content)
	}
	d := descriptorOf(t, &mcp.CallToolResult{Content: res.Content[:1]})
	hdr, lines, rebuilt := readOffloaded(t, d.FilePath)
	linkJSON, _ := json.Marshal(link)
	if tokens := estimate.Tokens(string(big)) + estimate.Tokens(string(linkJSON)); len(lines) != 200 || hdr.EstimatedTokens != tokens {
		t.Errorf("%d records and estimated_tokens %d, want 200 and %d (the text and the link)", len(lines), hdr.EstimatedTokens, tokens)
	}
	if d.Beside == nil || len(d.Beside.Other) != 1 || !strings.HasPrefix(d.Beside.Other[0], ".content[3]") {
		t.Errorf("beside = %+v, want it to name the resource link .content[3]", d.Beside)
	}
	checkRebuilt(t, want, rebuilt)
}

func TestTextLinesBecomeRecords(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	for i := range 400 {
		lines = append(lines, fmt.Sprintf("2026-11-21T10:%02d:00Z INFO request %d served in %dms", i%60, i, i%17))
	}
	text := strings.Join(lines, "\n") + "\n"
	h := lro.Wrap(func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	}, &lro.Options{OutputDir: dir})
	res, err := h(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "logs"}})
	if err != nil {
		t.Fatal(err)
	}
	d := descriptorOf(t, res)
	_, recs, err := jsonl.ReadFile(d.FilePath)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 400 {
		t.Fatalf("%d records, want 400", len(recs))
	}
	for i, r := range recs {
		var l struct {
			Line int    `json:"line"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(r, &l); err != nil || l.Line != i+1 || l.Text != lines[i] {
			t.Fatalf("record %d = %s, want line %d %q", i, r, i+1, lines[i])
		}
	}
}

func TestWriteFailureFallsBackInline(t *testing.T) {
	obs := &recorder{}
	dir := filepath.Join(t.TempDir(), "sub")
	s := newServer()
	lro.AddTool(s, &mcp.Tool{Name: "list_items"},
		func(ctx context.Context, req *mcp.CallToolRequest, in listIn) (*mcp.CallToolResult, listOut, error) {
			return nil, listOut{Items: makeItems(in.Count)}, nil
		}, &lro.Options{OutputDir: dir, Observer: obs})
	// The folder becomes a regular file after the tool was set up
	// (Options.Validate refuses one before): every write fails.
	if err := os.WriteFile(dir, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	cs := connect(t, s)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list_items", Arguments: map[string]any{"count": 300}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("a write failure failed the call: %v", res.Content)
	}
	warning := res.Content[0].(*mcp.TextContent).Text
	var out listOut
	data, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatalf("structured content %s: %v", data, err)
	}
	if len(out.Items) == 0 || len(out.Items) >= 300 {
		t.Fatalf("kept %d items, want some but not all", len(out.Items))
	}
	if diff := cmp.Diff(makeItems(len(out.Items)), out.Items); diff != "" {
		t.Errorf("kept items are not the leading records (-want +got):\n%s", diff)
	}
	var body listOut
	if err := json.Unmarshal([]byte(res.Content[1].(*mcp.TextContent).Text), &body); err != nil {
		t.Fatalf("body: %v", err)
	}
	if diff := cmp.Diff(out, body); diff != "" {
		t.Errorf("body differs from the structured content (-structured +body):\n%s", diff)
	}
	if used := sentTokens(t, res); used > lro.DefaultThresholdTokens {
		t.Errorf("the fallback sends ~%d tokens, above the threshold", used)
	}
	evs := obs.all()
	if len(evs) != 1 || !is[event.WriteFailed](evs[0]) {
		t.Fatalf("events = %v, want one WriteFailed", evs)
	}
	e := evs[0].(event.WriteFailed)
	full, _ := json.Marshal(listOut{Items: makeItems(300)})
	tokens := 2 * estimate.Tokens(string(full)) // the text and the structured content
	if e.Err == nil || e.Count != 300 || e.EstimatedTokens != tokens {
		t.Errorf("WriteFailed = %+v, want count 300, estimated_tokens %d", e, tokens)
	}
	checkWarning(t, res, parseWarning(t, warning, e.Err), len(out.Items), 300, tokens)
}

func TestProfiles(t *testing.T) {
	tests := []struct {
		name                             string
		profile                          descriptor.Profile
		summary, schema, recipes, guides bool
	}{
		{"full", descriptor.ProfileFull, true, true, true, true},
		{"no_recipes", descriptor.ProfileNoRecipes, true, true, false, true},
		{"no_schema", descriptor.ProfileNoSchema, true, false, true, true},
		{"bare_pointer", descriptor.ProfileBarePointer, false, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := lro.Wrap(textHandler(200), &lro.Options{OutputDir: t.TempDir(), Profile: tt.profile})
			res, err := h(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "items"}})
			if err != nil {
				t.Fatal(err)
			}
			d := descriptorOf(t, res)
			got := [4]bool{d.Summary != nil, d.LineSchema != nil, len(d.JqRecipes) > 0, d.Guidance != ""}
			want := [4]bool{tt.summary, tt.schema, tt.recipes, tt.guides}
			if got != want {
				t.Errorf("fields present (summary, schema, recipes, guidance) = %v, want %v", got, want)
			}
			if d.FilePath == "" {
				t.Error("no file_path")
			}
		})
	}
}

func TestMiddlewareServerWide(t *testing.T) {
	dir := t.TempDir()
	s := newServer()
	s.AddTool(&mcp.Tool{Name: "a", InputSchema: rawInputSchema}, textHandler(200))
	s.AddTool(&mcp.Tool{Name: "b", InputSchema: rawInputSchema}, textHandler(200))
	mcp.AddTool(s, &mcp.Tool{Name: "typed"}, func(ctx context.Context, req *mcp.CallToolRequest, in listIn) (*mcp.CallToolResult, listOut, error) {
		return nil, listOut{Items: makeItems(in.Count)}, nil
	})
	s.AddReceivingMiddleware(lro.Middleware(&lro.Options{OutputDir: dir}, "a", "typed"))
	cs := connect(t, s)
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.Name == "typed" {
			data, _ := json.Marshal(tool.OutputSchema)
			if !strings.Contains(string(data), "file_path") {
				t.Errorf("typed tool's output schema not widened: %s", data)
			}
		}
	}
	res, _ := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "a"})
	descriptorOf(t, res)
	res, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "typed", Arguments: map[string]any{"count": 300}})
	descriptorOf(t, res)
	res, _ = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "b"})
	if strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"offloaded"`) {
		t.Error("tool b, not selected, was offloaded")
	}
}

func TestInvalidOptions(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	os.WriteFile(file, nil, 0o600)
	tests := []struct {
		name  string
		opts  lro.Options
		field string
	}{
		{"negative threshold", lro.Options{ThresholdTokens: -1}, "ThresholdTokens"},
		{"negative TTL", lro.Options{TTL: -1}, "TTL"},
		{"output dir is a file", lro.Options{OutputDir: file}, "OutputDir"},
		{"unknown detail", lro.Options{DefaultDetail: "huge"}, "DefaultDetail"},
		{"unknown profile", lro.Options{Profile: 9}, "Profile"},
		{"more preview records than the sample", lro.Options{PreviewRecords: 17}, "PreviewRecords"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.opts.Validate()
			if err == nil || !strings.Contains(err.Error(), tt.field) {
				t.Errorf("Validate() = %v, want an error naming %s", err, tt.field)
			}
		})
	}
	if err := (*lro.Options)(nil).Validate(); err != nil {
		t.Errorf("nil options: %v", err)
	}
}

// TestRecipesRunOnOffloadedFile runs every recipe of a real descriptor with
// the jq binary.
func TestRecipesRunOnOffloadedFile(t *testing.T) {
	jq, err := exec.LookPath("jq")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("jq is not installed")
		}
		t.Skip("jq is not installed")
	}
	_ = jq
	dir := filepath.Join(t.TempDir(), "it's a dir")
	h := lro.Wrap(textHandler(120), &lro.Options{OutputDir: dir})
	res, err := h(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "items"}})
	if err != nil {
		t.Fatal(err)
	}
	d := descriptorOf(t, res)
	for i, r := range d.JqRecipes {
		out, err := exec.Command("sh", "-c", r.Command).CombinedOutput()
		if err != nil {
			t.Errorf("recipe %d %q: %v\n%s", i+1, r.Command, err, out)
		}
		if len(strings.TrimSpace(string(out))) == 0 {
			t.Errorf("recipe %d %q printed nothing", i+1, r.Command)
		}
	}
}

// TestGuardNullArguments sends "arguments": null to a typed tool whose input
// schema has a default: without the guard, go-sdk v1.8.0 panics in the
// server's goroutine and the process dies.
func TestGuardNullArguments(t *testing.T) {
	type in struct {
		Count int `json:"count,omitempty"`
	}
	s := newServer()
	s.AddReceivingMiddleware(lro.GuardNullArguments)
	tool := &mcp.Tool{Name: "defaults", InputSchema: &jsonschema.Schema{
		Type:       "object",
		Properties: map[string]*jsonschema.Schema{"count": {Type: "integer", Default: json.RawMessage("3")}},
	}}
	lro.AddTool(s, tool, func(ctx context.Context, req *mcp.CallToolRequest, args in) (*mcp.CallToolResult, listOut, error) {
		return nil, listOut{Items: makeItems(args.Count)}, nil
	}, &lro.Options{OutputDir: t.TempDir()})
	cs := connect(t, s)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "defaults", Arguments: map[string]any(nil)}) // "arguments": null
	if err != nil {
		t.Fatal(err)
	}
	var out listOut
	data, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, &out); err != nil || len(out.Items) != 3 {
		t.Errorf("result %s, want the 3 items of the schema's default", data)
	}
}

// offloadResponse and jqRecipe are what these tests read of a descriptor.
type (
	offloadResponse = dwire.Descriptor
	jqRecipe        = dwire.JqRecipe
)

// TestInlineCallAllocatesOnce: a wrapped call whose result stays inline
// allocates once, the context that holds the slot of Provide, whose values
// stay the parent's.
func TestInlineCallAllocatesOnce(t *testing.T) {
	type key struct{}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Repeat("small result ", 50)}}}
	var value any
	h := lro.Wrap(func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		value = ctx.Value(key{})
		return res, nil
	}, &lro.Options{OutputDir: t.TempDir()})
	ctx := context.WithValue(context.Background(), key{}, "parent's")
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "t"}}
	got := testing.AllocsPerRun(100, func() {
		if r, err := h(ctx, req); err != nil || r != res {
			t.Fatal("the result changed")
		}
	})
	if got != 1 {
		t.Errorf("%v allocations, want 1", got)
	}
	if value != "parent's" {
		t.Errorf("the handler's context holds %v, want the parent's value", value)
	}
}
