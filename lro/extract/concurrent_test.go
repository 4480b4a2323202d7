package extract_test

import (
	"github.com/zircote/lro-go/lro"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro/extract"
)

// TestConcurrentCalls runs the three tools at once, with queries that are
// stopped among them (on a second server over the same folder): each
// answers as it does alone.
func TestConcurrentCalls(t *testing.T) {
	dir := t.TempDir()
	path := offload(t, dir, "full", memories(300, "full"))
	cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir}, Timeout: time.Minute})
	strict := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir}, Timeout: time.Second})
	want := map[string]string{}
	calls := map[string]struct {
		tool string
		args map[string]any
	}{
		"recipe":  {extract.ToolExtract, map[string]any{"file_path": path, "recipe": 6}},
		"query":   {extract.ToolExtract, map[string]any{"file_path": path, "query": "select(.memory_type == \"episodic\") | .id"}},
		"offload": {extract.ToolExtract, map[string]any{"file_path": path, "recipe": 8}},
		"read":    {extract.ToolRead, map[string]any{"file_path": path, "line": 100, "limit": 3}},
		"search":  {extract.ToolSearch, map[string]any{"file_path": path, "pattern": "Decision 29[0-9]:"}},
	}
	for name, c := range calls {
		texts, isErr := call(t, cs, c.tool, c.args)
		if isErr {
			t.Fatalf("%s: %q", name, texts)
		}
		want[name] = texts[0]
	}
	var wg sync.WaitGroup
	for range 4 {
		for name, c := range calls {
			wg.Go(func() {
				texts, isErr := call(t, cs, c.tool, c.args)
				if isErr {
					t.Errorf("%s: %q", name, texts)
					return
				}
				if name == "offload" {
					// Each call writes its own file.
					if !strings.Contains(texts[0], "written to a new offloaded file") {
						t.Errorf("offload: %q", texts[0])
					}
					return
				}
				if texts[0] != want[name] {
					t.Errorf("%s answered %.200q concurrently, %.200q alone", name, texts[0], want[name])
				}
			})
		}
		wg.Go(func() {
			texts, isErr := call(t, strict, extract.ToolExtract, map[string]any{"file_path": path, "query": "def f: f; f"})
			if !isErr || !strings.Contains(texts[0], "time limit") {
				t.Errorf("endless query: %v %q", isErr, texts)
			}
		})
	}
	wg.Wait()
}

func TestAddToolsRejectsInvalidOptions(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "s", Version: "1"}, nil)
	if err := extract.AddTools(server, &extract.Options{MaxRecordBytes: -1}); err == nil || !strings.Contains(err.Error(), "MaxRecordBytes") {
		t.Errorf("AddTools = %v, want an error naming MaxRecordBytes", err)
	}
}

// TestOptionsCopied: changing the options after AddTools changes nothing.
func TestOptionsCopied(t *testing.T) {
	dir := t.TempDir()
	path := offload(t, dir, "light", memories(3, "light"))
	opts := &extract.Options{LRO: &lro.Options{OutputDir: dir}}
	cs := session(t, opts)
	opts.LRO.OutputDir = t.TempDir()
	opts.MaxOutputBytes = 1
	texts, isErr := call(t, cs, extract.ToolExtract, map[string]any{"file_path": path, "query": ".id"})
	if isErr || len(lines(texts[0])) != 3 {
		t.Errorf("%v %q", isErr, texts)
	}
}
