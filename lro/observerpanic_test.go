package lro_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/event"
)

// panicsOnOffloaded is an Observer that panics on OffloadCompleted and
// counts the WriteFailed events it sees.
type panicsOnOffloaded struct{ failed *int }

func (o panicsOnOffloaded) Observe(_ context.Context, e event.Event) {
	switch e.(type) {
	case event.Offloaded:
		panic("the observer's own panic")
	case event.WriteFailed:
		*o.failed++
	}
}

// TestObserverPanicIsNoWriteFailure checks that an Observer that panics on
// OffloadCompleted is not taken for a failed write: its panic goes on to
// the caller, as any panic of the server's own code, and the call neither
// falls back saying the file was not saved nor reports WriteFailed for a
// file that is whole.
func TestObserverPanicIsNoWriteFailure(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("[")
	for i := range 3000 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id":%d,"title":"item %d"}`, i, i)
	}
	b.WriteString("]")
	failed := 0
	h := lro.Wrap(func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}, nil
	}, &lro.Options{OutputDir: dir, Observer: panicsOnOffloaded{&failed}, CleanupInterval: -1})
	var res *mcp.CallToolResult
	recovered := func() (r any) {
		defer func() { r = recover() }()
		res, _ = h(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "x"}})
		return nil
	}()
	if recovered != "the observer's own panic" {
		t.Errorf("recovered %v; want the observer's panic to reach the caller", recovered)
	}
	if res != nil {
		t.Errorf("the call returned %.120v; want the observer's panic", res.Content)
	}
	if failed != 0 {
		t.Errorf("%d WriteFailed events for a file that was written whole", failed)
	}
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 1 {
		t.Errorf("the output folder holds %v (%v); want the one file written", ents, err)
	}
}
