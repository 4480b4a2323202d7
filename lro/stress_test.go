package lro_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/event"
)

// stressIn names one call of the stress test.
type stressIn struct {
	Caller int    `json:"caller"`
	Seq    int    `json:"seq"`
	Query  string `json:"query"`
}

// stressThreshold keeps the records of one call few (and the test fast
// under -race) but above the threshold: at least stressMin items of about
// 135 bytes, some 34 tokens each.
const (
	stressThreshold = 500
	stressMin       = 20
)

// stressItems returns the records of one call: a count and IDs of its own,
// so that records of one call found in another's file are caught.
func stressItems(in stressIn) []item {
	items := makeItems(stressMin + (in.Caller*7+in.Seq*13)%20)
	for i := range items {
		items[i].ID = fmt.Sprintf("g%02d-c%02d-%04d", in.Caller, in.Seq, i)
	}
	return items
}

// TestConcurrentOffloads offloads from many client sessions at once through
// one server into one folder, with the three ways of wrapping a tool (Wrap,
// AddTool, Middleware). Under -race it checks for data races; in any case
// it checks that every call got its own complete file: no name collision,
// every file parses, its header count equals its lines and the descriptor's
// count, and its records are exactly those of the call.
func TestConcurrentOffloads(t *testing.T) {
	const (
		callers = 32
		calls   = 8
	)
	dir := t.TempDir()
	obs := &recorder{}
	opts := &lro.Options{OutputDir: dir, Observer: obs, ThresholdTokens: stressThreshold}

	s := newServer()
	s.AddTool(&mcp.Tool{Name: "raw", InputSchema: rawInputSchema}, lro.Wrap(
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in stressIn
			if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
				return nil, err
			}
			data, err := json.Marshal(stressItems(in))
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(data)}}}, nil
		}, opts))
	typed := func(ctx context.Context, req *mcp.CallToolRequest, in stressIn) (*mcp.CallToolResult, listOut, error) {
		return nil, listOut{Items: stressItems(in)}, nil
	}
	lro.AddTool(s, &mcp.Tool{Name: "typed"}, typed, opts)
	mcp.AddTool(s, &mcp.Tool{Name: "middleware"}, typed)
	s.AddReceivingMiddleware(lro.Middleware(opts, "middleware"))
	tools := []string{"raw", "typed", "middleware"}

	sessions := make([]*mcp.ClientSession, callers)
	for g := range sessions {
		sessions[g] = connect(t, s)
	}

	type outcome struct {
		in   stressIn
		tool string
		res  *mcp.CallToolResult
	}
	outcomes := make([]outcome, callers*calls)
	var wg sync.WaitGroup
	for g, cs := range sessions {
		wg.Go(func() {
			for k := range calls {
				in := stressIn{Caller: g, Seq: k, Query: fmt.Sprintf("caller %d call %d", g, k)}
				tool := tools[(g+k)%len(tools)]
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: in})
				if err != nil {
					t.Errorf("caller %d call %d (%s): %v", g, k, tool, err)
					continue
				}
				outcomes[g*calls+k] = outcome{in, tool, res}
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}

	paths := map[string]stressIn{}
	for _, o := range outcomes {
		name := fmt.Sprintf("caller %d call %d (%s)", o.in.Caller, o.in.Seq, o.tool)
		d := descriptorOf(t, o.res)
		if prev, dup := paths[d.FilePath]; dup {
			t.Errorf("%s: file %s already given to caller %d call %d", name, d.FilePath, prev.Caller, prev.Seq)
			continue
		}
		paths[d.FilePath] = o.in
		h, lines, err := jsonl.ReadFile(d.FilePath) // fails unless count == lines
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		want := stressItems(o.in)
		if h.Count != len(lines) || d.Summary.Count != len(lines) || len(lines) != len(want) {
			t.Errorf("%s: header count %d, %d lines, summary count %d, want %d", name, h.Count, len(lines), d.Summary.Count, len(want))
		}
		if h.Query == nil || *h.Query != o.in.Query {
			t.Errorf("%s: header query %v, want %q", name, h.Query, o.in.Query)
		}
		if h.Operation != o.tool {
			t.Errorf("%s: header operation %q", name, h.Operation)
		}
		if got := decodeItems(t, lines); !reflect.DeepEqual(want, got) {
			t.Errorf("%s: records (-want +got):\n%s", name, cmp.Diff(want, got))
		}
	}

	// The folder holds exactly these files: no temporary file, no strays.
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if _, ok := paths[filepath.Join(dir, e.Name())]; !ok {
			t.Errorf("folder holds %s, which no descriptor names", e.Name())
		}
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
	if len(entries) != callers*calls {
		t.Errorf("folder holds %d entries, want %d", len(entries), callers*calls)
	}

	// One Offloaded event per call, naming its file.
	events := obs.all()
	if len(events) != callers*calls {
		t.Errorf("%d events, want %d", len(events), callers*calls)
	}
	seen := map[string]bool{}
	for _, e := range events {
		off, ok := e.(event.Offloaded)
		if !ok {
			t.Errorf("event %T, want only Offloaded", e)
			continue
		}
		in, ok := paths[off.Path]
		if !ok || seen[off.Path] {
			t.Errorf("event for %s: unknown or repeated file", off.Path)
			continue
		}
		seen[off.Path] = true
		if want := len(stressItems(in)); off.Count != want {
			t.Errorf("event for %s: count %d, want %d", off.Path, off.Count, want)
		}
	}
}
