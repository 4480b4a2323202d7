package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/outschema"
	"github.com/zircote/lro-go/internal/proxyflag"
	"github.com/zircote/lro-go/internal/testing/wire"
)

// The end-to-end tests build this program and drive it with the go-sdk
// client over stdio, in front of the example memory server (over HTTP and
// over stdio) and of the official reference servers from npm.

var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "lro-proxy-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var (
	buildMu sync.Mutex
	built   = map[string]string{}
)

// binary builds the package pkg (relative to this folder) once per test run.
func binary(t *testing.T, pkg string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds binaries")
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	if bin, ok := built[pkg]; ok {
		return bin
	}
	name := filepath.Base(pkg)
	if pkg == "." {
		name = "lro-proxy"
	}
	bin := filepath.Join(binDir, name)
	out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
	built[pkg] = bin
	return bin
}

// skipOrFail skips the test on a developer machine that lacks a
// prerequisite, and fails it in CI (CI is set), where it must be present.
func skipOrFail(t *testing.T, msg string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// npmServer returns the path of a reference server installed by
// npm ci --prefix lro/internal/testing/interop.
func npmServer(t *testing.T, name string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		skipOrFail(t, "node is not installed; the reference servers need Node.js 20 or later")
	}
	path, err := filepath.Abs(filepath.Join("..", "..", "lro", "internal", "testing", "interop", "node_modules", ".bin", name))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		skipOrFail(t, name+" is not installed: run npm ci --prefix lro/internal/testing/interop")
	}
	return path
}

// lockedBuffer is a bytes.Buffer safe for the writes of a child process and
// the reads of the test.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// connect starts cmd and connects the go-sdk client to it over stdio.
func connect(t *testing.T, cmd *exec.Cmd, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v0"}, opts).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connecting to %s: %v\nstderr:\n%s", cmd.Path, err, stderr.String())
	}
	t.Cleanup(func() {
		cs.Close()
		if t.Failed() {
			t.Logf("stderr of %s:\n%s", filepath.Base(cmd.Path), stderr.String())
		}
	})
	return cs
}

// startProxy runs the proxy with args and returns a client session to it.
func startProxy(t *testing.T, args ...string) *mcp.ClientSession {
	t.Helper()
	return connect(t, exec.Command(binary(t, "."), args...), nil)
}

// proxyClient is a direct client that identifies as an LRO proxy, to see
// what the proxy receives.
func proxyClient() *mcp.ClientOptions {
	caps := &mcp.ClientCapabilities{}
	caps.AddExtension(proxyflag.Key, proxyflag.Settings())
	return &mcp.ClientOptions{Capabilities: caps}
}

func callTool(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s %v: %v", tool, args, err)
	}
	return res
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// offloaded returns the descriptor of res, or nil when res is inline.
func offloaded(res *mcp.CallToolResult) *offloadResponse {
	// The descriptor is the first content; a second one may hold the
	// result's fields besides the records.
	if res.IsError || len(res.Content) == 0 {
		return nil
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	var d offloadResponse
	if !ok || json.Unmarshal([]byte(tc.Text), &d) != nil || !d.Offloaded {
		return nil
	}
	return &d
}

func mustOffload(t *testing.T, res *mcp.CallToolResult, dir string) *offloadResponse {
	t.Helper()
	d := offloaded(res)
	if d == nil {
		t.Fatalf("not offloaded: isError %v, %.300s", res.IsError, text(res))
	}
	if filepath.Dir(d.FilePath) != dir {
		t.Errorf("file %s is not in the proxy's folder %s", d.FilePath, dir)
	}
	if len(d.JqRecipes) != 10 {
		t.Errorf("%d jq recipes, want 10", len(d.JqRecipes))
	}
	return d
}

// fileRecords returns the record lines of an offloaded file.
func fileRecords(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if !strings.Contains(lines[0], `"lro_header"`) {
		t.Fatalf("%s: no header line", path)
	}
	return lines[1:]
}

// elements returns the compact encodings of the elements of the JSON array
// doc, or of the array field of the object doc.
func elements(t *testing.T, doc, field string) []string {
	t.Helper()
	var raw []json.RawMessage
	if field != "" {
		var obj map[string]json.RawMessage
		if err := json.Unmarshal([]byte(doc), &obj); err != nil {
			t.Fatalf("%v: %.200s", err, doc)
		}
		doc = string(obj[field])
	}
	if err := json.Unmarshal([]byte(doc), &raw); err != nil {
		t.Fatalf("%v: %.200s", err, doc)
	}
	out := make([]string, len(raw))
	for i, r := range raw {
		var b bytes.Buffer
		if err := json.Compact(&b, r); err != nil {
			t.Fatal(err)
		}
		out[i] = b.String()
	}
	return out
}

// lineRecords are the records of a plain-text result.
func lineRecords(t *testing.T, text string) []string {
	t.Helper()
	var out []string
	for i, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		data, err := json.Marshal(struct {
			Line int    `json:"line"`
			Text string `json:"text"`
		}{i + 1, strings.TrimSuffix(l, "\r")})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(data))
	}
	return out
}

