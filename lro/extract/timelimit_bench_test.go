package extract_test

import (
	"context"
	"github.com/zircote/lro-go/lro"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro/extract"
)

// BenchmarkTimeLimit measures how long past its time limit a call that
// does not end (a query that loops) answers, on the wall clock: the
// promise that the unit tests check as processor time (TestBoundedCalls),
// since load stretches the wall clock. It reports the mean time past the
// limit (ms-past-limit) and the longest (max-ms-past-limit); the promise is
// at most one second.
func BenchmarkTimeLimit(b *testing.B) {
	const limit = 500 * time.Millisecond
	dir := b.TempDir()
	path := offload(b, dir, "full", memories(20, "full"))
	cs := session(b, &extract.Options{LRO: &lro.Options{OutputDir: dir}, Timeout: limit})
	args := map[string]any{"file_path": path, "query": `def f: f; f`}
	var past, longest time.Duration
	n := 0
	for b.Loop() {
		start := time.Now()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: extract.ToolExtract, Arguments: args})
		d := time.Since(start) - limit
		if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "time limit") {
			b.Fatalf("want a tool error naming the time limit: %v %v", err, res)
		}
		past += d
		longest = max(longest, d)
		n++
	}
	b.ReportMetric(float64(past.Milliseconds())/float64(n), "ms-past-limit")
	b.ReportMetric(float64(longest.Milliseconds()), "max-ms-past-limit")
}
