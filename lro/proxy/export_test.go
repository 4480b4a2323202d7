package proxy

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// SetOffload replaces the lro.Offloader of p's tools/call results by f.
func SetOffload(p *Proxy, f func(context.Context, *mcp.CallToolRequest, *mcp.CallToolResult) bool) {
	p.offloader = f
}

// DefaultMaxMessageBytes is, for tests, what a zero Options.MaxMessageBytes
// means.
const DefaultMaxMessageBytes = defaultMaxMessageBytes

// SetGrace sets how long p.Run waits for answers once its client's input
// ended.
func SetGrace(p *Proxy, d time.Duration) { p.grace = d }
