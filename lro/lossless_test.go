package lro_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/estimate"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/event"
	"github.com/zircote/lro-go/lro/internal/offload"
)

// The tests of this file drive a real go-sdk client against a server that
// offloads with each wrapping style, and check the promises of the offload
// core: nothing the tool returned is lost (the file rebuilds the result the
// client would have received without offloading), nothing over the threshold
// goes out, and nothing bypasses the estimate.

// A shape is a tool result as a handler returns it.
type shape struct {
	name       string
	texts      []string
	structured json.RawMessage // nil for none
}

func (s shape) result() *mcp.CallToolResult {
	res := &mcp.CallToolResult{}
	for _, t := range s.texts {
		res.Content = append(res.Content, &mcp.TextContent{Text: t})
	}
	if s.structured != nil {
		res.StructuredContent = s.structured
	}
	return res
}

// A style registers a handler of a shape on a server, with offloading.
type style struct {
	name     string
	register func(s *mcp.Server, name string, h mcp.ToolHandler, opts *lro.Options)
}

var rawStyles = []style{
	{"Wrap", func(s *mcp.Server, name string, h mcp.ToolHandler, opts *lro.Options) {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: rawInputSchema}, wrap(h, opts))
	}},
	{"Middleware", func(s *mcp.Server, name string, h mcp.ToolHandler, opts *lro.Options) {
		s.AddTool(&mcp.Tool{Name: name, InputSchema: rawInputSchema}, h)
		s.AddReceivingMiddleware(middleware(opts))
	}},
}

// callShape registers a tool returning sh with style st (or without
// offloading when st is nil) and calls it through a go-sdk client.
func callShape(t *testing.T, st *style, sh shape, opts *lro.Options) *mcp.CallToolResult {
	t.Helper()
	s := newServer()
	h := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return sh.result(), nil }
	if st == nil {
		s.AddTool(&mcp.Tool{Name: "t", InputSchema: rawInputSchema}, h)
	} else {
		st.register(s, "t", h, opts)
	}
	res, err := connect(t, s).CallTool(context.Background(), &mcp.CallToolParams{Name: "t", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// wire returns what the client received of res, {content, structuredContent},
// decoded into plain JSON values for comparison.
func wire(t *testing.T, res *mcp.CallToolResult) any {
	t.Helper()
	data, err := json.Marshal(struct {
		Content           []mcp.Content `json:"content"`
		StructuredContent any           `json:"structuredContent,omitempty"`
	}{res.Content, res.StructuredContent})
	if err != nil {
		t.Fatal(err)
	}
	return decodeJSON(t, data)
}

func decodeJSON(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%v: %.200s", err, data)
	}
	return v
}

// sentTokens is the estimate of everything a client received: every text
// item and the structured content.
func clientTokens(t *testing.T, res *mcp.CallToolResult) int {
	t.Helper()
	n := 0
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			n += estimate.Tokens(tc.Text)
		}
	}
	if res.StructuredContent != nil {
		data, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		n += estimate.Tokens(string(data))
	}
	return n
}

