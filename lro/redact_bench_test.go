package lro_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/testing/realshapes"
	"github.com/zircote/lro-go/internal/testing/sidebyside"
	"github.com/zircote/lro-go/lro"
)

// BenchmarkRedaction500 compares offloading 500 full-detail records (as
// BenchmarkOffload500) with redaction, the default, and without it. Target:
// redact/plain <= 1.15.
func BenchmarkRedaction500(b *testing.B) {
	records := lro.BenchMemories(500)
	ctx := context.Background()
	arm := func(name string, off bool) sidebyside.Arm {
		h := lro.Wrap(recordsHandler(records), &lro.Options{OutputDir: b.TempDir(), DisableRedaction: off})
		return sidebyside.Arm{Name: name, Run: func() {
			if res, err := h(ctx, lro.OffloadRequest); err != nil || res.StructuredContent == nil {
				b.Fatal("not offloaded", err)
			}
		}}
	}
	sidebyside.Run(b, arm("redact", false), arm("plain", true))
}

// BenchmarkRedactionRealShapes compares offloading every item of the
// real-shapes corpus, made large, with redaction and without it. Target:
// redact/plain <= 1.15.
func BenchmarkRedactionRealShapes(b *testing.B) {
	items, err := realshapes.Items()
	if err != nil {
		b.Fatal(err)
	}
	var results []*mcp.CallToolResult
	for _, it := range items {
		large, _, err := largeResult(it, realLargeTokens)
		if err != nil {
			b.Fatal(err)
		}
		results = append(results, large)
	}
	ctx := context.Background()
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "t"}}
	arm := func(name string, off bool) sidebyside.Arm {
		var cur *mcp.CallToolResult
		h := lro.Wrap(func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return cur, nil
		}, &lro.Options{OutputDir: b.TempDir(), DisableRedaction: off})
		return sidebyside.Arm{Name: name, Run: func() {
			for _, r := range results {
				cp := *r // Wrap rewrites the result in place
				cur = &cp
				if _, err := h(ctx, req); err != nil || cp.Content[0] == r.Content[0] {
					b.Fatal("not offloaded")
				}
			}
		}}
	}
	sidebyside.Run(b, arm("redact", false), arm("plain", true))
}