// runRecipes runs each jq recipe of d with sh and fails on any error.
func runRecipes(t *testing.T, d *offloadResponse) {
	t.Helper()
	if _, err := exec.LookPath("jq"); err != nil {
		skipOrFail(t, "jq is not installed")
	}
	for i, r := range d.JqRecipes {
		out, err := exec.Command("sh", "-c", r.Command).CombinedOutput()
		if err != nil {
			t.Errorf("recipe %d %q: %v\n%s", i+1, r.Command, err, out)
		}
	}
}

func emptyDir(t *testing.T, dir string) {
	t.Helper()
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		t.Errorf("%s holds %d files; the upstream should have returned its results inline to the proxy", dir, len(entries))
	}
}

// memoryHTTP runs the example memory server over HTTP at addr
// ("127.0.0.1:0" for any port) and returns its URL and a stop function.
func memoryHTTP(t *testing.T, addr, outDir string) (string, func()) {
	t.Helper()
	cmd := exec.Command(binary(t, "../memory"), "-http", addr, "-output-dir", outDir)
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := func() {
		cmd.Process.Kill()
		cmd.Wait()
		pw.Close()
	}
	t.Cleanup(stop)
	found := make(chan string, 1)
	var log lockedBuffer
	go func() {
		re := regexp.MustCompile(`mcp=(http://\S+/mcp)`)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			log.Write(append(sc.Bytes(), '\n'))
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case url := <-found:
		return url, stop
	case <-time.After(30 * time.Second):
		t.Fatalf("the memory server did not start serving HTTP:\n%s", log.String())
		return "", nil
	}
}

