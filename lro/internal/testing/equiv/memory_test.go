package equiv

import (
	"context"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
)

// memoryCall is one call of the memory example server.
type memoryCall struct {
	name string
	tool string
	args map[string]any
}

// memoryCalls are the calls of examples/memory's golden test
// (testdata/descriptors.txtar), and one of each other tool.
var memoryCalls = []memoryCall{
	{"list/light", "list_memories", map[string]any{"detail": "light"}},
	{"list/medium", "list_memories", map[string]any{"detail": "medium"}},
	{"list/full", "list_memories", map[string]any{"detail": "full"}},
	{"list/default", "list_memories", map[string]any{}},
	{"list/page", "list_memories", map[string]any{"limit": 5, "offset": 10}},
	{"recall/light", "recall_memories", map[string]any{"query": "service", "limit": 500, "detail": "light"}},
	{"recall/medium", "recall_memories", map[string]any{"query": "service", "limit": 500, "detail": "medium"}},
	{"recall/full", "recall_memories", map[string]any{"query": "service", "limit": 500, "detail": "full"}},
	{"search/full", "search_memories", map[string]any{"query": "deploy", "limit": 500, "detail": "full"}},
	{"inject/full", "inject_context", map[string]any{"query": "service", "token_budget": 100000, "detail": "full"}},
}

// runMemory builds examples/memory and records its calls under several
// setups. The binary runs outside the bubble: times from its clock are
// replaced.
func runMemory(t *testing.T, w *writer, root string) {
	if err := os.Mkdir(root, 0o700); err != nil {
		t.Error(err)
		return
	}
	bin := filepath.Join(root, "memory")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/zircote/lro-go/examples/memory")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		t.Errorf("go build examples/memory: %v", err)
		return
	}
	var setups []setup
	for _, p := range profiles {
		setups = append(setups, setup{front: "memory", store: "dir", profile: p})
	}
	setups = append(setups,
		setup{front: "memory", store: "dir", profile: "full", native: true},
		setup{front: "memory", store: "folder", profile: "full", native: true},
		setup{front: "memory", store: "bucket", profile: "full", native: true},
		setup{front: "memory", store: "bucket", profile: "bare_pointer", native: true},
	)
	for _, s := range setups {
		runMemorySetup(t, w, root, bin, s)
	}
}

func runMemorySetup(t *testing.T, w *writer, root, bin string, s setup) {
	ctx := context.Background()
	dir := filepath.Join(root, "case")
	if err := os.RemoveAll(dir); err != nil {
		t.Error(err)
		return
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Error(err)
		return
	}
	s.dir = dir
	b, err := options(s)
	if err != nil {
		t.Error(err)
		return
	}
	var bucket *blob.Bucket
	if s.store == "bucket" {
		if bucket, err = fileblob.OpenBucket(dir, nil); err != nil {
			t.Error(err)
			return
		}
		defer bucket.Close()
	}
	cmd := exec.Command(bin, b.args...)
	cmd.Env = append(os.Environ(), b.env...)
	start := time.Now().Truncate(time.Second)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "equiv", Version: "v0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Errorf("memory %v: %v", b.args, err)
		return
	}
	defer cs.Close()
	label := s.label()
	tools, err := cs.ListTools(ctx, nil)
	n := newNorm(dir)
	n.start = start
	w.recorder(path.Join("memory", label), n, true).result("tools.json", tools, err)
	for _, c := range memoryCalls {
		n := newNorm(dir)
		n.start = start
		r := w.recorder(path.Join("memory", label, c.name), n, s.whole())
		record1(ctx, r, cs, c.tool, c.args, s.native, bucket)
	}
}
