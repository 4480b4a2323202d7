package lro

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/offload"
	"github.com/zircote/lro-go/internal/outschema"
)

// Middleware returns server middleware that offloads the results of the named
// tools, or of every tool when no name is given: one line for a server with
// many tools. Install it once per server with
// [mcp.Server.AddReceivingMiddleware].
//
// It also amends tools/list so that each selected tool's output schema
// accepts the descriptor. Handlers of selected tools may call [Provide].
// Middleware panics if opts is invalid (see [Options.Validate]).
func Middleware(opts *Options, tools ...string) mcp.Middleware {
	base := mustConfig(opts)
	selected := func(name string) bool { return len(tools) == 0 || slices.Contains(tools, name) }
	var widened sync.Map // *mcp.Tool -> *mcp.Tool with the widened schema
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
				c := base.forTool(toolName(call))
				if c.Disabled || c.bypass(call) {
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
						if w, ok := widened.Load(t); ok {
							lr.Tools[i] = w.(*mcp.Tool)
							continue
						}
						schema, err := outschema.Widen(t.OutputSchema)
						if err != nil {
							continue
						}
						copy := *t
						copy.OutputSchema = schema
						widened.Store(t, &copy)
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
// tools/call that are JSON null into {}, which means the same: no arguments.
// It also answers a resources/read whose uri holds a control character
// (NUL, BEL, DEL...) with an invalid-params error naming it.
//
// go-sdk v1.8.0 panics on null arguments (which a Go client that passes a
// nil map sends) when it applies the defaults of a typed tool's input
// schema, crashing the server process, and ends the connection on a
// resources/read of such a uri, whether or not the server has resources.
// Install it once per server, before any other middleware that reads
// arguments:
//
//	s.AddReceivingMiddleware(lro.GuardNullArguments)
//
// extract.AddTools guards resources/read itself.
func GuardNullArguments(next mcp.MethodHandler) mcp.MethodHandler {
	next = offload.GuardResourceURIs(next)
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil && string(bytes.TrimSpace(r.Params.Arguments)) == "null" {
			r.Params.Arguments = json.RawMessage("{}")
		}
		return next(ctx, method, req)
	}
}

// CancelWith returns server middleware that cancels the context of every
// request in flight when life is done, with life's cause.
//
// go-sdk v1.8.0 does not, and Server.Run waits for the requests in flight:
// a server stopped by a signal would wait for its tool calls (and their
// worker processes) to reach their time limits. Install it with the
// context that a signal cancels:
//
//	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
//	defer stop()
//	s.AddReceivingMiddleware(lro.CancelWith(ctx))
//	err := s.Run(ctx, &mcp.StdioTransport{})
//
// Over HTTP, also end the sessions when the http.Server shuts down
// (RegisterOnShutdown), as their streams of server messages last as long as
// they do: examples/memory does both.
func CancelWith(life context.Context) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			ctx, cancel := context.WithCancelCause(ctx)
			defer cancel(nil)
			stop := context.AfterFunc(life, func() { cancel(context.Cause(life)) })
			defer stop()
			return next(ctx, method, req)
		}
	}
}
