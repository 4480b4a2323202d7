package proxy

import (
	"context"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro"
)

// SetOffload replaces the offloader of p's tools/call results by f.
func SetOffload(p *Proxy, f func(context.Context, *mcp.CallToolRequest, *mcp.CallToolResult) bool) {
	p.offloader = f
}

// Offloader is the offloading of results the proxy read, with opts.
func Offloader(opts *lro.Options) func(context.Context, *mcp.CallToolRequest, *mcp.CallToolResult) bool {
	return offloader(opts)
}

// DefaultMaxMessageBytes is, for tests, what a zero Options.MaxMessageBytes
// means.
const DefaultMaxMessageBytes = defaultMaxMessageBytes

// SetGrace sets how long p.Run waits for answers once its client's input
// ended.
func SetGrace(p *Proxy, d time.Duration) { p.grace = d }

// ErrInvalidUpstream is wrapped by the error of New for a bad Upstream.
var ErrInvalidUpstream = errInvalidUpstream

// SetListenRetry sets how long p waits before it opens an HTTP upstream's
// stream of messages again.
func SetListenRetry(p *Proxy, d time.Duration) { p.listenRetry = d }