// TestMemoryServer puts the proxy in front of the example memory server,
// over HTTP and over stdio: the server, seeing a proxy, returns its full
// results inline, and the proxy offloads them into its own folder.
func TestMemoryServer(t *testing.T) {
	memory := binary(t, "../memory")
	runs := []struct {
		name     string
		upstream func(t *testing.T, memDir string) (proxyArgs []string, direct *mcp.ClientSession)
	}{
		{"http", func(t *testing.T, memDir string) ([]string, *mcp.ClientSession) {
			url, _ := memoryHTTP(t, "127.0.0.1:0", memDir)
			ctx := context.Background()
			direct, err := mcp.NewClient(&mcp.Implementation{Name: "direct", Version: "v0"}, proxyClient()).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { direct.Close() })
			return []string{"-url", url}, direct
		}},
		{"stdio", func(t *testing.T, memDir string) ([]string, *mcp.ClientSession) {
			return []string{"--", memory, "-output-dir", memDir}, connect(t, exec.Command(memory, "-output-dir", t.TempDir()), proxyClient())
		}},
	}
	for _, run := range runs {
		t.Run(run.name, func(t *testing.T) {
			memDir, dir := t.TempDir(), t.TempDir()
			args, direct := run.upstream(t, memDir)
			cs := startProxy(t, append([]string{"-output-dir", dir}, args...)...)

			args300 := map[string]any{"query": "semantic", "limit": 300, "detail": "full"}
			d := mustOffload(t, callTool(t, cs, "recall_memories", args300), dir)
			want := elements(t, text(callTool(t, direct, "recall_memories", args300)), "memories")
			if diff := cmp.Diff(want, fileRecords(t, d.FilePath)); diff != "" {
				t.Errorf("records in the proxy's file differ from the memories the server returns (-want +got):\n%s", diff)
			}
			if d.Summary.Count != len(want) || d.Summary.Detail != "full" {
				t.Errorf("summary count %d, detail %q; want %d, full", d.Summary.Count, d.Summary.Detail, len(want))
			}
			if !strings.Contains(d.Guidance, "memories") {
				t.Errorf("guidance does not speak of memories: %s", d.Guidance)
			}
			runRecipes(t, d)

			small := map[string]any{"query": "redis", "limit": 3}
			res := callTool(t, cs, "recall_memories", small)
			if offloaded(res) != nil {
				t.Fatalf("a small recall was offloaded: %s", text(res))
			}
			if diff := cmp.Diff(text(callTool(t, direct, "recall_memories", small)), text(res)); diff != "" {
				t.Errorf("small recall through the proxy differs (-direct +proxy):\n%s", diff)
			}
			// The server returns one page to a proxy; the page's other
			// fields are shown in the descriptor's beside.
			page := callTool(t, cs, "list_memories", map[string]any{"limit": 100})
			mustOffload(t, page, dir)
			if len(page.Content) != 1 || !strings.Contains(text(page), `next_offset":100`) || !strings.Contains(text(page), `total":500`) {
				t.Errorf("list_memories(limit 100): content %q; want the descriptor, showing the fields total and next_offset", text(page))
			}

			bad := callTool(t, cs, "list_memories", map[string]any{"limit": 0})
			if !bad.IsError || !strings.Contains(text(bad), "limit") {
				t.Errorf("list_memories(limit 0) = isError %v, %q; want the server's tool error", bad.IsError, text(bad))
			}
			emptyDir(t, memDir)
		})
	}
}

