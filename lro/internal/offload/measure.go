package offload

import (
	"encoding/json"
	"unsafe"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// result is a tool result as the client would receive it.
type result struct {
	items      []item
	structured []byte // the structured content's JSON; nil when there is none
}

// item is one content item.
type item struct {
	item  mcp.Content
	text  *mcp.TextContent // for a text item
	media bool             // an image or audio: stays in the response, not counted
	raw   []byte           // the item's JSON, for every item but text and media
}

// read reads res as the client would receive it and estimates it, once (the
// header records that figure): images and audio are not counted, other items
// but text as their JSON. structured, the JSON of res.StructuredContent when
// the caller has it, is validated only if the result is offloaded. Unless
// whole, a result that is not above the threshold is only estimated, without
// an allocation for one of text, images and audio: r is then nil.
func (c *Config) read(res *mcp.CallToolResult, structured []byte, whole bool) (r *result, tokens int, err error) {
	if structured == nil && res.StructuredContent != nil {
		if structured, err = structuredJSON(res.StructuredContent); err != nil {
			return nil, 0, err
		}
	}
	structuredTokens := 0
	if structured != nil {
		structured = trimSpace(structured)
		structuredTokens = c.Tokenizer.Tokens(structured)
		tokens = structuredTokens
	}
	start := func() { r = &result{items: make([]item, len(res.Content)), structured: structured} }
	for i, it := range res.Content {
		switch it := it.(type) {
		case *mcp.ImageContent, *mcp.AudioContent:
		case *mcp.TextContent:
			if structured != nil && len(it.Text) == len(structured) && unsafe.StringData(it.Text) == unsafe.SliceData(structured) {
				tokens += structuredTokens // a typed tool's text is a view of its structured content
				continue
			}
			tokens += c.textTokens(it.Text)
		default:
			raw, err := json.Marshal(it)
			if err != nil {
				return nil, 0, err
			}
			if r == nil {
				start()
			}
			r.items[i].raw = raw
			tokens += c.Tokenizer.Tokens(raw)
		}
	}
	if r == nil {
		if !whole && !c.above(tokens) {
			return nil, tokens, nil
		}
		start()
	}
	for i, it := range res.Content {
		r.items[i].item = it
		switch it := it.(type) {
		case *mcp.ImageContent, *mcp.AudioContent:
			r.items[i].media = true
		case *mcp.TextContent:
			r.items[i].text = it
		}
	}
	return r, tokens, nil
}

// structuredJSON returns the JSON of a result's structured content.
func structuredJSON(sc any) ([]byte, error) {
	if v, ok := sc.(json.RawMessage); ok {
		return v, nil
	}
	return json.Marshal(sc)
}

// above reports whether a result of tokens is offloaded.
func (c *Config) above(tokens int) bool { return tokens > c.Threshold || c.Always }
