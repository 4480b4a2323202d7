package extract_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tiktoken-go/tokenizer"

	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/extract"
	"github.com/zircote/lro-go/lro/store"
)

// maxDefinitionBytes bounds the three tools' definitions together, as a
// client lists them (compact JSON): they are in an agent's context at
// every request (issue 32, item 2).
const maxDefinitionBytes = 2400

// listedTools returns the extraction tools as a client lists them, by name.
func listedTools(t *testing.T, opts *extract.Options) map[string]*mcp.Tool {
	t.Helper()
	cs := session(t, opts)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]*mcp.Tool{}
	for _, tool := range res.Tools {
		tools[tool.Name] = tool
	}
	return tools
}

// extractOptions are the configurations whose definitions differ: a
// folder, a folder Store and a bucket Store (their descriptions say how
// long results are kept, and the bucket's that they are not on disk).
func extractOptions(t *testing.T) map[string]*extract.Options {
	folder, err := store.Open(context.Background(), t.TempDir(), &store.Options{TTL: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	bucket, err := store.NewBucket(newBucket(t), &store.Options{TTL: 24 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	return map[string]*extract.Options{
		"folder":       {LRO: &lro.Options{OutputDir: t.TempDir()}},
		"folder store": {LRO: &lro.Options{Store: folder}},
		"bucket store": {LRO: &lro.Options{Store: bucket}},
	}
}

// TestDefinitionBytes: the definitions of lro_extract, lro_read and
// lro_search together, as tools/list gives them in compact JSON, stay
// within maxDefinitionBytes in every configuration. It logs their o200k
// tokens too.
func TestDefinitionBytes(t *testing.T) {
	codec, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	for name, opts := range extractOptions(t) {
		t.Run(name, func(t *testing.T) {
			total, tokens := 0, 0
			for _, tool := range listedTools(t, opts) {
				b, err := json.Marshal(tool)
				if err != nil {
					t.Fatal(err)
				}
				n, err := codec.Count(string(b))
				if err != nil {
					t.Fatal(err)
				}
				t.Logf("%s: %d bytes, %d o200k tokens", tool.Name, len(b), n)
				total += len(b)
				tokens += n
			}
			t.Logf("together: %d bytes, %d o200k tokens", total, tokens)
			if total > maxDefinitionBytes {
				t.Errorf("the three definitions take %d bytes, more than %d", total, maxDefinitionBytes)
			}
		})
	}
}

// TestAnnotations: each tool's annotations say what it does, so that
// clients need not ask the user to approve a read: none changes or
// deletes anything of the user's or reaches outside the server; lro_read
// and lro_search only read; lro_extract's only write is a new file of its
// own answer, which expires (docs/extraction.md).
func TestAnnotations(t *testing.T) {
	no, yes := new(bool), new(bool)
	*yes = true
	reads := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: no, OpenWorldHint: no}
	want := map[string]*mcp.ToolAnnotations{
		extract.ToolExtract: {ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: no, OpenWorldHint: no},
		extract.ToolRead:    reads,
		extract.ToolSearch:  reads,
	}
	tools := listedTools(t, nil)
	got := map[string]*mcp.ToolAnnotations{}
	for name, tool := range tools {
		a := *tool.Annotations
		a.Title = ""
		got[name] = &a
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("annotations (-want +got):\n%s", diff)
	}
}
