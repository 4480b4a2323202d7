package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// maxWidening is the most bytes of compact JSON that widening may add to a
// tool's definition: its output schema grows by a small second branch.
const maxWidening = 160

// TestToolsListCost measures what tools/list costs an agent's context, as
// the bytes of compact JSON of the tools a reference server lists, DIRECT
// and THROUGH the proxy, read off the wire: through the proxy, a tool
// without an output schema must be listed byte for byte as the server lists
// it, a tool with one at most maxWidening bytes longer, and the proxy adds
// its extraction tools (measured here, whatever their size). So the whole
// list stays within direct + extraction tools + maxWidening per tool with
// an output schema.
func TestToolsListCost(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("node"); err != nil {
		skipOrFail(t, "node is not installed; the interop test needs Node.js 20 or later")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	proxy := build(ctx, t, proxyPackage(t))
	root := planRoot(t)
	servers := []struct {
		name string
		argv []string // the server's program in node_modules/.bin and its arguments
	}{
		{"filesystem", []string{"mcp-server-filesystem", root}},
		{"everything", []string{"mcp-server-everything"}},
	}
	for _, s := range servers {
		t.Run(s.name, func(t *testing.T) {
			bin, err := filepath.Abs(filepath.Join("node_modules", ".bin", s.argv[0]))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(bin); err != nil {
				skipOrFail(t, s.argv[0]+" is not installed: run npm ci --prefix lro/internal/testing/interop")
			}
			server := append([]string{bin}, s.argv[1:]...)
			direct := listToolsRaw(ctx, t, server)
			through := listToolsRaw(ctx, t, append([]string{proxy, "-output-dir", t.TempDir(), "--"}, server...))

			var directBytes, throughBytes, extraction, typed int
			byName := map[string][]byte{}
			for _, tool := range direct {
				directBytes += len(tool)
				byName[toolName(t, tool)] = tool
				if hasOutputSchema(t, tool) {
					typed++
				}
			}
			for _, tool := range through {
				throughBytes += len(tool)
				name := toolName(t, tool)
				d, ok := byName[name]
				switch {
				case slices.Contains(extractionTools, name):
					extraction += len(tool)
				case !ok:
					t.Errorf("the proxy lists %s, which the server does not", name)
				case !hasOutputSchema(t, d) && !bytes.Equal(d, tool):
					t.Errorf("%s has no output schema, yet the proxy lists it changed:\nDIRECT  %s\nTHROUGH %s", name, d, tool)
				case len(tool)-len(d) > maxWidening:
					t.Errorf("%s: widening its output schema adds %d bytes, want at most %d", name, len(tool)-len(d), maxWidening)
				}
			}
			t.Logf("tools/list of server-%s: %d tools (%d with an output schema), %d B DIRECT; %d tools, %d B THROUGH the proxy, of which %d B the extraction tools and %d B widening",
				s.name, len(direct), typed, directBytes, len(through), throughBytes, extraction, throughBytes-directBytes-extraction)
			if limit := directBytes + extraction + maxWidening*typed; throughBytes > limit {
				t.Errorf("tools/list THROUGH the proxy is %d B, above %d B (DIRECT %d B + extraction tools %d B + %d B for each of %d output schemas)",
					throughBytes, limit, directBytes, extraction, maxWidening, typed)
			}
		})
	}
}

// listToolsRaw starts argv, speaks MCP to it on stdio as a plain JSON-RPC
// peer (so that nothing decodes and encodes the tools again) and returns
// the tools it lists, each as compact JSON.
func listToolsRaw(ctx context.Context, t *testing.T, argv []string) []json.RawMessage {
	t.Helper()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.WaitDelay = 10 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		cmd.Wait()
	}()
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 64<<20)
	send := func(msg string) {
		if _, err := io.WriteString(stdin, msg+"\n"); err != nil {
			t.Fatalf("%s: %v\n%s", argv[0], err, stderr.Bytes())
		}
	}
	// receive returns the result of the response with id, past any
	// notification or request of the server.
	receive := func(id int) json.RawMessage {
		for lines.Scan() {
			var m struct {
				ID     *int            `json:"id"`
				Method string          `json:"method"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(lines.Bytes(), &m); err != nil {
				t.Fatalf("%s: %v: %.300s", argv[0], err, lines.Bytes())
			}
			if m.Method != "" || m.ID == nil || *m.ID != id {
				continue
			}
			if m.Error != nil {
				t.Fatalf("%s: error %s", argv[0], m.Error)
			}
			return bytes.Clone(m.Result)
		}
		t.Fatalf("%s: no response %d: %v\n%s", argv[0], id, lines.Err(), stderr.Bytes())
		return nil
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"lro-go-cost","version":"0.0.0"}}}`)
	receive(1)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`)
	var res struct {
		Tools      []json.RawMessage `json:"tools"`
		NextCursor string            `json:"nextCursor"`
	}
	if err := json.Unmarshal(receive(2), &res); err != nil {
		t.Fatal(err)
	}
	if res.NextCursor != "" {
		t.Fatalf("%s lists its tools in pages", argv[0])
	}
	for i, tool := range res.Tools {
		var b bytes.Buffer
		if err := json.Compact(&b, tool); err != nil {
			t.Fatal(err)
		}
		res.Tools[i] = b.Bytes()
	}
	return res.Tools
}

// toolName returns the name of tool, a tool's JSON.
func toolName(t *testing.T, tool []byte) string {
	t.Helper()
	var v struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(tool, &v); err != nil || strings.TrimSpace(v.Name) == "" {
		t.Fatalf("a tool without a name: %.200s (%v)", tool, err)
	}
	return v.Name
}

// hasOutputSchema reports whether tool, a tool's JSON, has an output schema.
func hasOutputSchema(t *testing.T, tool []byte) bool {
	t.Helper()
	var v struct {
		OutputSchema json.RawMessage `json:"outputSchema"`
	}
	if err := json.Unmarshal(tool, &v); err != nil {
		t.Fatal(err)
	}
	return len(v.OutputSchema) > 0 && string(v.OutputSchema) != "null"
}
