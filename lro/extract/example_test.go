package extract_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro/descriptor"
	"github.com/zircote/lro-go/lro/extract"
	"github.com/zircote/lro-go/recipes"
)

// A server registers the extraction tools next to its own; a client without
// a shell then queries an offloaded result with a recipe of its descriptor.
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
		_ = w.WriteValue(r)
	}
	if err := w.Commit(); err != nil {
		log.Fatal(err)
	}

	server := mcp.NewServer(&mcp.Implementation{Name: "memory", Version: "1.0"}, nil)
	if err := extract.AddTools(server, &extract.Options{Dir: dir}); err != nil {
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
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: extract.ToolExtract, Arguments: args})
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
}

// Guidance renders the native-tool guidance of a descriptor, for a server
// that registered the tools: lro sets it as descriptor.Input.Guidance.
func ExampleGuidance() {
	in := descriptor.Input{
		Path:            "/tmp/atlatl-recall-01JABCDEFGHJKMNPQRSTVWXYZ0.jsonl",
		Detail:          "medium",
		Count:           200,
		EstimatedTokens: 31000,
		Recipes:         recipes.Memory(recipes.Medium, nil),
		Noun:            "memories",
	}
	fmt.Println(extract.Guidance(in))
	// Output:
	// Results offloaded to JSONL (200 memories, ~31000 tokens saved).
	// Detail level: medium
	// Use the `lro_extract` tool to query this result set. Examples:
	// - Browse: lro_extract(file_path="/tmp/atlatl-recall-01JABCDEFGHJKMNPQRSTVWXYZ0.jsonl", recipe=1)
	// - Filter by namespace prefix: lro_extract(file_path="/tmp/atlatl-recall-01JABCDEFGHJKMNPQRSTVWXYZ0.jsonl", recipe=2, params={"namespace": "_semantic"})
	// - Search titles by keyword (case-insensitive regular expression): lro_extract(file_path="/tmp/atlatl-recall-01JABCDEFGHJKMNPQRSTVWXYZ0.jsonl", recipe=3, params={"keyword": "keyword"})
	// - Custom filter, run on each record: lro_extract(file_path="/tmp/atlatl-recall-01JABCDEFGHJKMNPQRSTVWXYZ0.jsonl", query="select(.confidence > 0.8) | {id, title}")
	// - Count, group or sort all records at once: lro_extract(file_path="/tmp/atlatl-recall-01JABCDEFGHJKMNPQRSTVWXYZ0.jsonl", query="length", slurp=true)
	// Available recipes: 1=list titles with namespaces (tab-separated); 2=filter by namespace prefix [params: namespace]; 3=search titles by keyword (case-insensitive regular expression) [params: keyword]; 4=extract IDs and titles only; 5=filter by memory type [params: memory_type]; 6=count by namespace; 7=filter by tag [params: tag]; 8=sort by created date (oldest first); 9=sort by confidence, descending (.confidence); 10=full-text search in content (case-insensitive regular expression) [params: keyword].
	// To read lines as they are: lro_read(file_path="/tmp/atlatl-recall-01JABCDEFGHJKMNPQRSTVWXYZ0.jsonl", line=2, limit=10); to find records by regular expression: lro_search(file_path="/tmp/atlatl-recall-01JABCDEFGHJKMNPQRSTVWXYZ0.jsonl", pattern="keyword").
	// The header line (line 1) contains metadata; the records start at line 2.
}
