package lrotest_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/lrotest"
)

// note is one record of the example's tool.
type note struct {
	ID        string   `json:"id"`
	Title     string   `json:"title"`
	Namespace string   `json:"namespace"`
	Tags      []string `json:"tags"`
}

type notesIn struct {
	N int `json:"n"`
}

type notesOut struct {
	Notes []note `json:"notes"`
}

// notes returns n notes.
func notes(ctx context.Context, req *mcp.CallToolRequest, in notesIn) (*mcp.CallToolResult, notesOut, error) {
	out := notesOut{Notes: make([]note, in.N)}
	for i := range out.Notes {
		out.Notes[i] = note{
			ID:        fmt.Sprintf("note-%03d", i),
			Title:     fmt.Sprintf("Note %d about caching", i),
			Namespace: []string{"work", "home", "work/cache"}[i%3],
			Tags:      []string{"cache"},
		}
	}
	return nil, out, nil
}

// Example checks a server built with lro at Level 2 over an in-memory
// connection; any server, in any language, over any transport, is checked
// the same way.
func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "lrotest-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// The server under test: one tool whose results may be offloaded.
	s := mcp.NewServer(&mcp.Implementation{Name: "example", Version: "v1"}, nil)
	opts := &lro.Options{OutputDir: filepath.Join(dir, "out")}
	lro.AddTool(s, &mcp.Tool{Name: "notes", Description: "List notes."}, notes, opts)
	st, ct := mcp.NewInMemoryTransports()
	if _, err := s.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "checker", Version: "v1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	var table strings.Builder
	ok, err := lrotest.Check(ctx, cs, &lrotest.Config{
		Tool:  "notes",
		Large: map[string]any{"n": 200},
		Small: map[string]any{"n": 3},
		Level: 2,
	}, &table)
	if err != nil {
		log.Fatal(err)
	}
	// The table has one row per requirement: ID, level, MUST or SHOULD,
	// result and the first reason, followed by every reason.
	checked := 0
	for _, line := range strings.Split(table.String(), "\n") {
		if f := strings.Fields(line); len(f) > 3 && strings.HasPrefix(f[0], "L") && (f[2] == "MUST" || f[2] == "SHOULD") {
			checked++
			if f[3] != "pass" {
				fmt.Println(f[0], f[3])
			}
		}
	}
	fmt.Println("requirements checked:", checked, "OK:", ok)
	// Output:
	// L1.descriptor.handle skip
	// L1.header.query skip
	// L2.recipes.detail skip
	// L2.cleanup skip
	// requirements checked: 35 OK: true
}
