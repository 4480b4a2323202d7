package lro_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/extract"
)

// TestExtractTools registers the extraction tools of package extract next
// to an offloading tool over the same folder, with ExtractTools set: the
// descriptor's guidance points to lro_extract, and lro_extract answers on
// the offloaded file.
func TestExtractTools(t *testing.T) {
	opts := &lro.Options{OutputDir: t.TempDir(), ExtractTools: true}
	s := newServer()
	if err := extract.AddTools(s, &extract.Options{LRO: &lro.Options{OutputDir: opts.OutputDir}}); err != nil {
		t.Fatal(err)
	}
	s.AddTool(&mcp.Tool{Name: "items", InputSchema: rawInputSchema}, lro.Wrap(textHandler(300), opts))
	cs := connect(t, s)
	ctx := context.Background()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "items"})
	if err != nil {
		t.Fatal(err)
	}
	d := descriptorOf(t, res)
	if !strings.Contains(d.Guidance, "lro_extract(file_path=") || !strings.Contains(d.Guidance, d.FilePath) {
		t.Errorf("guidance does not point to lro_extract on the file:\n%s", d.Guidance)
	}
	if len(d.JqRecipes) != 10 {
		t.Errorf("%d jq recipes, want 10 for shell users", len(d.JqRecipes))
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "lro_extract", Arguments: map[string]any{
		"file_path": d.FilePath,
		"query":     `select(.category == "books") | .id`,
	}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Fatalf("lro_extract: %v", res.Content[0].(*mcp.TextContent).Text)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(res.Content[0].(*mcp.TextContent).Text), "\n") {
		var id string
		if err := json.Unmarshal([]byte(line), &id); err != nil {
			t.Fatalf("line %q: %v", line, err)
		}
		got = append(got, id)
	}
	var want []string
	for _, it := range makeItems(300) {
		if it.Category == "books" {
			want = append(want, it.ID)
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("lro_extract gave %d ids, want %d: %v", len(got), len(want), got)
	}

	// Without ExtractTools the guidance is the shell template.
	plain := lro.Wrap(textHandler(300), &lro.Options{OutputDir: opts.OutputDir})
	res, err = plain(ctx, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "items"}})
	if err != nil {
		t.Fatal(err)
	}
	if g := descriptorOf(t, res).Guidance; strings.Contains(g, "lro_extract") {
		t.Errorf("shell guidance mentions lro_extract:\n%s", g)
	}
}
