package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/examples/memory/memory"
	"github.com/zircote/lro-go/internal/disk"
	"github.com/zircote/lro-go/internal/testing/gobuild"
	"github.com/zircote/lro-go/jsonl"
)

// lockedBuffer is a bytes.Buffer safe for the concurrent writes of a child
// process's stderr and the test's reads.
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

// built is the example built once for the tests that run it (TestMain
// removes its folder).
var built = gobuild.Binary{Pkg: "."}

// buildBinary builds the example into a temporary folder, once for all the
// tests that call it, and returns the binary.
func buildBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a binary")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool in PATH")
	}
	return built.Path(t)
}

// runRecipes runs every recipe command of desc with sh -c and returns their
// standard outputs.
func runRecipes(t *testing.T, desc offloadResponse) []string {
	t.Helper()
	if len(desc.JqRecipes) != 10 {
		t.Fatalf("%d recipes, want 10", len(desc.JqRecipes))
	}
	outs := make([]string, len(desc.JqRecipes))
	for i, r := range desc.JqRecipes {
		if !strings.Contains(r.Command, desc.FilePath) {
			t.Errorf("recipe %d does not name the file: %s", i+1, r.Command)
		}
		if strings.Contains(r.Command, "score") {
			t.Errorf("recipe %d references score: %s", i+1, r.Command)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		cmd := exec.CommandContext(ctx, "sh", "-c", r.Command)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		cancel()
		if err != nil {
			t.Errorf("recipe %d (%s) failed: %v\n%s\n%s", i+1, r.Description, err, r.Command, stderr.String())
			continue
		}
		outs[i] = string(out)
	}
	return outs
}

// jsonValues decodes a stream of JSON values, flattening arrays.
func jsonValues(t *testing.T, s string) []any {
	t.Helper()
	var vals []any
	dec := json.NewDecoder(strings.NewReader(s))
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return vals
		}
		if err != nil {
			t.Fatalf("decoding recipe output: %v\n%s", err, s)
		}
		if a, ok := v.([]any); ok {
			vals = append(vals, a...)
		} else {
			vals = append(vals, v)
		}
	}
}

// countsBy decodes a count recipe's output ({field: x, count: n} values).
func countsBy(t *testing.T, out, field string) map[string]int {
	t.Helper()
	counts := map[string]int{}
	for _, v := range jsonValues(t, out) {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("count recipe output %v is not an object", v)
		}
		key, _ := m[field].(string)
		n, _ := m["count"].(float64)
		counts[key] = int(n)
	}
	return counts
}

func recordCounts(records []memory.Record, key func(memory.Record) string) map[string]int {
	counts := map[string]int{}
	for _, r := range records {
		counts[key(r)]++
	}
	return counts
}

func byNamespace(r memory.Record) string  { return r.Namespace }
func byMemoryType(r memory.Record) string { return string(r.MemoryType) }

// TestToolsOverStdio runs the tool tables (every tool, inline and offloaded,
// at every detail level, the file's records checked against the service's)
// against the built program over stdio instead of in-process.
func TestToolsOverStdio(t *testing.T) {
	stdioBinary = buildBinary(t)
	defer func() { stdioBinary = "" }()
	t.Run("query tools", TestQueryTools)
	t.Run("list_memories", TestListMemories)
	t.Run("inject_context", TestInjectContext)
	t.Run("extraction tools", TestExtractTools)
}

