package offload

import (
	"bytes"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/redact"
)

// redactResult replaces the credentials of r by markers before the records
// are found: the file, the descriptor and the fallback are made from what it
// leaves. The handler's items are not changed (r holds copies). It returns
// what it redacted, nil without a Redactor.
func (c *Config) redactResult(r *result) redact.Counts {
	if c.Redactor == nil {
		return nil
	}
	n := redact.Counts{}
	structured := r.structured
	if structured != nil {
		// Not JSON: not offloaded (see plan), so left as it is.
		r.structured, _ = c.Redactor.JSON(structured, n)
	}
	for i := range r.items {
		it := &r.items[i]
		if it.text != nil {
			// The header's "result" keeps a text item's _meta: redacted as
			// the JSON of other items is.
			if meta := c.redactMeta(it.text.Meta, n); meta != nil {
				t := *it.text
				t.Meta = meta
				it.text, it.item = &t, &t
			}
		}
		switch {
		case it.text != nil && structured != nil && it.text.Text == string(structured):
			// A typed tool's text: the structured content, redacted once.
			if len(r.structured) != len(structured) || &r.structured[0] != &structured[0] {
				t := *it.text
				t.Text = string(r.structured)
				it.text, it.item = &t, &t
			}
		case it.text != nil:
			counts := redact.Counts{}
			text := c.redactText(it.text.Text, counts)
			if text == it.text.Text {
				continue
			}
			// Counted once when it repeats the structured content.
			if structured == nil || !sameJSON(it.text.Text, structured) {
				for k, v := range counts {
					n[k] += v
				}
			}
			t := *it.text
			t.Text = text
			it.text, it.item = &t, &t
		case it.raw != nil:
			it.raw, _ = c.Redactor.JSON(it.raw, n) // marshalled: valid
		}
	}
	return n
}

// redactMeta returns the _meta m of a text item with its credentials
// replaced, adding what it redacted to n, or nil when it redacts nothing.
// It is read back as the JSON the header's "result" writes of it (numbers
// as written), so that only the redacted strings change there.
func (c *Config) redactMeta(m mcp.Meta, n redact.Counts) mcp.Meta {
	if len(m) == 0 {
		return nil
	}
	raw, err := json.Marshal(m)
	if err != nil {
		return nil // not written either (writeTextItem)
	}
	out, _ := c.Redactor.JSON(raw, n) // marshalled: valid
	if len(out) == len(raw) && &out[0] == &raw[0] {
		return nil
	}
	var red mcp.Meta
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	if dec.Decode(&red) != nil {
		return mcp.Meta{} // cannot happen: out is valid JSON
	}
	return red
}

// redactText redacts a JSON document by its strings, so that every other byte
// stays, and any other text as it is (no marker holds a delimiter).
func (c *Config) redactText(text string, n redact.Counts) string {
	b := trimSpace(readOnlyBytes(text))
	if len(b) > 0 && (b[0] == '{' || b[0] == '[') {
		out, ok := c.Redactor.JSON(readOnlyBytes(text), n)
		if ok {
			if len(out) == len(text) && (len(out) == 0 || &out[0] == &readOnlyBytes(text)[0]) {
				return text
			}
			return string(out)
		}
	}
	return c.Redactor.String(text, n)
}

// redactRows redacts the records of a provided set in place.
func (c *Config) redactRows(rows [][]byte) redact.Counts {
	if c.Redactor == nil {
		return nil
	}
	n := redact.Counts{}
	for i, row := range rows {
		if out, ok := c.Redactor.JSON(row, n); ok && !bytes.Equal(out, row) {
			rows[i] = out
		}
	}
	return n
}

// redactCall redacts the call's query, adding to n; nothing when n is nil.
func (c *Config) redactCall(call *Call, n redact.Counts) {
	if n == nil || call.Query == nil {
		return
	}
	if q := c.Redactor.String(*call.Query, n); q != *call.Query {
		call.Query = &q
	}
}
