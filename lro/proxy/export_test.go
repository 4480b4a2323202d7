package proxy

import "github.com/modelcontextprotocol/go-sdk/mcp"

// SetOffload replaces the lro.Wrap of p's tools/call results by h.
func SetOffload(p *Proxy, h mcp.ToolHandler) { p.wrapped = h }

// DefaultMaxMessageBytes is, for tests, what a zero Options.MaxMessageBytes
// means.
const DefaultMaxMessageBytes = defaultMaxMessageBytes
