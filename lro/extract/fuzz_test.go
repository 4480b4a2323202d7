package extract

import (
	"context"
	"encoding/json"
	"github.com/zircote/lro-go/lro"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const fuzzSecret = "FUZZ-SECRET-77ab"

// FuzzExtract throws paths, queries and parameters at the three tools and
// checks that every call comes back as a tool result (no panic, which the
// handler would report as an internal error) and that nothing outside the
// output folder, or not offloaded, is ever read.
func FuzzExtract(f *testing.F) {
	root := f.TempDir()
	dir := filepath.Join(root, "out")
	if err := os.Mkdir(dir, 0o700); err != nil {
		f.Fatal(err)
	}
	good := writeFile(f, dir,
		map[string]any{"id": "1", "title": "Cache keys", "namespace": "_semantic/a", "memory_type": "semantic", "tags": []any{"x"}},
		map[string]any{"id": "2", "title": "Rotate", "namespace": "_procedural/b", "memory_type": "procedural"},
		"a string record", 42, []any{1, []any{2}},
	)
	outside := writeFile(f, root, map[string]any{"id": fuzzSecret, "title": fuzzSecret, "namespace": fuzzSecret, "memory_type": fuzzSecret})
	for _, p := range []string{filepath.Join(dir, "notes.txt"), filepath.Join(root, "plain.txt")} {
		if err := os.WriteFile(p, []byte(fuzzSecret), 0o600); err != nil {
			f.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(dir, filepath.Base(outside))); err != nil {
		f.Fatal(err)
	}
	c, err := newConfig(&Options{LRO: &lro.Options{OutputDir: dir}, Timeout: 300 * time.Millisecond, MaxMemoryBytes: 64 << 20, MaxOutputBytes: 1 << 20})
	if err != nil {
		f.Fatal(err)
	}
	handlers := map[string]mcp.ToolHandler{
		ToolExtract: c.handler(ToolExtract, c.extract),
		ToolRead:    c.handler(ToolRead, c.read),
		ToolSearch:  c.handler(ToolSearch, c.search),
	}
	for _, s := range []struct {
		path, query, name, value string
		recipe                   int
	}{
		{good, ".title", "", "", 0},
		{good, "", "namespace", `"_semantic"`, 2},
		{good, "", "keyword", "(", 3},
		{good, "$x | tojson", "x", `[[[[1]]]]`, 0},
		{outside, ".", "", "", 0},
		{filepath.Join(dir, "..", filepath.Base(outside)), ".", "", "", 0},
		{filepath.Join(dir, filepath.Base(outside)), ".", "", "", 0},
		{good + "\x00", ".", "", "", 0},
		{"../" + filepath.Base(outside), ".", "", "", 0},
		{good, `reduce range(70) as $i (0; [., .]) | tojson`, "", "", 0},
		{good, `"x" * $n`, "n", "1e12", 0},
		{good, `.[$n] = 1`, "n", "1e9", 0},
		{good, `input`, "", "", 0},
	} {
		f.Add(s.path, s.query, s.name, s.value, s.recipe, false, int64(2), int64(5))
	}
	f.Fuzz(func(t *testing.T, path, query, name, value string, recipe int, slurp bool, line, limit int64) {
		if len(query) > 2000 || len(value) > 2000 || len(path) > 4096 {
			return
		}
		var v any = value
		if json.Valid([]byte(value)) {
			v = json.RawMessage(value)
		}
		calls := map[string]map[string]any{
			ToolRead:   {"file_path": path, "line": line, "limit": limit, "char_offset": limit, "max_chars": line},
			ToolSearch: {"file_path": path, "pattern": query, "start_line": line, "max_results": limit},
		}
		args := map[string]any{"file_path": path}
		if recipe >= 1 && recipe <= 10 {
			args["recipe"] = recipe
		} else {
			args["query"] = query
			args["slurp"] = slurp
		}
		if name != "" {
			args["params"] = map[string]any{name: v}
		}
		calls[ToolExtract] = args
		for tool, a := range calls {
			raw, err := json.Marshal(a)
			if err != nil {
				return // invalid UTF-8 cannot be sent over JSON anyway
			}
			res, err := handlers[tool](context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: tool, Arguments: raw}})
			if err != nil || res == nil {
				t.Fatalf("%s(%s): protocol error %v", tool, raw, err)
			}
			for _, content := range res.Content {
				text := content.(*mcp.TextContent).Text
				if strings.Contains(text, "internal error") {
					t.Fatalf("%s(%s) panicked: %s", tool, raw, text)
				}
				if strings.Contains(text, fuzzSecret) && !strings.Contains(string(raw), fuzzSecret) {
					t.Fatalf("%s(%s) read outside the folder: %s", tool, raw, text)
				}
			}
		}
	})
}