// TestFilesystemServer puts the proxy in front of
// @modelcontextprotocol/server-filesystem: a directory tree (a pretty-printed
// JSON array in {"content": "…"}) and a long file (plain text) are offloaded,
// each record exactly the upstream's, and a small file passes inline with
// its structured content.
func TestFilesystemServer(t *testing.T) {
	fsServer := npmServer(t, "mcp-server-filesystem")
	root := t.TempDir()
	for i := range 30 {
		sub := filepath.Join(root, fmt.Sprintf("package%02d", i))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		for j := range 8 {
			if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("file%02d.go", j)), []byte("package x\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	var long strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&long, "%04d\tlog line with a \"quote\", a tab and some text to make it long enough\n", i)
	}
	if err := os.WriteFile(filepath.Join(root, "long.log"), []byte(long.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "small.txt"), []byte("hello\nworld\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	dir := t.TempDir()
	cs := startProxy(t, "-output-dir", dir, "--", fsServer, root)
	direct := connect(t, exec.Command(fsServer, root), &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})

	t.Run("tools", func(t *testing.T) {
		want := map[string]any{}
		for tool, err := range direct.Tools(context.Background(), nil) {
			if err != nil {
				t.Fatal(err)
			}
			if tool.OutputSchema != nil {
				if tool.OutputSchema, err = outschema.Widen(tool.OutputSchema); err != nil {
					t.Fatal(err)
				}
			}
			want[tool.Name] = generic(t, tool)
		}
		got := map[string]any{}
		for tool, err := range cs.Tools(context.Background(), nil) {
			if err != nil {
				t.Fatal(err)
			}
			got[tool.Name] = generic(t, tool)
		}
		// The proxy adds its own extraction tools to the upstream's.
		for _, local := range []string{"lro_extract", "lro_read", "lro_search"} {
			if _, ok := got[local]; !ok {
				t.Errorf("the proxy does not list its own tool %s", local)
			}
			delete(got, local)
		}
		if len(want) < 10 {
			t.Errorf("the filesystem server lists %d tools", len(want))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("tools through the proxy (-want +got, output schemas widened):\n%s", diff)
		}
	})

	t.Run("directory tree", func(t *testing.T) {
		args := map[string]any{"path": root}
		d := mustOffload(t, callTool(t, cs, "directory_tree", args), dir)
		want := elements(t, text(callTool(t, direct, "directory_tree", args)), "")
		if diff := cmp.Diff(want, fileRecords(t, d.FilePath)); diff != "" {
			t.Errorf("records differ from the tree's entries (-want +got):\n%s", diff)
		}
		if len(want) != 32 {
			t.Errorf("%d top-level entries, want 32", len(want))
		}
		runRecipes(t, d)
	})

	t.Run("long file", func(t *testing.T) {
		args := map[string]any{"path": filepath.Join(root, "long.log")}
		d := mustOffload(t, callTool(t, cs, "read_text_file", args), dir)
		if diff := cmp.Diff(lineRecords(t, long.String()), fileRecords(t, d.FilePath)); diff != "" {
			t.Errorf("records differ from the file's lines (-want +got):\n%s", diff)
		}
		runRecipes(t, d)
	})

	t.Run("small file inline", func(t *testing.T) {
		args := map[string]any{"path": filepath.Join(root, "small.txt")}
		res := callTool(t, cs, "read_text_file", args)
		if offloaded(res) != nil {
			t.Fatalf("offloaded: %s", text(res))
		}
		if diff := cmp.Diff(generic(t, callTool(t, direct, "read_text_file", args)), generic(t, res)); diff != "" {
			t.Errorf("result through the proxy differs (-direct +proxy):\n%s", diff)
		}
	})

	t.Run("tool error", func(t *testing.T) {
		args := map[string]any{"path": filepath.Join(root, "missing.txt")}
		want, got := callTool(t, direct, "read_text_file", args), callTool(t, cs, "read_text_file", args)
		if !got.IsError || text(got) != text(want) {
			t.Errorf("missing file: isError %v, %q; want the upstream's error %q", got.IsError, text(got), text(want))
		}
	})
}

// TestEverythingServer puts the proxy in front of
// @modelcontextprotocol/server-everything: structured content, images,
// progress and errors come through, and a long echo is offloaded.
func TestEverythingServer(t *testing.T) {
	everything := npmServer(t, "mcp-server-everything")
	dir := t.TempDir()
	var mu sync.Mutex
	var progress []float64
	cmd := exec.Command(binary(t, "."), "-output-dir", dir, "--", everything)
	cs := connect(t, cmd, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		defer mu.Unlock()
		progress = append(progress, req.Params.Progress)
	}})
	direct := connect(t, exec.Command(everything), nil)

	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"get-structured-content", map[string]any{"location": "Chicago"}},
		{"get-tiny-image", map[string]any{}},
		{"get-sum", map[string]any{"a": 2, "b": 40}},
		{"get-annotated-message", map[string]any{"messageType": "error", "includeImage": true}},
	} {
		res := callTool(t, cs, c.tool, c.args)
		if diff := cmp.Diff(generic(t, callTool(t, direct, c.tool, c.args)), generic(t, res)); diff != "" {
			t.Errorf("%s: result through the proxy differs (-direct +proxy):\n%s", c.tool, diff)
		}
	}

	message := strings.Repeat("a long message that the echo tool repeats back; ", 400)
	d := mustOffload(t, callTool(t, cs, "echo", map[string]any{"message": message}), dir)
	if diff := cmp.Diff(lineRecords(t, "Echo: "+message), fileRecords(t, d.FilePath)); diff != "" {
		t.Errorf("echo: records (-want +got):\n%s", diff)
	}

	// A bad argument is the upstream's error, whichever form it takes.
	_, werr := direct.CallTool(context.Background(), &mcp.CallToolParams{Name: "get-sum", Arguments: map[string]any{"a": "two"}})
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "get-sum", Arguments: map[string]any{"a": "two"}})
	if (werr == nil) != (err == nil) || (err == nil && !res.IsError) {
		t.Errorf("get-sum with a bad argument: proxy %v, %v; the upstream answered directly with error %v", res, err, werr)
	}

	params := &mcp.CallToolParams{Name: "trigger-long-running-operation", Arguments: map[string]any{"duration": 1, "steps": 3}}
	params.SetProgressToken("e2e-progress")
	if res, err := cs.CallTool(context.Background(), params); err != nil || res.IsError {
		t.Fatalf("trigger-long-running-operation: %v, %v", res, err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(progress)
		mu.Unlock()
		if n >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d progress notifications reached the client, want 3", n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestUnreachable starts the proxy with upstreams that are not there: the
// client's initialize fails with an error naming them.
func TestUnreachable(t *testing.T) {
	bin := binary(t, ".")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"-url", "http://127.0.0.1:1/mcp"}, "upstream unavailable: http://127.0.0.1:1/mcp"},
		{[]string{"--", "/no/such/mcp-server", "-x"}, "upstream unavailable: command /no/such/mcp-server -x"},
		{[]string{"--", "sh", "-c", "echo not MCP; exit 1"}, `upstream unavailable: command sh -c "echo not MCP; exit 1"`},
	}
	for _, tt := range tests {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		stderr := &lockedBuffer{}
		cmd := exec.Command(bin, tt.args...)
		cmd.Stderr = stderr
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		cancel()
		if err == nil {
			cs.Close()
			t.Errorf("%v: the client connected", tt.args)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: %v; want an error naming %q", tt.args, err, tt.want)
		}
		if !strings.Contains(stderr.String(), "upstream unavailable") {
			t.Errorf("%v: stderr %q does not log the upstream as unavailable", tt.args, stderr.String())
		}
	}
}

