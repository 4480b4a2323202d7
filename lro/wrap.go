package lro

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/proxyflag"
	"github.com/zircote/lro-go/lro/internal/offload"
)

// ErrInvalidOption is wrapped by the error that [Options.Validate] and
// [LoadOptions] return (and that [Wrap], [AddTool] and [Middleware] panic
// with) for an invalid option, named in the message.
var ErrInvalidOption = errors.New("lro: invalid option")

// Validate reports whether opts is a valid configuration, naming the first
// invalid field. A nil *Options is valid. [Wrap], [AddTool] and [Middleware]
// panic on options that Validate rejects.
func (opts *Options) Validate() error {
	_, err := newConfig(opts)
	return err
}

// ResultSet is the full result set a handler hands to the decorator with
// [Provide], beside its own inline result (a formatted string, one page).
type ResultSet struct {
	// Records is a slice of records at the requested detail level: any
	// JSON-marshalable element type, or []json.RawMessage (or [][]byte) of
	// records already encoded, each one JSON value.
	Records any
	// Scores, when not nil, are the records' relevance scores, for the
	// summary's score_range; they are not written to the file.
	Scores []float64
}

// providedKey is the context key of the slot that receives the result set
// of one call.
type providedKey struct{}

// Provide hands the full result set of the current tool call to the
// decorator around the handler ([Wrap], [AddTool] or [Middleware]), given
// the handler's ctx: above the threshold, these records are offloaded
// instead of the handler's own result. Provide reports whether a decorator
// received the set. A later call replaces an earlier one.
func Provide(ctx context.Context, rs ResultSet) bool {
	slot, _ := ctx.Value(providedKey{}).(*atomic.Pointer[ResultSet])
	if slot == nil {
		return false
	}
	slot.Store(&rs)
	return true
}

// withSlot returns ctx with a new slot for the result set of one call, and
// the slot: one allocation for both, as a wrapper costs every call.
func withSlot(ctx context.Context) (context.Context, *atomic.Pointer[ResultSet]) {
	c := &slotContext{Context: ctx}
	return c, &c.slot
}

// slotContext is a context that holds the slot of one call under
// providedKey{}, as context.WithValue would.
type slotContext struct {
	context.Context
	slot atomic.Pointer[ResultSet]
}

// Value returns the slot for providedKey{}, else the parent's value.
func (c *slotContext) Value(key any) any {
	if _, ok := key.(providedKey); ok {
		return &c.slot
	}
	return c.Context.Value(key)
}

// Wrap returns a handler that calls h and offloads its result (or the set
// given to [Provide]) when it is estimated above the threshold, replacing
// its content by a descriptor (see the package documentation). A tool with
// an output schema is registered with [AddTool] or decorated with
// [Middleware] instead, which widen the schema to accept the descriptor.
// Wrap panics if opts is invalid (see [Options.Validate]). The returned
// handler is safe for concurrent use if h is.
func Wrap(h mcp.ToolHandler, opts *Options) mcp.ToolHandler {
	return wrapOn(h, mustConfig(opts))
}

// wrapOn is Wrap with the configuration base.
func wrapOn(h mcp.ToolHandler, base *config) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		c := base.forCall(req)
		if c == nil {
			return h(ctx, req)
		}
		ctx, slot := withSlot(ctx)
		res, err := h(ctx, req)
		if err != nil || res == nil {
			return res, err
		}
		c.apply(ctx, req, res, slot.Load(), nil)
		return res, nil
	}
}

// coreConfig is the offload pipeline's configuration of c.
func (c *config) coreConfig() *offload.Config {
	return offload.New(offload.Config{
		Threshold:          c.ThresholdTokens,
		Dir:                c.dir,
		Prefix:             c.Prefix,
		SchemaVersion:      defaultSchemaVersion,
		Profile:            c.Profile,
		Tokenizer:          c.Tokenizer,
		Observer:           c.Observer,
		Now:                c.now,
		TTL:                c.TTL,
		WrapWriter:         c.wrapWriter,
		RecordsField:       c.RecordsField,
		Native:             c.ExtractTools,
		Always:             c.Always,
		ClientDir:          c.ClientDir,
		Store:              c.Store,
		SchemaDescriptions: c.SchemaDescriptions,
		Preview:            c.PreviewRecords,
		Redactor:           c.redactor,
	})
}

// call returns what the header and descriptor record of the call req.
func (c *config) call(req *mcp.CallToolRequest) offload.Call {
	call := offload.Call{Tool: toolName(req), Operation: c.Operation, Detail: c.DefaultDetail, RecordType: c.RecordType}
	if req == nil || req.Params == nil || len(req.Params.Arguments) == 0 {
		return call
	}
	var args map[string]json.RawMessage
	if json.Unmarshal(req.Params.Arguments, &args) != nil {
		return call
	}
	var s string
	if json.Unmarshal(args[c.QueryArgument], &s) == nil {
		call.Query = &s
	}
	var d string
	if json.Unmarshal(args[c.DetailArgument], &d) == nil && d != "" {
		if detail, err := parseDetail(d); err == nil {
			call.Detail = detail
		}
	}
	return call
}

// forCall returns the configuration of the call req, or nil when its
// result goes out as it is: offloading is off for its tool, or its client
// is an LRO proxy, which receives results inline, as the specification
// requires: the proxy writes the file.
func (c *config) forCall(req *mcp.CallToolRequest) *config {
	c = c.forTool(toolName(req))
	if c.Disabled || proxyflag.InRequest(req) {
		return nil
	}
	return c
}

func toolName(req *mcp.CallToolRequest) string {
	if req == nil || req.Params == nil {
		return ""
	}
	return req.Params.Name
}

// apply offloads the result of one call when it is above the threshold,
// rewriting res in place (fields the SDK set survive). structured, when
// not nil, is the JSON of a typed tool's output. It reports whether res
// changed.
func (c *config) apply(ctx context.Context, req *mcp.CallToolRequest, res *mcp.CallToolResult, provided *ResultSet, structured []byte) bool {
	var set *offload.Set
	if provided != nil {
		if recs, elem, err := encodeRecords(provided.Records); err == nil {
			set = &offload.Set{Records: recs, Scores: provided.Scores, RecordType: elem}
		}
	}
	return c.core.Apply(ctx, func() offload.Call { return c.call(req) }, res, structured, set).Changed()
}

// encodeRecords returns the JSON of each record of a provided set, and their
// Go type when they are not encoded already.
func encodeRecords(records any) ([][]byte, reflect.Type, error) {
	switch recs := records.(type) {
	case nil:
		return nil, nil, nil
	case []json.RawMessage:
		out := make([][]byte, len(recs))
		for i, r := range recs {
			out[i] = r
		}
		return out, nil, nil
	case [][]byte:
		return recs, nil, nil
	}
	v := reflect.ValueOf(records)
	if v.Kind() != reflect.Slice && v.Kind() != reflect.Array {
		return nil, nil, fmt.Errorf("lro: Provide: Records is a %T, want a slice", records)
	}
	out := make([][]byte, v.Len())
	for i := range v.Len() {
		rec, err := json.Marshal(v.Index(i).Interface())
		if err != nil {
			return nil, nil, fmt.Errorf("lro: Provide: record %d: %w", i, err)
		}
		out[i] = rec
	}
	return out, v.Type().Elem(), nil
}