func records(n int, f func(i int) string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = f(i)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// losslessShapes are results shaped like real tools' that lost data before.
func losslessShapes() []shape {
	items := records(1000, func(i int) string { return fmt.Sprintf(`{"id":%d,"title":"item %d"}`, i, i) })
	page := `{"items":` + items + `,"total":987654,"next_offset":"CURSOR-XYZ"}`
	entities := records(300, func(i int) string {
		return fmt.Sprintf(`{"name":"entity-%d","entityType":"service","observations":["runs on host %d"]}`, i, i)
	})
	relations := records(400, func(i int) string {
		return fmt.Sprintf(`{"from":"entity-%d","to":"entity-%d","relationType":"calls"}`, i%300, (i+1)%300)
	})
	graph := `{"entities":` + entities + `,"relations":` + relations + `}`
	big := records(600, func(i int) string { return fmt.Sprintf(`{"n":%d,"big":1e400,"exact":12345678901234567890}`, i) })
	return []shape{
		{name: "page object with a total and a cursor, as text", texts: []string{page}},
		{name: "page object as structured content and its text", texts: []string{page}, structured: json.RawMessage(page)},
		{name: "two arrays (read_graph)", texts: []string{graph}},
		{name: "numbers float64 cannot hold, as text", texts: []string{big}},
		{name: "short text beside large structured content", texts: []string{"ok"}, structured: json.RawMessage(page)},
		{name: "small array beside a large field", texts: []string{`{"items":[1,2],"blob":"` + strings.Repeat("x", 1<<20) + `"}`}},
		{name: "plain text lines with a final newline", texts: []string{strings.Repeat("a line of text\r\n", 2000)}},
		{name: "several text items", texts: []string{"header text", items, "footer text"}},
	}
}

// TestNothingIsLost: for each shape and style, the result is offloaded, the
// descriptor shows the small values beside the records, and the file
// rebuilds exactly what the client receives without offloading.
func TestNothingIsLost(t *testing.T) {
	for _, sh := range losslessShapes() {
		want := wire(t, callShape(t, nil, sh, nil))
		for _, st := range rawStyles {
			t.Run(sh.name+"/"+st.name, func(t *testing.T) {
				opts := &lro.Options{OutputDir: t.TempDir()}
				res := callShape(t, &st, sh, opts)
				d := descriptorOf(t, res)
				_, lines, got := readOffloaded(t, d.FilePath)
				if diff := cmp.Diff(want, decodeJSON(t, got)); diff != "" {
					t.Errorf("rebuilt result (-want +got):\n%.2000s", diff)
				}
				if strings.Contains(sh.name, "cursor") {
					if d.Beside == nil || !bytes.Contains(d.Beside.Values, []byte(`987654`)) || !bytes.Contains(d.Beside.Values, []byte(`"CURSOR-XYZ"`)) {
						t.Errorf("descriptor does not show the total and cursor: %+v", d.Beside)
					}
				}
				if strings.Contains(sh.name, "read_graph") {
					// The larger array holds the records; the other is named.
					if d.Summary.Count != 400 || d.Beside == nil || len(d.Beside.Other) != 1 || !strings.Contains(d.Beside.Other[0], "entities: array of 300") {
						t.Errorf("read_graph: %d records, beside %+v", d.Summary.Count, d.Beside)
					}
				}
				if strings.Contains(sh.name, "float64") {
					if !bytes.Contains(lines[0], []byte(`"big":1e400,"exact":12345678901234567890`)) {
						t.Errorf("numbers rewritten: %s", lines[0])
					}
				}
			})
		}
	}
}

// TestTypedToolLossless is TestNothingIsLost for lro.AddTool, whose output
// is a page struct.
func TestTypedToolLossless(t *testing.T) {
	type page struct {
		Items      []item `json:"items"`
		Total      int    `json:"total"`
		NextOffset string `json:"next_offset"`
	}
	out := page{Items: makeItems(400), Total: 987654, NextOffset: "CURSOR-XYZ"}
	call := func(t *testing.T, opts *lro.Options) *mcp.CallToolResult {
		s := newServer()
		h := func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, page, error) {
			return nil, out, nil
		}
		lro.AddTool(s, &mcp.Tool{Name: "t"}, h, opts)
		res, err := connect(t, s).CallTool(context.Background(), &mcp.CallToolParams{Name: "t", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	// What the client receives from the same tool within the threshold.
	want := wire(t, call(t, &lro.Options{OutputDir: t.TempDir(), ThresholdTokens: 1 << 30}))
	res := call(t, &lro.Options{OutputDir: t.TempDir()})
	d := descriptorOf(t, res)
	h, lines, got := readOffloaded(t, d.FilePath)
	// The SDK writes a typed tool's text with its keys sorted; the file
	// gives it back in the structured content's order: compare the JSON.
	if diff := cmp.Diff(jsonTexts(t, want), jsonTexts(t, decodeJSON(t, got))); diff != "" {
		t.Errorf("rebuilt result (-want +got):\n%.2000s", diff)
	}
	if len(h.Copies) != 1 || len(lines) != 400 {
		t.Errorf("%d lines, copies %+v: want 400 records and the text as a copy of the structured content", len(lines), h.Copies)
	}
}

// TestEstimateCoversEverything: a result goes out inline only when
// everything the client receives is within the threshold.
func TestEstimateCoversEverything(t *testing.T) {
	small := shape{name: "small", texts: []string{`{"items":[1,2],"note":"short"}`}}
	for _, st := range rawStyles {
		t.Run(st.name, func(t *testing.T) {
			opts := &lro.Options{OutputDir: t.TempDir(), ThresholdTokens: 100}
			res := callShape(t, &st, small, opts)
			if sc, _ := json.Marshal(res.StructuredContent); bytes.Contains(sc, []byte(`"offloaded"`)) {
				t.Fatalf("a small result was offloaded")
			}
			// Text within the threshold, structured content above it.
			split := shape{texts: []string{strings.Repeat("t", 300)}, structured: json.RawMessage(`{"s":"` + strings.Repeat("s", 300) + `"}`)}
			res = callShape(t, &st, split, opts)
			descriptorOf(t, res)
		})
	}
}

// TestFallbackWithinThreshold: when the file cannot be written, everything
// the client receives is within the threshold, the warning's figures are
// those of what is shown, and no file is left.
func TestFallbackWithinThreshold(t *testing.T) {
	enospc := func(io.Writer) io.Writer { return failingWriter{} }
	for _, sh := range losslessShapes() {
		for _, st := range rawStyles {
			t.Run(sh.name+"/"+st.name, func(t *testing.T) {
				dir := t.TempDir()
				var obs recorder
				opts := hooked(&lro.Options{OutputDir: dir, ThresholdTokens: 1600, Observer: &obs}, lro.Hooks{WrapWriter: enospc})
				res := callShape(t, &st, sh, opts)
				if n := clientTokens(t, res); n > 1600 {
					t.Errorf("fallback sends ~%d tokens, above the threshold of 1600", n)
				}
				warning := res.Content[0].(*mcp.TextContent).Text
				events := obs.all()
				if len(events) != 1 {
					t.Fatalf("%d events", len(events))
				}
				e, ok := events[0].(event.WriteFailed)
				if !ok || !regexp.MustCompile(fmt.Sprintf(`showing [0-9]+ of %d records`, e.Count)).MatchString(warning) || !errors.Is(e.Err, syscall.ENOSPC) {
					t.Errorf("warning %q, event %+v", warning, events[0])
				}
				entries, err := os.ReadDir(dir)
				if err != nil {
					t.Fatal(err)
				}
				if len(entries) != 0 {
					t.Errorf("%d files left behind", len(entries))
				}
			})
		}
	}
}

// TestIncompleteResultsUntouched: a result that asks for more input is never
// offloaded or altered.
func TestIncompleteResultsUntouched(t *testing.T) {
	c := &offload.Config{Threshold: 10, Dir: t.TempDir(), Prefix: "atlatl", Tokenizer: offload.Heuristic{}, Now: time.Now}
	res := &mcp.CallToolResult{
		Content:       []mcp.Content{&mcp.TextContent{Text: strings.Repeat("x", 1000)}},
		InputRequests: mcp.InputRequestMap{},
	}
	if c.Apply(context.Background(), func() offload.Call { return offload.Call{Tool: "t"} }, res, nil, nil).Changed() {
		t.Errorf("an input_required result was altered")
	}
	if _, ok := res.Content[0].(*mcp.TextContent); !ok || len(res.Content) != 1 {
		t.Errorf("content changed: %+v", res.Content)
	}
}

// failingWriter fails every write as a full disk does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// jsonTexts returns the result v (decoded) with every text item that holds
// JSON replaced by its decoded value.
func jsonTexts(t *testing.T, v any) any {
	t.Helper()
	m, _ := v.(map[string]any)
	items, _ := m["content"].([]any)
	for _, it := range items {
		item, _ := it.(map[string]any)
		if text, ok := item["text"].(string); ok && json.Valid([]byte(text)) {
			item["text"] = decodeJSON(t, []byte(text))
		}
	}
	return v
}

// TestTypedToolAsTheSDK: lro.AddTool sends what mcp.AddTool sends: the zero
// value for a nil pointer output (not null, which no object schema
// accepts), and, for an output that is not an object beside the handler's
// own content, the SDK's extra text copy, which the threshold counts.
func TestTypedToolAsTheSDK(t *testing.T) {
	type page struct {
		Items []item `json:"items"`
	}
	s := newServer()
	lro.AddTool(s, &mcp.Tool{Name: "nil_page"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, *page, error) {
		return nil, nil, nil
	}, &lro.Options{OutputDir: t.TempDir()})
	res, err := connect(t, s).CallTool(context.Background(), &mcp.CallToolParams{Name: "nil_page", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	if sc, _ := json.Marshal(res.StructuredContent); string(sc) != `{"items":null}` {
		t.Errorf("structured content %s, want the zero page", sc)
	}

	// Eight items: about 450 tokens as structured content, twice that
	// with the SDK's text copy of an array, beside a short summary.
	items := makeItems(8)
	list := func(threshold int) *mcp.CallToolResult {
		s := newServer()
		lro.AddTool(s, &mcp.Tool{Name: "list"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, []item, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "eight items"}}}, items, nil
		}, &lro.Options{OutputDir: t.TempDir(), ThresholdTokens: threshold})
		res, err := connect(t, s).CallTool(context.Background(), &mcp.CallToolParams{Name: "list", Arguments: map[string]any{}})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	inline := list(1 << 20)
	sent := clientTokens(t, inline)
	data, _ := json.Marshal(items)
	if once := estimate.Tokens("eight items") + estimate.Tokens(string(data)); sent < 2*once-estimate.Tokens("eight items") {
		t.Fatalf("the client received ~%d tokens: no text copy beside the structured content?", sent)
	}
	// A threshold between what the client receives and what it would be
	// without the copy: the result must be offloaded.
	if res := list(sent - 1); !strings.Contains(fmt.Sprint(res.StructuredContent), "offloaded:true") {
		t.Errorf("a result of ~%d tokens went out inline above a threshold of %d", sent, sent-1)
	}
}
