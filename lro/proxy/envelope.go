package proxy

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/estimate"
	"github.com/zircote/lro-go/lro"
)

// When the records of a result are the array field of an object, the
// descriptor replaces the whole object, and its other fields (a total, a
// next_offset or cursor for the next page) would be lost without a word. The
// proxy adds them to the offloaded response, in a second text content, as
// the upstream wrote them.

// noteSource records, before lro sees res, its first content item (to tell
// afterwards whether lro replaced the content) and the document the records
// come from.
func (st *callState) noteSource(res *mcp.CallToolResult) {
	if st == nil || len(res.Content) == 0 {
		return
	}
	st.first = res.Content[0]
	switch sc := res.StructuredContent.(type) {
	case nil:
		if len(res.Content) == 1 {
			if tc, ok := res.Content[0].(*mcp.TextContent); ok {
				st.text = tc.Text
			}
		}
	case json.RawMessage:
		st.doc = sc
	default:
		st.doc, _ = json.Marshal(sc)
	}
}

// addEnvelope appends the other fields of the records' object to an
// offloaded result.
func (p *Proxy) addEnvelope(tool string, res *mcp.CallToolResult, st *callState) {
	if st.first == nil || len(res.Content) != 1 || res.Content[0] == st.first {
		return // lro did not replace the content
	}
	raw, ok := res.StructuredContent.(json.RawMessage)
	if !ok || string(member(raw, "offloaded")) != "true" {
		return // not a descriptor: the fallback keeps the object whole
	}
	doc := st.doc
	if doc == nil {
		if !strings.HasPrefix(strings.TrimSpace(st.text), "{") {
			return
		}
		doc = []byte(st.text)
	}
	field, others, ok := envelope(doc, p.lro.RecordsField)
	if !ok || len(others) == 0 {
		return
	}
	var note string
	if estimate.Bytes(others) > p.threshold(tool)/4 {
		names := []string{}
		members(others, func(name, _ jsontext.Value) bool {
			names = append(names, unquote(name))
			return true
		})
		note = fmt.Sprintf("Besides the offloaded records (its field %q), the result had the fields %s, too large to show here; call the tool with narrower arguments to see them.", field, strings.Join(names, ", "))
	} else {
		note = fmt.Sprintf("Besides the offloaded records (its field %q), the result had these fields: %s", field, others)
	}
	res.Content = append(res.Content, &mcp.TextContent{Text: note})
}

// envelope splits the object doc as lro does: the records are the array
// field named field, or else the longest array field. It returns the
// records' field name and an object holding the other fields, each (name
// and value) as written. ok is false when doc is no valid object with an
// array field.
func envelope(doc []byte, field string) (name string, others []byte, ok bool) {
	best, bestLen := -1, 0 // the records' member: its index, the length of its value
	i := 0
	valid := members(doc, func(n, value jsontext.Value) bool {
		if value.Kind() == '[' {
			if field != "" {
				if unquote(n) == field {
					best, name = i, unquote(n)
				}
			} else if best < 0 || len(value) > bestLen {
				best, bestLen, name = i, len(value), unquote(n)
			}
		}
		i++
		return true
	})
	if !valid || best < 0 {
		return "", nil, false
	}
	out := []byte{'{'}
	i = 0
	members(doc, func(n, value jsontext.Value) bool {
		if i != best {
			if len(out) > 1 {
				out = append(out, ',')
			}
			out = append(out, n...)
			out = append(out, ':')
			out = append(out, value...)
		}
		i++
		return true
	})
	if len(out) == 1 {
		return name, nil, true
	}
	return name, append(out, '}'), true
}

// threshold returns the token threshold of the named tool.
func (p *Proxy) threshold(tool string) int {
	if t := p.lro.Tools[tool].ThresholdTokens; t > 0 {
		return t
	}
	if p.lro.ThresholdTokens > 0 {
		return p.lro.ThresholdTokens
	}
	return lro.DefaultThresholdTokens
}
