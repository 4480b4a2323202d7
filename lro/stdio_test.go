package lro_test

import (
	"context"
	"encoding/json"
	"log"
	"os"
	"os/exec"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/testing/gobuild"
	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/extract"
)

// serverEnv makes the test binary act as a stdio MCP server (see TestMain),
// so the end-to-end test drives a real subprocess over a real transport.
const serverEnv = "LRO_TEST_STDIO_SERVER_DIR"

func TestMain(m *testing.M) {
	extract.RunWorker() // for the extraction tools of extract_test.go
	if dir := os.Getenv(serverEnv); dir != "" {
		serveStdio(dir)
		return
	}
	// The tests start this race-built binary again (a stdio server, a
	// test run as another user) and end it.
	gobuild.NoRaceExitPause()
	os.Exit(m.Run())
}

func serveStdio(dir string) {
	s := newServer()
	lro.AddTool(s, &mcp.Tool{Name: "list_items", Description: "Lists items."},
		func(ctx context.Context, req *mcp.CallToolRequest, in listIn) (*mcp.CallToolResult, listOut, error) {
			return nil, listOut{Items: makeItems(in.Count)}, nil
		}, &lro.Options{OutputDir: dir, Operation: "list"})
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}

func TestStdioSubprocess(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), serverEnv+"="+dir)
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "stdio-client", Version: "v0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	inline, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_items", Arguments: map[string]any{"count": 3}})
	if err != nil {
		t.Fatal(err)
	}
	var out listOut
	data, _ := json.Marshal(inline.StructuredContent)
	if err := json.Unmarshal(data, &out); err != nil || len(out.Items) != 3 {
		t.Fatalf("inline result %s: %v", data, err)
	}

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_items", Arguments: map[string]any{"count": 250}})
	if err != nil {
		t.Fatal(err)
	}
	d := descriptorOf(t, res)
	_, lines, err := jsonl.ReadFile(d.FilePath)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(makeItems(250), decodeItems(t, lines)); diff != "" {
		t.Errorf("records in the file (-want +got):\n%s", diff)
	}
}
