package lro_test

import (
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro"
)

// hooks holds the test hooks (a clock, a writer that fails) that hooked
// gives to options: wrap, addTool and middleware pass them to lro beside
// the options (export_test.go), which have no room for them.
var hooks sync.Map // *lro.Options -> lro.Hooks

// hooked returns opts, with the test hooks h for wrap, addTool and
// middleware.
func hooked(opts *lro.Options, h lro.Hooks) *lro.Options {
	hooks.Store(opts, h)
	return opts
}

// hooksOf returns the test hooks of opts; none if hooked was not called.
func hooksOf(opts *lro.Options) lro.Hooks {
	h, _ := hooks.Load(opts)
	hh, _ := h.(lro.Hooks)
	return hh
}

// wrap is lro.Wrap with the test hooks of opts.
func wrap(h mcp.ToolHandler, opts *lro.Options) mcp.ToolHandler {
	return lro.WrapWith(h, opts, hooksOf(opts))
}

// addTool is lro.AddTool with the test hooks of opts.
func addTool[In, Out any](s *mcp.Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out], opts *lro.Options) {
	lro.AddToolWith(s, t, h, opts, hooksOf(opts))
}

// middleware is lro.Middleware with the test hooks of opts.
func middleware(opts *lro.Options, tools ...string) mcp.Middleware {
	return lro.MiddlewareWith(opts, hooksOf(opts), tools...)
}
