package lro

import (
	"bytes"
	"context"
	"encoding/json"
	"runtime"
	"slices"
	"sync"
	"weak"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/outschema"
	"github.com/zircote/lro-go/lro/internal/offload"
)

// Middleware returns server middleware that offloads the results of the named
// tools, or of every tool when no name is given; install it once per server
// with [mcp.Server.AddReceivingMiddleware]. It also widens each selected
// tool's output schema in tools/list to accept the descriptor. Middleware
// panics if opts is invalid (see [Options.Validate]).
func Middleware(opts *Options, tools ...string) mcp.Middleware {
	return middlewareOn(mustConfig(opts), tools...)
}

// middlewareOn is Middleware with the configuration base.
func middlewareOn(base *config, tools ...string) mcp.Middleware {
	selected := func(name string) bool { return len(tools) == 0 || slices.Contains(tools, name) }
	// weak.Pointer[mcp.Tool] -> *mcp.Tool with the widened schema; an entry
	// goes with its tool (a server's removed, or a whole server's).
	var widened sync.Map
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if base.Disabled {
				return next(ctx, method, req)
			}
			switch method {
			case "tools/call":
				call, ok := req.(*mcp.CallToolRequest)
				if !ok || !selected(toolName(call)) {
					return next(ctx, method, req)
				}
				c := base.forCall(call)
				if c == nil {
					return next(ctx, method, req)
				}
				ctx, slot := withSlot(ctx)
				res, err := next(ctx, method, req)
				if tr, ok := res.(*mcp.CallToolResult); ok && err == nil && tr != nil {
					c.apply(ctx, call, tr, slot.Load(), nil)
				}
				return res, err
			case "tools/list":
				res, err := next(ctx, method, req)
				if lr, ok := res.(*mcp.ListToolsResult); ok && err == nil && lr != nil {
					for i, t := range lr.Tools {
						if t == nil || t.OutputSchema == nil || !selected(t.Name) || base.forTool(t.Name).Disabled {
							continue
						}
						key := weak.Make(t)
						if w, ok := widened.Load(key); ok {
							lr.Tools[i] = w.(*mcp.Tool)
							continue
						}
						schema, err := outschema.Widen(t.OutputSchema)
						if err != nil {
							continue
						}
						copy := *t
						copy.OutputSchema = schema
						if _, loaded := widened.LoadOrStore(key, &copy); !loaded {
							runtime.AddCleanup(t, func(key weak.Pointer[mcp.Tool]) { widened.Delete(key) }, key)
						}
						lr.Tools[i] = &copy
					}
				}
				return res, err
			}
			return next(ctx, method, req)
		}
	}
}

// GuardNullArguments is server middleware that turns the arguments of a
// tools/call that are JSON null into {}, and answers a resources/read whose
// uri holds a control character with an invalid-params error: go-sdk
// v1.8.0 crashes the server process on the first and ends the connection
// on the second. Install it once per server, before any other middleware
// that reads arguments: s.AddReceivingMiddleware(lro.GuardNullArguments).
func GuardNullArguments(next mcp.MethodHandler) mcp.MethodHandler {
	next = offload.GuardResourceURIs(next)
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil && string(bytes.TrimSpace(r.Params.Arguments)) == "null" {
			r.Params.Arguments = json.RawMessage("{}")
		}
		return next(ctx, method, req)
	}
}
