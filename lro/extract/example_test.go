package extract_test

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/zircote/lro-go/lro"
	"log"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"gocloud.dev/blob/memblob"

	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro/extract"
	"github.com/zircote/lro-go/lro/store"
	"github.com/zircote/lro-go/lro/store/blobstore"
)

// A server registers the extraction tools next to its own; a client without
// a shell then queries an offloaded result with a recipe of its descriptor,
// a jq filter, or a filter without jq (where).
func ExampleAddTools() {
	dir, err := os.MkdirTemp("", "lro-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// An offloaded result, as lro writes it.
	w, err := jsonl.Create("recall", &jsonl.Options{Dir: dir})
	if err != nil {
		log.Fatal(err)
	}
	defer w.Abort()
	records := []map[string]any{
		{"id": "01J1", "title": "Use Redis for session caching", "namespace": "_semantic/decisions", "memory_type": "semantic"},
		{"id": "01J2", "title": "Rotate OAuth keys", "namespace": "_procedural/runbooks", "memory_type": "procedural"},
		{"id": "01J3", "title": "Incident: cache stampede", "namespace": "_semantic/decisions", "memory_type": "episodic"},
	}
	_ = w.WriteHeader(jsonl.Header{Operation: "recall", Count: len(records), SchemaVersion: "1.0", Detail: "light"})
	for _, r := range records {
		line, _ := json.Marshal(r)
		_ = w.WriteRecord(line)
	}
	if err := w.Commit(); err != nil {
		log.Fatal(err)
	}

	// The program called extract.RunWorker first in main (here, TestMain
	// did), so that queries run in a bounded worker process.
	server := mcp.NewServer(&mcp.Implementation{Name: "memory", Version: "1.0"}, nil)
	if err := extract.AddTools(server, &extract.Options{LRO: &lro.Options{OutputDir: dir}}); err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	ct, st := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	for _, args := range []map[string]any{
		{"file_path": w.Path(), "recipe": 6},
		{"file_path": w.Path(), "recipe": 3, "params": map[string]any{"keyword": "cach"}},
		{"file_path": w.Path(), "query": `select(.memory_type != "semantic") | .id`},
		// The same without jq, and a count.
		{"file_path": w.Path(), "where": map[string]any{"memory_type": map[string]any{"in": []string{"episodic", "procedural"}}}, "fields": []string{"id"}},
		{"file_path": w.Path(), "where": map[string]any{"namespace": map[string]any{"prefix": "_semantic"}, "title": map[string]any{"contains": "CACH"}}, "count": true},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lro_extract", Arguments: args})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// {"count":1,"namespace":"_procedural/runbooks"}
	// {"count":2,"namespace":"_semantic/decisions"}
	// {"id":"01J1","memory_type":"semantic","namespace":"_semantic/decisions","title":"Use Redis for session caching"}
	// {"id":"01J3","memory_type":"episodic","namespace":"_semantic/decisions","title":"Incident: cache stampede"}
	// "01J2"
	// "01J3"
	// {"id":"01J2"}
	// {"id":"01J3"}
	// 2
}

// A program that serves the extraction tools hands over to the worker first
// in main: started again by a tool call, it evaluates that call's query and
// exits there; started by the user, it goes on.
func ExampleRunWorker() {
	extract.RunWorker()

	server := mcp.NewServer(&mcp.Implementation{Name: "memory", Version: "1.0"}, nil)
	if err := extract.AddTools(server, &extract.Options{LRO: &lro.Options{OutputDir: os.TempDir()}, Timeout: 5 * time.Second, MaxMemoryBytes: 256 << 20}); err != nil {
		log.Fatal(err)
	}
	// ... register the server's own tools, then serve.
	fmt.Println("registered")
	// Output: registered
}

// With a Store, the tools read the results of the decorator's store by
// handle, on any replica: here a bucket in memory (in production, an S3
// bucket that every replica opens with store.Open). resources/read of
// lro://results/{handle} returns a result whole.
func ExampleOptions_store() {
	bucket := memblob.OpenBucket(nil)
	defer bucket.Close()
	st, err := store.NewBucket(blobstore.New(bucket), nil)
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()

	// A result, as the decorator with lro.Options.Store writes it: its
	// name is its handle.
	w, err := st.Create(ctx, "recall")
	if err != nil {
		log.Fatal(err)
	}
	defer w.Abort()
	_ = w.WriteHeader(jsonl.Header{Operation: "recall", Count: 2, SchemaVersion: "1.0", Detail: "light"})
	_ = w.WriteRecord([]byte(`{"id":"01J1","title":"Use Redis for session caching"}`))
	_ = w.WriteRecord([]byte(`{"id":"01J2","title":"Rotate OAuth keys"}`))
	if err := w.Commit(); err != nil {
		log.Fatal(err)
	}
	handle := filepath.Base(w.Path())

	server := mcp.NewServer(&mcp.Implementation{Name: "memory", Version: "1.0"}, nil)
	if err := extract.AddTools(server, &extract.Options{LRO: &lro.Options{Store: st}}); err != nil {
		log.Fatal(err)
	}
	ct, sst := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, sst, nil); err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "lro_extract", Arguments: map[string]any{"handle": handle, "query": ".title", "raw": true}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	rr, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "lro://results/" + handle})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rr.Contents[0].MIMEType, strings.Count(rr.Contents[0].Text, "\n"), "lines")
	// Output:
	// Use Redis for session caching
	// Rotate OAuth keys
	// application/jsonl 3 lines
}
