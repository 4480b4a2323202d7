package lro_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro"
)

// TestMiddlewareForgetsTools: the widened schemas Middleware keeps, one per
// tool it lists, go with their tools: a middleware shared by the servers of
// a stateless HTTP handler (one server a request), or a server that
// registers its tools again, kept every tool it ever listed, without bound.
func TestMiddlewareForgetsTools(t *testing.T) {
	mw := lro.Middleware(&lro.Options{OutputDir: t.TempDir(), CleanupInterval: -1})
	collected := make(chan struct{}, 1)
	func() {
		tool := &mcp.Tool{Name: "list", OutputSchema: &jsonschema.Schema{Type: "object"}}
		runtime.AddCleanup(tool, func(ch chan struct{}) { ch <- struct{}{} }, collected)
		h := mw(func(context.Context, string, mcp.Request) (mcp.Result, error) {
			return &mcp.ListToolsResult{Tools: []*mcp.Tool{tool}}, nil
		})
		res, err := h(context.Background(), "tools/list", &mcp.ListToolsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if lr := res.(*mcp.ListToolsResult); lr.Tools[0] == tool {
			t.Fatal("the schema is not widened")
		}
	}()
	defer runtime.KeepAlive(mw) // the middleware stays, as a server's does
	for range 100 {
		runtime.GC()
		select {
		case <-collected:
			return
		default:
			runtime.Gosched()
		}
	}
	t.Error("a tool listed once is never collected: the middleware keeps it")
}