// TestUpstreamRestart kills the memory server (over HTTP) in the middle of a
// session and starts it again on the same address.
func TestUpstreamRestart(t *testing.T) {
	memDir := t.TempDir()
	url, stop := memoryHTTP(t, "127.0.0.1:0", memDir)
	cs := startProxy(t, "-output-dir", t.TempDir(), "-url", url)
	small := map[string]any{"query": "redis", "limit": 2}
	if res := callTool(t, cs, "recall_memories", small); res.IsError {
		t.Fatalf("before: %s", text(res))
	}
	stop()
	res := callTool(t, cs, "recall_memories", small)
	if !res.IsError || !strings.Contains(text(res), url) {
		t.Errorf("while the upstream is down: isError %v, %q; want a tool error naming %s", res.IsError, text(res), url)
	}
	memoryHTTP(t, strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp"), memDir)
	if res := callTool(t, cs, "recall_memories", small); res.IsError {
		t.Errorf("after the restart: %s", text(res))
	}
}

// generic round-trips v through JSON, for comparisons of what a client sees.
func generic(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	if m, ok := out.(map[string]any); ok {
		// resultType is a field of protocol 2026-07-28, which the proxy
		// speaks to its client and the npm servers do not.
		delete(m, "resultType")
		if meta, ok := m["_meta"].(map[string]any); ok {
			// Each server names itself in the protocol's own _meta.
			delete(meta, "io.modelcontextprotocol/serverInfo")
			if len(meta) == 0 {
				delete(m, "_meta")
			}
		}
	}
	return out
}

// offloadResponse is what these tests read of a descriptor.
type offloadResponse = wire.Descriptor
