package lro_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"gocloud.dev/blob/memblob"

	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/event"
	"github.com/zircote/lro-go/lro/store"
	"github.com/zircote/lro-go/lro/store/blobstore"
)

// A plain tool handler, wrapped: a small result goes out unchanged, a large
// one is written to a JSONL file and replaced by a descriptor.
func ExampleWrap() {
	dir, _ := os.MkdirTemp("", "lro-example")
	defer os.RemoveAll(dir)

	listOrders := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var args struct {
			N int `json:"n"`
		}
		_ = json.Unmarshal(req.Params.Arguments, &args)
		orders := make([]map[string]any, args.N)
		for i := range orders {
			orders[i] = map[string]any{"id": i, "customer": fmt.Sprintf("customer-%d", i%7), "total": 10.5 * float64(i%9)}
		}
		data, _ := json.Marshal(orders)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(data)}}}, nil
	}

	tool := lro.Wrap(listOrders, &lro.Options{OutputDir: dir, Operation: "orders"})
	server := mcp.NewServer(&mcp.Implementation{Name: "shop", Version: "v1"}, nil)
	server.AddTool(&mcp.Tool{Name: "list_orders", InputSchema: map[string]any{"type": "object"}}, tool)

	// Called directly here; a client calls it through the server.
	call := func(n int) *mcp.CallToolResult {
		res, _ := tool(context.Background(), &mcp.CallToolRequest{
			Params: &mcp.CallToolParamsRaw{Name: "list_orders", Arguments: json.RawMessage(fmt.Sprintf(`{"n":%d}`, n))},
		})
		return res
	}
	small := call(2)
	fmt.Println("small:", small.Content[0].(*mcp.TextContent).Text)

	var d struct { // the fields read below; a client declares those it reads
		Offloaded bool `json:"offloaded"`
		Summary   struct {
			Count int `json:"count"`
		} `json:"summary"`
		FilePath  string            `json:"file_path"`
		JqRecipes []json.RawMessage `json:"jq_recipes"`
	}
	_ = json.Unmarshal([]byte(call(500).Content[0].(*mcp.TextContent).Text), &d)
	fmt.Println("large offloaded:", d.Offloaded, "records:", d.Summary.Count, "recipes:", len(d.JqRecipes))
	fmt.Println("file in dir:", filepath.Dir(d.FilePath) == dir)
	// Output:
	// small: [{"customer":"customer-0","id":0,"total":0},{"customer":"customer-1","id":1,"total":10.5}]
	// large offloaded: true records: 500 recipes: 10
	// file in dir: true
}

type note struct {
	ID    int    `json:"id" jsonschema:"note number"`
	Title string `json:"title" jsonschema:"a short title"`
}

type notesIn struct {
	Count int `json:"count" jsonschema:"how many notes"`
}

type notesOut struct {
	Notes []note `json:"notes" jsonschema:"the notes"`
}

// A typed tool registered with AddTool: its advertised output schema accepts
// both the Out value and the descriptor, so strict clients accept both.
func ExampleAddTool() {
	dir, _ := os.MkdirTemp("", "lro-example")
	defer os.RemoveAll(dir)

	server := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "v1"}, nil)
	lro.AddTool(server, &mcp.Tool{Name: "list_notes", Description: "Lists notes."},
		func(ctx context.Context, req *mcp.CallToolRequest, in notesIn) (*mcp.CallToolResult, notesOut, error) {
			out := notesOut{Notes: make([]note, in.Count)}
			for i := range out.Notes {
				out.Notes[i] = note{ID: i, Title: fmt.Sprintf("Note %d about something worth remembering", i)}
			}
			return nil, out, nil
		}, &lro.Options{OutputDir: dir, Operation: "list"})

	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, _ := server.Connect(ctx, st, nil)
	defer ss.Close()
	cs, _ := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v1"}, nil).Connect(ctx, ct, nil)
	defer cs.Close()

	for _, n := range []int{1, 400} {
		res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_notes", Arguments: map[string]any{"count": n}})
		sc := res.StructuredContent.(map[string]any)
		if sc["offloaded"] == true {
			fmt.Printf("count=%d: offloaded, %v records in the file\n", n, sc["summary"].(map[string]any)["count"])
		} else {
			fmt.Printf("count=%d: inline %v\n", n, sc["notes"])
		}
	}
	// Output:
	// count=1: inline [map[id:0 title:Note 0 about something worth remembering]]
	// count=400: offloaded, 400 records in the file
}

