package extract_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/testing/realshapes"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/extract"
)

// TestEveryRecipeRuns: every recipe a descriptor offers runs through
// lro_extract on the file it describes, and an answer above the threshold
// is offloaded in turn, however many results it has (issue 32, item 6:
// recipe 10 of a 100,759-line text was refused for its 100,000 results).
// The files: a text of 100,759 lines, and every item of the corpus of real
// shapes.
func TestEveryRecipeRuns(t *testing.T) {
	const textLines = 100_759
	var b strings.Builder
	for i := range textLines {
		fmt.Fprintf(&b, "2026-01-01 12:%02d:%02d INFO worker %d handled request %d\n", i/60%60, i%60, i%7, i)
	}
	files := []struct {
		name   string
		result *mcp.CallToolResult
	}{{"text of 100,759 lines", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}}}
	items, err := realshapes.Items()
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		files = append(files, struct {
			name   string
			result *mcp.CallToolResult
		}{it.Name, it.Result})
	}
	dir := t.TempDir()
	opts := &lro.Options{OutputDir: dir, ThresholdTokens: 1} // every item is offloaded
	// The calls go to the example memory server, built without -race,
	// serving the extraction tools with these options and the test's
	// generous time limit: its workers run the 470 recipes (most of the
	// test's time, gojq's) several times faster than the test binary's,
	// which the race detector slows. The recipes that read every record at
	// once (jq -s) hold the text's 100,759 records: under the race
	// detector, which reserves address space several times over, more than
	// the default 512 MiB of MaxMemoryBytes, which stays at 4 GiB.
	cmd := exec.Command(buildServer(t), "-extract", "-records", "10", "-output-dir", dir, "-threshold", strconv.Itoa(opts.ThresholdTokens),
		"-extract-timeout", loadedTimeout.String(), "-extract-max-memory", strconv.Itoa(4<<10))
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "every-recipe", Version: "1.0"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	// The calls run at once, as many as the Workers: each is a worker
	// process, which the machine's processors share.
	var wg sync.WaitGroup
	for _, f := range files {
		d := offloadResult(t, opts, f.result)
		for i, r := range d.JqRecipes {
			wg.Go(func() {
				res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: extract.ToolExtract, Arguments: map[string]any{"file_path": d.FilePath, "recipe": i + 1}})
				switch {
				case err != nil:
					t.Errorf("%s, recipe %d (%s): %v", f.name, i+1, r.Description, err)
				case res.IsError || len(res.Content) == 0:
					t.Errorf("%s, recipe %d (%s): %.300v", f.name, i+1, r.Description, res.Content)
				case f.name == files[0].name && i+1 == 10:
					// Recipe 10 of the text prints every line: offloaded
					// in turn (the threshold is 1 token), whole.
					var answer offloadResponse
					if tc, ok := res.Content[len(res.Content)-1].(*mcp.TextContent); !ok || json.Unmarshal([]byte(tc.Text), &answer) != nil || answer.Summary.Count != textLines {
						t.Errorf("recipe 10 of the text: %.300v, want an offloaded answer of %d results", res.Content, textLines)
					}
				}
			})
		}
	}
	wg.Wait()
}

// offloadResult has lro.Wrap offload result with opts, and returns the
// descriptor.
func offloadResult(t *testing.T, opts *lro.Options, result *mcp.CallToolResult) offloadResponse {
	t.Helper()
	h := lro.Wrap(func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		cp := *result // the offloader rewrites the result in place
		return &cp, nil
	}, opts)
	res, err := h(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "t", Arguments: json.RawMessage("{}")}})
	if err != nil {
		t.Fatal(err)
	}
	var d offloadResponse
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || json.Unmarshal([]byte(tc.Text), &d) != nil || !d.Offloaded || len(d.JqRecipes) != 10 {
		t.Fatalf("not offloaded: %.300v", res.Content[0])
	}
	return d
}
