package lro

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// AddTool is [mcp.AddTool] with offloading: it registers h on s, and when the
// records of a result exceed the threshold, the client receives a descriptor
// instead of the Out value.
//
// The tool's advertised output schema (inferred from Out when t has none) is
// widened to accept the descriptor as well, so that clients that validate
// structured content, such as the official TypeScript client, accept both
// inline and offloaded results. Input validation and defaults work exactly as
// with mcp.AddTool. The records are the Out value when it is a slice, or else
// its array field ([Options.RecordsField], or the only or longest one); the
// line schema is reflected from their Go element type. A handler may hand over
// a different full result set with [Provide].
//
// AddTool panics, as mcp.AddTool does, if the tool or opts is invalid.
func AddTool[In, Out any](s *mcp.Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out], opts *Options) {
	c := mustConfig(opts).forTool(t.Name)
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
		widened, err := WidenOutputSchema(schema)
		if err != nil {
			panic(fmt.Sprintf("lro.AddTool: tool %q: output schema: %v", t.Name, err))
		}
		tt.OutputSchema = widened
	}
	if c.RecordType == nil {
		c.RecordType = recordType(reflect.TypeFor[Out](), c.RecordsField)
	}
	mcp.AddTool(s, &tt, wrapTyped(h, c))
}

// wrapTyped is the handler AddTool registers: h, with the result offloaded
// as c says.
func wrapTyped[In, Out any](h mcp.ToolHandlerFor[In, Out], c *config) mcp.ToolHandlerFor[In, any] {
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
		if c.Disabled || c.bypass(req) {
			res, out, err := h(ctx, req, in)
			return res, outOrNil(out, err), err
		}
		ctx, slot := withSlot(ctx)
		res, out, err := h(ctx, req, in)
		if err != nil {
			return res, nil, err
		}
		if res == nil {
			res = &mcp.CallToolResult{}
		}
		data, err := json.Marshal(out)
		if err != nil {
			return nil, nil, fmt.Errorf("lro: marshaling output: %w", err)
		}
		sdkText := res.Content == nil
		if sdkText {
			// What the SDK sends beside the structured content when the
			// handler sets no content: the same JSON as text. It is set
			// here only for the estimate; inline, the SDK writes it as
			// ever.
			res.Content = []mcp.Content{&mcp.TextContent{Text: string(data)}}
		}
		// The SDK sets StructuredContent from the returned value and keeps
		// the Content that apply wrote.
		if c.apply(ctx, req, res, slot.get(), data) {
			if res.StructuredContent == nil {
				return res, nil, nil
			}
			return res, res.StructuredContent, nil
		}
		if sdkText {
			res.Content = nil
		}
		return res, json.RawMessage(data), nil
	}
}

func outOrNil[Out any](out Out, err error) any {
	if err != nil {
		return nil
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
		var found reflect.Type
		n := 0
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() || (f.Type.Kind() != reflect.Slice && f.Type.Kind() != reflect.Array) || f.Type == reflect.TypeFor[json.RawMessage]() {
				continue
			}
			name := jsonName(f)
			if name == "-" {
				continue
			}
			if field != "" {
				if name == field {
					return f.Type.Elem()
				}
				continue
			}
			found = f.Type.Elem()
			n++
		}
		if n == 1 {
			return found
		}
	}
	return nil
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		return f.Name
	}
	return name
}