// Events go to an Observer; event.Slog logs them.
func ExampleOptions_observer() {
	dir, _ := os.MkdirTemp("", "lro-example")
	defer os.RemoveAll(dir)

	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			switch a.Key {
			case slog.TimeKey, "path", "duration", "bytes", "estimated_tokens":
				return slog.Attr{} // vary from run to run
			}
			return a
		},
	}))
	h := lro.Wrap(func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		lines := ""
		for i := range 500 {
			lines += fmt.Sprintf("line %d of a long log\n", i)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: lines}}}, nil
	}, &lro.Options{OutputDir: dir, Observer: event.Slog(logger)})

	_, _ = h(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "tail_log"}})
	// Output:
	// level=INFO msg=OffloadCompleted tool=tail_log operation=tail_log count=500
}

// Provide hands the full, pre-budget result set to the decorator while the
// handler returns its own formatted answer, as inject_context does.
func ExampleProvide() {
	dir, _ := os.MkdirTemp("", "lro-example")
	defer os.RemoveAll(dir)

	inject := lro.Wrap(func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		hits := make([]note, 300) // everything recall found
		for i := range hits {
			hits[i] = note{ID: i, Title: fmt.Sprintf("Memory %d relevant to the query", i)}
		}
		lro.Provide(ctx, lro.ResultSet{Records: hits})
		formatted := "## Context\n- Memory 0 relevant to the query\n" // what fits the budget
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: formatted}}}, nil
	}, &lro.Options{OutputDir: dir, Operation: "inject"})

	res, _ := inject(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "inject_context"}})
	var d struct {
		Offloaded bool `json:"offloaded"`
		Summary   struct {
			Operation string `json:"operation"`
			Count     int    `json:"count"`
		} `json:"summary"`
	}
	_ = json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &d)
	fmt.Println(d.Offloaded, d.Summary.Operation, d.Summary.Count)
	// Output:
	// true inject 300
}

// With a Store, offloaded results go to a bucket that every replica of a
// server shares. Each descriptor gives the result's handle, which the
// extraction tools given the same Store take on any replica, and a
// resource link to lro://results/{handle}; file_path is where a client
// that downloads the object would keep it.
func ExampleOptions_store() {
	ctx := context.Background()
	// A server opens its bucket by URL, with blobstore and the driver
	// imported, and closes it on exit:
	//
	//	st, err := store.Open(ctx, "s3://bucket?region=us-east-1", nil)
	//	defer st.Close()
	bucket := memblob.OpenBucket(nil)
	defer bucket.Close()
	st, err := store.NewBucket(blobstore.New(bucket), &store.Options{TTL: time.Hour})
	if err != nil {
		panic(err)
	}
	// Registering the tool starts the automatic janitor of the bucket.
	opts := &lro.Options{Store: st}

	h := lro.Wrap(func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		lines := ""
		for i := range 500 {
			lines += fmt.Sprintf("line %d of a long log\n", i)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: lines}}}, nil
	}, opts)
	res, err := h(ctx, &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "tail"}})
	if err != nil {
		panic(err)
	}
	var d struct {
		FilePath string `json:"file_path"`
		Handle   string `json:"handle"`
	}
	_ = json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &d)
	link := res.Content[1].(*mcp.ResourceLink)
	fmt.Println("handle:", d.Handle[:len("atlatl-tail-")]+"{ULID}-{random}.jsonl")
	// file_path is where a client that downloads the object keeps it: in
	// /tmp, under the handle's name without its random part.
	name := strings.TrimSuffix(path.Base(d.FilePath), ".jsonl")
	fmt.Println("file_path:", path.Dir(d.FilePath), strings.HasPrefix(d.Handle, name+"-"))
	fmt.Println("resource link:", link.URI == "lro://results/"+d.Handle, link.Name == path.Base(d.FilePath), link.MIMEType)

	r, _, err := st.NewRangeReader(ctx, d.Handle, 0, -1) // on any replica
	if err != nil {
		panic(err)
	}
	defer r.Close()
	data, _ := io.ReadAll(r)
	fmt.Println("lines in the bucket:", bytes.Count(data, []byte("\n")))
	// Output:
	// handle: atlatl-tail-{ULID}-{random}.jsonl
	// file_path: /tmp true
	// resource link: true true application/jsonl
	// lines in the bucket: 501
}
