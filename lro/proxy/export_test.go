package proxy

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SetOffload replaces the lro.Offloader of p's tools/call results by f.
func SetOffload(p *Proxy, f func(context.Context, *mcp.CallToolRequest, *mcp.CallToolResult) bool) {
	p.offloader = f
}

// DefaultMaxMessageBytes is, for tests, what a zero Options.MaxMessageBytes
// means.
const DefaultMaxMessageBytes = defaultMaxMessageBytes