// TestEndToEnd builds the program, drives it over stdio as an MCP client
// would, and runs the offloaded descriptors' jq recipes with the real jq.
func TestEndToEnd(t *testing.T) {
	bin := buildBinary(t)
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq not installed")
	}
	dir := t.TempDir()
	cmd := exec.Command(bin, "-output-dir", dir)
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr.String())
	}
	defer func() {
		if err := cs.Close(); err != nil {
			t.Logf("close: %v", err)
		}
		if t.Failed() {
			t.Logf("server stderr:\n%s", stderr.String())
		}
	}()
	recall := &memory.RecallService{Store: bigStore}

	t.Run("recall offloaded at full detail", func(t *testing.T) {
		hs, err := recall.Recall("semantic", 300, "")
		if err != nil {
			t.Fatal(err)
		}
		records, scores := hitRecords(hs, memory.Full)
		res := call(t, cs, "recall_memories", map[string]any{"query": "semantic", "limit": 300, "detail": "full"})
		desc := checkOffloaded(t, res, dir, offload{"recall", "full", ptr("semantic"), records, scores})
		outs := runRecipes(t, desc)
		if diff := cmp.Diff(recordCounts(records, byNamespace), countsBy(t, outs[5], "namespace")); diff != "" {
			t.Errorf("recipe 6 counts differ from the result set's (-want +got):\n%s", diff)
		}
		// Recipe 9 at full detail sorts by provenance.confidence, descending.
		sorted := jsonValues(t, outs[8])
		if len(sorted) != len(records) {
			t.Fatalf("recipe 9 gave %d records, want %d", len(sorted), len(records))
		}
		first := sorted[0].(map[string]any)["provenance"].(map[string]any)["confidence"].(float64)
		last := sorted[len(sorted)-1].(map[string]any)["provenance"].(map[string]any)["confidence"].(float64)
		if first < last {
			t.Errorf("recipe 9 is not descending: first %v, last %v", first, last)
		}
		if lines := strings.Count(outs[0], "\n"); lines != len(records) {
			t.Errorf("recipe 1 printed %d lines, want %d", lines, len(records))
		}
	})

	t.Run("list offloaded at light detail holds the whole store", func(t *testing.T) {
		all, _ := bigStore.List(memory.ListOptions{})
		records := memory.ProjectAll(all, memory.Light)
		res := call(t, cs, "list_memories", map[string]any{"limit": 20})
		desc := checkOffloaded(t, res, dir, offload{"list", "light", nil, records, nil})
		outs := runRecipes(t, desc)
		want := bigStore.CountByNamespace()
		if diff := cmp.Diff(want, countsBy(t, outs[5], "namespace")); diff != "" {
			t.Errorf("recipe 6 counts differ from the store's (-want +got):\n%s", diff)
		}
		// At light detail recipe 10 counts by memory_type.
		if diff := cmp.Diff(recordCounts(records, byMemoryType), countsBy(t, outs[9], "memory_type")); diff != "" {
			t.Errorf("recipe 10 counts differ (-want +got):\n%s", diff)
		}
		// Recipe 9 at light detail lists the unique namespaces, one per line.
		if got := strings.Fields(outs[8]); len(got) != len(want) {
			t.Errorf("recipe 9 listed %d namespaces, want %d:\n%s", len(got), len(want), outs[8])
		}
	})

	t.Run("inject offloaded at medium detail", func(t *testing.T) {
		hs, err := recall.Recall("semantic", 0, "")
		if err != nil {
			t.Fatal(err)
		}
		records, scores := hitRecords(hs, memory.Medium)
		res := call(t, cs, "inject_context", map[string]any{"query": "semantic"})
		desc := checkOffloaded(t, res, dir, offload{"inject", "medium", ptr("semantic"), records, scores})
		outs := runRecipes(t, desc)
		if diff := cmp.Diff(recordCounts(records, byNamespace), countsBy(t, outs[5], "namespace")); diff != "" {
			t.Errorf("recipe 6 counts differ (-want +got):\n%s", diff)
		}
		sorted := jsonValues(t, outs[8])
		if len(sorted) == 0 || sorted[0].(map[string]any)["confidence"] == nil {
			t.Errorf("recipe 9 at medium detail does not sort by the top-level confidence")
		}
	})

	t.Run("recall inline", func(t *testing.T) {
		hs, _ := recall.Recall("redis", 3, "")
		records, scores := hitRecords(hs, memory.Light)
		res := call(t, cs, "recall_memories", map[string]any{"query": "redis", "limit": 3})
		var out hitsOutput
		remarshal(t, res.StructuredContent, &out)
		if diff := cmp.Diff(generic(t, records), generic(t, out.Memories)); diff != "" {
			t.Errorf("memories mismatch (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(scores, out.Scores); diff != "" {
			t.Errorf("scores mismatch (-want +got):\n%s", diff)
		}
	})

	t.Run("bad argument", func(t *testing.T) {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_memories", Arguments: map[string]any{"limit": 0}})
		if err != nil || !res.IsError || !strings.Contains(text(res), "limit") {
			t.Errorf("list_memories(limit 0) = %v, %v; want a tool error naming limit", res, err)
		}
	})

	if log := stderr.String(); !strings.Contains(log, "OffloadCompleted") || !strings.Contains(log, "memory server starting") {
		t.Errorf("stderr lacks the startup line or offload events:\n%s", log)
	}
}

// TestEndToEndBadLoad checks that a malformed -load file stops the program
// at start with FILE:N.
func TestEndToEndBadLoad(t *testing.T) {
	bin := buildBinary(t)
	path := writeFile(t, "bad.jsonl", `{"id":"a"}`+"\n"+`{"id":`+"\n")
	out, err := exec.Command(bin, "-load", path).CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("exit = %v, want status 1\n%s", err, out)
	}
	if want := path + ":2: invalid JSON"; !strings.Contains(string(out), want) {
		t.Errorf("output %q lacks %q", out, want)
	}
}

// TestJanitorRunsAtStart starts the program with a folder holding an offload
// file whose TTL has passed, one that is fresh, and an unrelated file: the
// janitor started with the server deletes the first, logs an
// OffloadFileExpired event, and leaves the others alone.
func TestJanitorRunsAtStart(t *testing.T) {
	bin := buildBinary(t)
	dir := t.TempDir()
	write := func(created time.Time) string {
		w, err := createAt(dir, "", "recall", created, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		if err := w.WriteHeader(jsonl.Header{Count: 0}); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		return w.Path()
	}
	expired := write(time.Now().Add(-2 * time.Minute))
	fresh := write(time.Now())
	other := filepath.Join(dir, "notes.txt")
	if err := os.WriteFile(other, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(bin, "-records", "10")
	cmd.Env = append(os.Environ(), "ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR="+dir, "ATLATL_PROMPT__OFFLOAD__TTL_SECONDS=60")
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v0"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr:\n%s", err, stderr.String())
	}
	deadline := time.Now().Add(time.Minute) // seconds on a loaded machine
	for !strings.Contains(stderr.String(), "OffloadFileExpired") && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cs.Close()
	log := stderr.String()
	if !strings.Contains(log, "OffloadFileExpired") || !strings.Contains(log, expired) {
		t.Errorf("no OffloadFileExpired event for %s in the log:\n%s", expired, log)
	}
	if _, err := os.Stat(expired); !os.IsNotExist(err) {
		t.Errorf("expired file: stat error %v, want it deleted", err)
	}
	for _, keep := range []string{fresh, other} {
		if _, err := os.Stat(keep); err != nil {
			t.Errorf("%s: %v, want it kept", keep, err)
		}
	}
}

// createAt starts the file of operation in dir, as jsonl.Create does, under
// a name of time at, writing through wrap if not nil.
func createAt(dir, prefix, operation string, at time.Time, wrap func(io.Writer) io.Writer) (*jsonl.Writer, error) {
	f, err := disk.Create(dir, prefix, operation, at, false, nil)
	if err != nil {
		return nil, err
	}
	return jsonl.NewWriter(disk.Wrap(f, wrap), f.Path(), operation), nil
}
