package extract_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zircote/lro-go/lro"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/testing/gobuild"
	"github.com/zircote/lro-go/internal/testing/s3test"
	"github.com/zircote/lro-go/lro/extract"
)

// serverEnv makes the test binary serve the extraction tools over stdio,
// for TestStdio: the folder is the variable's value.
const serverEnv = "LRO_EXTRACT_TEST_SERVER"

func TestMain(m *testing.M) {
	extract.RunWorker()
	if dir := os.Getenv(serverEnv); dir != "" {
		server := mcp.NewServer(&mcp.Implementation{Name: "extract-stdio", Version: "1.0"}, nil)
		if err := extract.AddTools(server, &extract.Options{LRO: &lro.Options{OutputDir: dir}, Timeout: 2 * time.Second}); err != nil {
			os.Exit(2)
		}
		if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	// The tests start this race-built binary again (a stdio server, a
	// test run as another user) and end it.
	gobuild.NoRaceExitPause()
	s3test.Setenv()
	code := m.Run()
	s3test.Stop()
	builtServer.Remove()
	os.Exit(code)
}

// TestStdio drives the tools in a separate server process over stdio, as a
// client application does.
func TestStdio(t *testing.T) {
	dir := t.TempDir()
	path := offload(t, dir, "full", memories(20, "full"))
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), serverEnv+"="+dir)
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	var names []string
	for tool, err := range cs.Tools(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
		if tool.Name == extract.ToolExtract {
			b, _ := json.Marshal(tool.InputSchema)
			for _, want := range []string{`"recipe":{"maximum":10,"minimum":1`, `"handle":{"type":"string"}`, `"file_path":{"type":"string"}`} {
				if !strings.Contains(string(b), want) {
					t.Errorf("lro_extract schema lacks %s: %s", want, b)
				}
			}
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"lro_extract", "lro_read", "lro_search"}) {
		t.Errorf("tools %v", names)
	}
	for _, tc := range []struct {
		tool    string
		args    map[string]any
		isError bool
		want    string
	}{
		{extract.ToolExtract, map[string]any{"file_path": path, "recipe": 6}, false, `{"count":4,"namespace":"_episodic/sessions"}`},
		{extract.ToolExtract, map[string]any{"file_path": path, "query": "def f: f; f"}, true, "time limit"},
		// A value too large for the worker's memory, built in few steps:
		// stopped by the memory limit, or by the time limit on a machine
		// slow enough to reach it first: both are right.
		{extract.ToolExtract, map[string]any{"file_path": path, "query": `reduce range(30) as $i ("x"; . + .) | length`, "slurp": true}, true, "MaxMemoryBytes|time limit"},
		{extract.ToolRead, map[string]any{"file_path": path, "line": 3, "limit": 1}, false, `3: {"content":`},
		{extract.ToolSearch, map[string]any{"file_path": path, "pattern": "Decision 19:"}, false, `{"file_line":21,`},
		{extract.ToolExtract, map[string]any{"file_path": "/etc/passwd", "recipe": 1}, true, "outside the output folder"},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil {
			t.Fatalf("%s: %v", tc.tool, err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if res.IsError != tc.isError || !slices.ContainsFunc(strings.Split(tc.want, "|"), func(w string) bool { return strings.Contains(text, w) }) {
			t.Errorf("%s(%v): %v %.200q, want %v and %q", tc.tool, tc.args, res.IsError, text, tc.isError, tc.want)
		}
	}
	// go-sdk v1.8.0 cannot encode its answer to a resources/read of a
	// uri holding a control character, and ended the server: AddTools
	// refuses it first, and the server goes on.
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "lro://results/\x07"})
	var je *jsonrpc.Error
	if !errors.As(err, &je) || je.Code != jsonrpc.CodeInvalidParams || !strings.Contains(je.Message, "U+0007") {
		t.Errorf("resources/read of a uri holding BEL: %v, want an invalid-params error naming U+0007", err)
	}
	if err := cs.Ping(ctx, nil); err != nil {
		t.Errorf("the server does not answer after it: %v", err)
	}
}
