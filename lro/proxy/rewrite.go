package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/outschema"
	"github.com/zircote/lro-go/internal/proxyflag"
	"github.com/zircote/lro-go/internal/rawjson"
)

// The only messages the relay changes. Each function returns its input when
// it is not what it expects.

var proxyMark = []byte(`{"proxy":true}`)

// markInitialize returns the params of the client's initialize request with
// the proxy's mark: the capability extension [proxyflag.Key] and the
// specification's clientInfo.proxy = true.
func markInitialize(params []byte) []byte {
	params = withPath(params, proxyMark, "capabilities", "extensions", proxyflag.Key)
	if member(params, "clientInfo").Kind() == '{' {
		params = withPath(params, []byte("true"), "clientInfo", "proxy")
	}
	return params
}

// markCall returns the params of a tools/call request with the proxy's mark
// in its _meta, which a server of protocol 2026-07-28 reads, and
// clientInfo.proxy = true when the client sent its clientInfo there.
func markCall(params []byte) []byte {
	meta := member(params, "_meta")
	if meta.Kind() != '{' {
		meta = []byte("{}")
	}
	if member(meta, mcp.MetaKeyClientInfo).Kind() == '{' {
		meta = withPath(meta, []byte("true"), mcp.MetaKeyClientInfo, "proxy")
	}
	return withPath(params, withPath(meta, proxyMark, proxyflag.Key), "_meta")
}

// advertiseTools returns an initialize result whose capabilities include
// tools, for the proxy's local tools, and reports whether it added them:
// the upstream has no tools.
func advertiseTools(result []byte) ([]byte, bool) {
	if caps := member(result, "capabilities"); caps.Kind() != '{' || member(caps, "tools") != nil {
		return result, false
	}
	return withPath(result, []byte("{}"), "capabilities", "tools"), true
}

// rewriteTools returns a page of tools/list: the upstream's tools with
// their output schemas widened to accept the descriptor, without those a
// local tool hides, and, on the last page (no nextCursor, or an empty
// one), the local tools.
func (p *Proxy) rewriteTools(result []byte) []byte {
	tools := member(result, "tools")
	if tools.Kind() != '[' {
		return result
	}
	var list [][]byte
	dec := rawjson.NewDecoder(tools)
	ok := rawjson.Elements(dec, '[', func() bool {
		tool, err := dec.ReadValue()
		if err != nil {
			return false
		}
		if name := stringMember(tool, "name"); !p.localNames[name] {
			list = append(list, p.widen(name, tool))
		} else {
			p.logger.Warn("upstream tool hidden: the proxy has a local tool of the same name", "tool", name)
		}
		return true
	})
	if !ok {
		return result
	}
	if stringMember(result, "nextCursor") == "" { // none, null or "": the clients stop here
		list = append(list, p.localTools...)
	}
	return withPath(result, slices.Concat([]byte{'['}, bytes.Join(list, []byte{','}), []byte{']'}), "tools")
}

// widen returns tool with its output schema widened, or as it is when it
// has none or its results are never offloaded.
func (p *Proxy) widen(name string, tool []byte) []byte {
	schema := member(tool, "outputSchema")
	if schema.Kind() != '{' || p.lro.Disabled || p.lro.Tools[name].Disabled {
		return tool
	}
	data, err := outschema.WidenJSON(schema)
	if err != nil {
		p.logger.Warn("output schema not widened; an offloaded result may fail the client's validation", "tool", name, "err", err)
		return tool
	}
	return withPath(tool, data, "outputSchema")
}

// offload hands the result of a tools/call with params to [offloader]:
// above the threshold, it returns the result with the descriptor in its
// content and structured content, every other member as written.
func (p *Proxy) offload(ctx context.Context, params, result []byte) []byte {
	var req mcp.CallToolParamsRaw
	res, fields, ok := decodeResult(result)
	if !ok || json.Unmarshal(params, &req) != nil || !p.offloader(ctx, &mcp.CallToolRequest{Params: &req}, res) {
		return result
	}
	content, err := json.Marshal(res.Content)
	if err != nil {
		return result
	}
	set := map[string][]byte{"content": content, "structuredContent": nil}
	if sc, ok := res.StructuredContent.(json.RawMessage); ok {
		set["structuredContent"] = sc
	}
	return join(fields, set)
}

// decodeResult reads a tools/call result in one walk: its content, text
// items unquoted with jsontext (go-sdk's decoder is much slower on a long
// text), its structured content and its members as written, for [join]. It
// reports false for a result never offloaded (an error, not complete) or
// that it cannot read.
func decodeResult(result []byte) (*mcp.CallToolResult, []field, bool) {
	res := &mcp.CallToolResult{}
	var fields []field
	dec := rawjson.NewDecoder(result)
	ok := rawjson.Object(dec, func(name jsontext.Value) bool {
		key := rawjson.Unquote(name)
		if key == "content" {
			var ok bool
			res.Content, ok = readContent(dec, result)
			fields = append(fields, field{name, nil})
			return ok
		}
		value, err := dec.ReadValue()
		if err != nil {
			return false
		}
		switch key {
		case "structuredContent":
			res.StructuredContent = nil
			if value.Kind() != 'n' {
				res.StructuredContent = json.RawMessage(value)
			}
		case "isError":
			if value.Kind() == 't' {
				return false
			}
		case "resultType":
			if rawjson.Unquote(value) != "complete" {
				return false
			}
		case "inputRequests", "requestState":
			return false
		}
		fields = append(fields, field{name, value})
		return true
	})
	if !ok || !rawjson.AtEnd(dec) {
		return nil, nil, false
	}
	return res, fields, true
}

// readContent reads the array of content items that dec is at, in doc.
func readContent(dec *jsontext.Decoder, doc []byte) ([]mcp.Content, bool) {
	items := []mcp.Content{}
	ok := rawjson.Elements(dec, '[', func() bool {
		start := dec.InputOffset()
		t, ok := readText(dec)
		var item mcp.Content = t
		if ok && t == nil { // not a plain text item: go-sdk decodes (and checks) it
			raw := bytes.TrimLeft(doc[start:dec.InputOffset()], ", \t\r\n")
			var one mcp.CallToolResult
			if ok = json.Unmarshal(slices.Concat([]byte(`{"content":[`), raw, []byte(`]}`)), &one) == nil; ok {
				item = one.Content[0]
			}
		}
		items = append(items, item)
		return ok
	})
	return items, ok
}

// readText reads the content item that dec is at: a text item of the
// members go-sdk knows, or nil for any other item. It reports false when
// the item is no valid JSON object.
func readText(dec *jsontext.Decoder) (*mcp.TextContent, bool) {
	t := &mcp.TextContent{}
	text, plain := false, true
	ok := rawjson.Object(dec, func(name jsontext.Value) bool {
		value, err := dec.ReadValue()
		if err != nil || !plain {
			return err == nil // read to its end, for go-sdk
		}
		switch rawjson.Unquote(name) {
		case "type":
			text = value.Kind() == '"' && rawjson.Unquote(value) == "text"
			plain = text
		case "text":
			plain = value.Kind() == '"'
			if plain {
				t.Text = rawjson.Unquote(value)
			}
		case "_meta":
			t.Meta = nil
			plain = json.Unmarshal(value, &t.Meta) == nil
		case "annotations":
			t.Annotations = nil
			plain = json.Unmarshal(value, &t.Annotations) == nil
		default:
			plain = false // a field go-sdk's decoder would check
		}
		return true
	})
	if !ok || !plain || !text {
		return nil, ok
	}
	return t, true
}
