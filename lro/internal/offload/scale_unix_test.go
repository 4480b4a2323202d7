//go:build unix

package offload

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/jsonl"
)

// cpuTime returns the CPU time the process has used.
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestManyTextItemsScaleLinearly: offloading a result of many small text
// items costs the same CPU time per item at 2,000 and at 16,000 items (it
// once grew with the items before: line numbers were counted over every
// earlier item, and a text that failed as a JSON array described every
// earlier one again). CPU time, not wall time, and a ratio of 3 where a
// quadratic cost gives 8.
func TestManyTextItemsScaleLinearly(t *testing.T) {
	if testing.Short() {
		t.Skip("measures CPU time")
	}
	for _, text := range []string{"x", "["} {
		t.Run(text, func(t *testing.T) {
			perItem := func(n int) time.Duration {
				c := testConfig(t)
				c.Create = func(op string) (*jsonl.Writer, error) {
					return jsonl.NewWriter(discard{}, "", op), nil
				}
				items := make([]mcp.Content, n)
				for i := range items {
					items[i] = &mcp.TextContent{Text: text}
				}
				var used time.Duration
				runs := 0
				for used < 300*time.Millisecond || runs < 2 {
					res := &mcp.CallToolResult{Content: items[:n:n]}
					start := cpuTime(t)
					if !c.Apply(context.Background(), func() Call { return Call{Tool: "t"} }, res, nil, nil).Changed() {
						t.Fatal("not offloaded")
					}
					used += cpuTime(t) - start
					runs++
				}
				return used / time.Duration(runs*n)
			}
			small, large := perItem(2000), perItem(16000)
			t.Logf("CPU time per item: %v at 2,000 items, %v at 16,000", small, large)
			if large > 3*small {
				t.Errorf("CPU time per item: %v at 2,000 items, %v at 16,000: more than linear", small, large)
			}
		})
	}
}

// errCountingContext is a context whose Err is nil on its first call only,
// and that counts the calls.
type errCountingContext struct {
	context.Context
	calls int
}

func (c *errCountingContext) Err() error {
	c.calls++
	if c.calls == 1 {
		return nil
	}
	return context.Canceled
}

// TestCanceledOffloadStops: a call canceled while its many text items are
// read stops at the next check (every 1,024 items), into the fallback,
// instead of finishing the file.
func TestCanceledOffloadStops(t *testing.T) {
	items := make([]mcp.Content, 100000)
	for i := range items {
		items[i] = &mcp.TextContent{Text: "x"}
	}
	res := &mcp.CallToolResult{Content: items}
	ctx := &errCountingContext{Context: context.Background()}
	if !testConfig(t).Apply(ctx, func() Call { return Call{Tool: "t"} }, res, nil, nil).Changed() {
		t.Fatal("not rewritten")
	}
	if text := res.Content[0].(*mcp.TextContent).Text; !strings.HasPrefix(text, "Warning: ") {
		t.Errorf("result %.200q, want the fallback's warning", text)
	}
	if ctx.calls > 3 {
		t.Errorf("ctx.Err called %d times: the reading went on", ctx.calls)
	}
}
