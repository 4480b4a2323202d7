package lro

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/outschema"
)

// AddTool is [mcp.AddTool] with offloading: it registers h on s, and when the
// records of a result exceed the threshold, the client receives a descriptor
// instead of the Out value. The tool's output schema (inferred from Out when
// t has none) is widened to accept the descriptor too. The records are the
// Out value when it is a slice, or else its array field
// ([Options.RecordsField], or the only or longest one). AddTool panics, as
// mcp.AddTool does, if the tool or opts is invalid.
func AddTool[In, Out any](s *mcp.Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out], opts *Options) {
	addToolOn(s, t, h, mustConfig(opts))
}

// addToolOn is AddTool with the configuration base.
func addToolOn[In, Out any](s *mcp.Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out], base *config) {
	c := base.forTool(t.Name)
	tt := *t
	schema := tt.OutputSchema
	if schema == nil && reflect.TypeFor[Out]() != reflect.TypeFor[any]() {
		inferred, err := jsonschema.For[Out](nil)
		if err != nil {
			panic(fmt.Sprintf("lro.AddTool: tool %q: output schema: %v", t.Name, err))
		}
		schema = inferred
	}
	if schema != nil {
		widened, err := outschema.Widen(schema)
		if err != nil {
			panic(fmt.Sprintf("lro.AddTool: tool %q: output schema: %v", t.Name, err))
		}
		tt.OutputSchema = widened
		if accepts := schemaAccepts(widened); accepts != nil {
			cc, core := *c, *c.core
			core.Accepts = accepts
			cc.core = &core
			c = &cc
		}
	}
	if c.RecordType == nil {
		c.RecordType = recordType(reflect.TypeFor[Out](), c.RecordsField)
	}
	mcp.AddTool(s, &tt, wrapTyped(h, c))
}

// schemaAccepts returns whether the output schema accepts a structured
// content, as go-sdk checks a typed tool's output; nil when the schema does
// not resolve (mcp.AddTool then refuses it).
func schemaAccepts(schema any) func([]byte) bool {
	data, err := json.Marshal(schema)
	if err != nil {
		return nil
	}
	var s jsonschema.Schema
	if json.Unmarshal(data, &s) != nil {
		return nil
	}
	resolved, err := s.Resolve(nil)
	if err != nil {
		return nil
	}
	return func(structured []byte) bool {
		var v any
		if json.Unmarshal(structured, &v) != nil {
			return false
		}
		if _, ok := v.(map[string]any); ok && resolved.ApplyDefaults(&v) != nil {
			return false
		}
		return resolved.Validate(&v) == nil
	}
}

// wrapTyped is the handler AddTool registers: h, with the result offloaded
// as c says.
func wrapTyped[In, Out any](h mcp.ToolHandlerFor[In, Out], c *config) mcp.ToolHandlerFor[In, any] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		if c.forCall(req) == nil {
			res, out, err := h(ctx, req, in)
			return res, zeroForNil(out), err // the SDK ignores out with an error
		}
		ctx, slot := withSlot(ctx)
		res, out, err := h(ctx, req, in)
		if err != nil {
			return res, nil, err
		}
		if res == nil {
			res = &mcp.CallToolResult{}
		}
		v := zeroForNil(out)
		if v == nil {
			// No output (an Out of any): the SDK sends the result as it is,
			// with no structured content and no text of it.
			c.apply(ctx, req, res, slot.Load(), nil)
			return res, nil, nil
		}
		data, err := json.Marshal(v)
		if err != nil {
			return nil, nil, fmt.Errorf("lro: marshaling output: %w", err)
		}
		// Counted as the client receives it: the SDK sends the output's
		// JSON as text too, for a handler without content or an output
		// that is not an object.
		handlerContent := res.Content
		object := jsontext.Value(data).Kind() == '{'
		if res.Content == nil || !object {
			// A view of data, not a copy: data is never written to again.
			text := unsafe.String(unsafe.SliceData(data), len(data))
			res.Content = append(slices.Clip(res.Content), &mcp.TextContent{Text: text})
		}
		if !c.apply(ctx, req, res, slot.Load(), data) {
			res.Content = handlerContent
			return res, json.RawMessage(data), nil
		}
		sc, _ := res.StructuredContent.(json.RawMessage)
		if sc == nil {
			return res, nil, nil
		}
		// The SDK adds the text of a returned value that is not an object,
		// which a fallback already shows: the fallback's copy goes.
		if jsontext.Value(sc).Kind() != '{' && len(res.Content) > 1 {
			if tc, ok := res.Content[1].(*mcp.TextContent); ok && tc.Text == string(sc) {
				res.Content = slices.Delete(slices.Clip(res.Content), 1, 2)
			}
		}
		return res, sc, nil
	}
}

// zeroForNil returns, for a nil pointer, a pointer to the zero value of
// what it points to, as the SDK sends for a typed tool.
func zeroForNil(out any) any {
	v := reflect.ValueOf(out)
	if v.Kind() == reflect.Pointer && v.IsNil() {
		return reflect.New(v.Type().Elem()).Interface()
	}
	return out
}

// recordType returns the Go type of one record of an Out value: the element
// type of a slice, or of the named (or only) slice field of a struct.
func recordType(t reflect.Type, field string) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return t.Elem()
	case reflect.Struct:
		var found []reflect.Type
		for f := range t.Fields() {
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			k := f.Type.Kind()
			array := (k == reflect.Slice || k == reflect.Array) && f.Type != reflect.TypeFor[json.RawMessage]()
			if !f.IsExported() || name == "-" || !array {
				continue
			}
			if field == "" || cmp.Or(name, f.Name) == field {
				found = append(found, f.Type.Elem())
			}
		}
		if len(found) == 1 {
			return found[0]
		}
	}
	return nil
}
