package interop

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestProxyAnswersAfterInputEnds runs lro-proxy in front of the reference
// filesystem server as `printf ... | lro-proxy -- server` does: the client
// writes its requests and closes its input at once. As the server answers
// every request in that case, the proxy must too, the initialize's and an
// offloaded call's included, before it exits.
func TestProxyAnswersAfterInputEnds(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("node"); err != nil {
		skipOrFail(t, "node is not installed; the interop test needs Node.js 20 or later")
	}
	server, err := filepath.Abs(filepath.Join("node_modules", ".bin", "mcp-server-filesystem"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(server); err != nil {
		skipOrFail(t, "mcp-server-filesystem is not installed: run npm ci --prefix lro/internal/testing/interop")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a guard against a hang
	defer cancel()
	proxy := build(ctx, t, proxyPackage(t))
	root, outDir := t.TempDir(), t.TempDir()
	big := filepath.Join(root, "big.log")
	var text strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&text, "line %d of a log that is long enough to be offloaded\n", i)
	}
	if err := os.WriteFile(big, []byte(text.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	call, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 3, "method": "tools/call",
		"params": map[string]any{"name": "read_text_file", "arguments": map[string]any{"path": big}}})
	input := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"script","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		string(call),
		`{"jsonrpc":"2.0","id":4,"method":"ping"}`,
	}, "\n") + "\n"
	cmd := exec.CommandContext(ctx, proxy, "-output-dir", outDir, "--", server, root)
	var stdout, stderr bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = strings.NewReader(input), &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("lro-proxy: %v\n%s", err, stderr.String())
	}
	got := map[float64]string{}
	sc := bufio.NewScanner(&stdout)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var msg struct {
			ID     *float64        `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil {
			t.Fatalf("lro-proxy wrote %q: %v", sc.Text(), err)
		}
		switch {
		case msg.ID == nil || msg.Method != "":
			continue // a message of the server's own
		case msg.Error != nil:
			got[*msg.ID] = "error: " + string(msg.Error)
		case *msg.ID == 3:
			got[*msg.ID] = "inline"
			if bytes.Contains(msg.Result, []byte(`\"offloaded\":true`)) {
				got[*msg.ID] = "offloaded"
			}
		default:
			got[*msg.ID] = "ok"
		}
	}
	want := map[float64]string{1: "ok", 2: "ok", 3: "offloaded", 4: "ok"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("answers (-want +got):\n%s\nlro-proxy's log:\n%s", diff, stderr.String())
	}
}
