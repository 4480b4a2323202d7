package lro_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/disk"
	"github.com/zircote/lro-go/internal/spec"
	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/extract"
	"github.com/zircote/lro-go/lro/lrotest"
)

// TestClientDir serves a tool whose output folder the client reaches by
// another path, as a host reaches a container's bind mount: here a symbolic
// link. Through a go-sdk client, the descriptor names the file in the
// client's folder everywhere (file_path, every recipe, the guidance, the
// command that prints the parts kept beside the records), the file is in the
// server's folder, and the recipes, run as the client would, read it.
func TestClientDir(t *testing.T) {
	serverDir := filepath.Join(t.TempDir(), "server")
	if err := os.Mkdir(serverDir, 0o700); err != nil {
		t.Fatal(err)
	}
	clientDir := filepath.Join(t.TempDir(), "mount")
	if err := os.Symlink(serverDir, clientDir); err != nil {
		t.Fatal(err)
	}
	opts := &lro.Options{OutputDir: serverDir, ClientDir: filepath.ToSlash(clientDir)}
	s := newServer()
	s.AddTool(&mcp.Tool{Name: "items", InputSchema: rawInputSchema}, lro.Wrap(func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		data, _ := json.Marshal(map[string]any{"total": 300, "items": makeItems(300)})
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(data)}}}, nil
	}, opts))
	cs := connect(t, s)

	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "items"})
	if err != nil {
		t.Fatal(err)
	}
	d := descriptorOf(t, res)
	if filepath.Dir(d.FilePath) != clientDir {
		t.Fatalf("file_path %s is not in the client's folder %s", d.FilePath, clientDir)
	}
	base := filepath.Base(d.FilePath)
	if _, _, ok := disk.ParseName(base, spec.DefaultPrefix); !ok {
		t.Errorf("file name %s is not {prefix}-{operation}-{ulid}.jsonl", base)
	}
	if _, err := os.Lstat(filepath.Join(serverDir, base)); err != nil {
		t.Errorf("the file is not in the server's folder: %v", err)
	}
	texts := []string{d.Guidance}
	for _, r := range d.JqRecipes {
		texts = append(texts, r.Command)
	}
	if d.Beside == nil {
		t.Fatal("no beside: the result's total is not mentioned")
	}
	texts = append(texts, d.Beside.Command)
	for _, text := range texts {
		if !strings.Contains(text, d.FilePath) || strings.Contains(text, serverDir) {
			t.Errorf("%q does not name the file in the client's folder only", text)
		}
	}

	// The conformance kit reads the file at file_path and runs every recipe
	// on it, as a client would.
	lrotest.Run(t, cs, &lrotest.Config{Tool: "items", Large: map[string]any{}, Level: 2})
}

// TestClientDirExtractTools: with the extraction tools, which read the
// server's folder, the native guidance gives lro_extract the bare file name,
// which it resolves there; the descriptor's file_path stays the client's.
func TestClientDirExtractTools(t *testing.T) {
	serverDir := t.TempDir()
	opts := &lro.Options{OutputDir: serverDir, ClientDir: "/host/lro", ExtractTools: true}
	s := newServer()
	if err := extract.AddTools(s, &extract.Options{LRO: &lro.Options{OutputDir: serverDir}}); err != nil {
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
	base := filepath.Base(d.FilePath)
	if d.FilePath != "/host/lro/"+base {
		t.Errorf("file_path = %s, want it in /host/lro", d.FilePath)
	}
	m := regexp.MustCompile(`lro_extract\(file_path="([^"]*)", recipe=([0-9]+)\)`).FindStringSubmatch(d.Guidance)
	if m == nil || m[1] != base {
		t.Fatalf("the guidance's browse call does not name the bare file %s:\n%s", base, d.Guidance)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "lro_extract", Arguments: map[string]any{"file_path": m[1], "recipe": json.Number(m[2])}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError {
		t.Errorf("lro_extract as the guidance writes it: %v", res.Content[0].(*mcp.TextContent).Text)
	}
}

// TestAlways offloads every result of a tool marked Always (in Tools, or in
// its own Options), however small, and leaves the other tools' small results
// inline.
func TestAlways(t *testing.T) {
	dir := t.TempDir()
	opts := &lro.Options{OutputDir: dir, Tools: map[string]lro.Options{"export": {Always: true}}}
	s := newServer()
	s.AddTool(&mcp.Tool{Name: "export", InputSchema: rawInputSchema}, lro.Wrap(textHandler(2), opts))
	s.AddTool(&mcp.Tool{Name: "items", InputSchema: rawInputSchema}, lro.Wrap(textHandler(2), opts))
	s.AddTool(&mcp.Tool{Name: "failing", InputSchema: rawInputSchema}, lro.Wrap(func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		r := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "no such export"}}}
		r.SetError(errors.New("no such export"))
		return r, nil
	}, &lro.Options{OutputDir: dir, Tools: map[string]lro.Options{"failing": {Always: true}}}))
	s.AddTool(&mcp.Tool{Name: "dump", InputSchema: rawInputSchema}, lro.Wrap(textHandler(2), &lro.Options{OutputDir: dir, Always: true}))
	cs := connect(t, s)
	ctx := context.Background()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "dump"})
	if err != nil {
		t.Fatal(err)
	}
	descriptorOf(t, res) // fails the test if the result is not offloaded

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "export"})
	if err != nil {
		t.Fatal(err)
	}
	d := descriptorOf(t, res)
	_, lines, err := jsonl.ReadFile(filepath.Join(dir, filepath.Base(d.FilePath)))
	if err != nil || len(lines) != 2 {
		t.Errorf("the file holds %d records (%v), want the 2 items", len(lines), err)
	}
	// A result this small is smaller than its descriptor: the guidance
	// claims no saving.
	if strings.Contains(d.Guidance, "saved") {
		t.Errorf("the guidance of a tiny result claims a saving:\n%s", d.Guidance)
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "items"})
	if err != nil {
		t.Fatal(err)
	}
	if text := res.Content[0].(*mcp.TextContent).Text; strings.Contains(text, `"offloaded"`) {
		t.Errorf("a tool without Always offloaded a small result: %.200s", text)
	}

	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "failing"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.IsError || strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"offloaded"`) {
		t.Errorf("an error result was offloaded or altered: %+v", res.Content)
	}
}

func TestInvalidClientDir(t *testing.T) {
	for _, dir := range []string{"lro", "./lro", "/host/../lro", "/host/lro/", "/host/l\nro", "/host/\x00"} {
		err := (&lro.Options{ClientDir: dir}).Validate()
		if !errors.Is(err, lro.ErrInvalidOption) || !strings.Contains(err.Error(), "ClientDir") {
			t.Errorf("ClientDir %q: Validate() = %v, want ErrInvalidOption naming ClientDir", dir, err)
		}
	}
	for _, dir := range []string{"", "/", "/host/lro", "/Users/me/Library/lro files"} {
		if err := (&lro.Options{ClientDir: dir}).Validate(); err != nil {
			t.Errorf("ClientDir %q: %v", dir, err)
		}
	}
}
