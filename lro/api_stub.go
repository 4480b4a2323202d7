package lro

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ErrInvalidOption is wrapped by the error of an invalid [Options] field.
var ErrInvalidOption = errors.New("lro: invalid option")

// ResultSet is the full result set a handler hands to the decorator with
// [Provide], alongside its own (formatted, budgeted or paged) inline result.
type ResultSet struct {
	// Records is a slice of records (any JSON-marshalable element type, or
	// []json.RawMessage) at the requested detail level.
	Records any
	// Scores, when not nil, are the records' relevance scores; the summary's
	// score_range is their minimum and maximum.
	Scores []float64
}

// Provide hands the full result set to the decorator around the handler. It
// reports whether a decorator is listening.
func Provide(ctx context.Context, rs ResultSet) bool { panic("TODO") }

// Wrap decorates a tool handler with offloading.
func Wrap(h mcp.ToolHandler, opts *Options) mcp.ToolHandler { panic("TODO") }

// AddTool is mcp.AddTool with offloading.
func AddTool[In, Out any](s *mcp.Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out], opts *Options) {
	panic("TODO")
}

// Middleware offloads the results of the named tools (all when none named).
func Middleware(opts *Options, tools ...string) mcp.Middleware { panic("TODO") }
