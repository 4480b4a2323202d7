package lro_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/estimate"
	"github.com/zircote/lro-go/lro/internal/offload"
)

// Helpers that check the offload contract (issue 12): the threshold holds
// everything the client receives, an offloaded file puts the whole result
// back together, and a fallback within the threshold says truly what it
// shows.

// logLine is the record of one line of a text that is not JSON.
type logLine struct {
	Line int    `json:"line"`
	Text string `json:"text"`
}

// jsonSpace is the whitespace JSON allows around values.
const jsonSpace = " \t\r\n"

// structuredBytes returns the JSON of a result's structured content as the
// client receives it: a json.RawMessage as it is, anything else as
// json.Marshal encodes it; nil for none.
func structuredBytes(t *testing.T, sc any) []byte {
	t.Helper()
	switch v := sc.(type) {
	case nil:
		return nil
	case json.RawMessage:
		return bytes.Trim(v, jsonSpace)
	}
	data, err := json.Marshal(sc)
	if err != nil {
		t.Fatalf("structured content %T: %v", sc, err)
	}
	return data
}

// sentTokens returns the estimate of everything res sends the client that
// the threshold counts: every text item, the structured content and every
// other item but images and audio.
func sentTokens(t *testing.T, res *mcp.CallToolResult) int {
	t.Helper()
	n := 0
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			n += estimate.Tokens(c.Text)
		case *mcp.ImageContent, *mcp.AudioContent:
		default:
			data, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			n += estimate.Tokens(string(data))
		}
	}
	if sc := structuredBytes(t, res.StructuredContent); sc != nil {
		n += estimate.Tokens(string(sc))
	}
	return n
}

// fallbackWarning is what the warning of a fallback says.
type fallbackWarning struct {
	shown, count int
	// long reports the full form, which also gives the error and the
	// figures below; the short form is used when the full one does not fit.
	long         bool
	used, tokens int // ~U of ~T tokens
}

var (
	longWarning  = regexp.MustCompile(`^Warning: writing the result to a file failed \((.*)\), so it is truncated: showing (\d+) of (\d+) records \(~(\d+) of ~(\d+) tokens\)\.`)
	shortWarning = regexp.MustCompile(`^Warning: offload failed; truncated to (\d+) of (\d+) records\.$`)
)

// parseWarning reads the warning of a fallback, failing the test when text
// is not one; err, if not nil, must be the error the full form gives.
func parseWarning(t *testing.T, text string, err error) fallbackWarning {
	t.Helper()
	atoi := func(s string) int {
		n, e := strconv.Atoi(s)
		if e != nil {
			t.Fatalf("warning %q: %v", text, e)
		}
		return n
	}
	if m := longWarning.FindStringSubmatch(text); m != nil {
		if err != nil && m[1] != err.Error() {
			t.Errorf("warning %q gives the error %q, want %q", text, m[1], err)
		}
		return fallbackWarning{shown: atoi(m[2]), count: atoi(m[3]), long: true, used: atoi(m[4]), tokens: atoi(m[5])}
	}
	if m := shortWarning.FindStringSubmatch(text); m != nil {
		return fallbackWarning{shown: atoi(m[1]), count: atoi(m[2])}
	}
	t.Fatalf("%q is not a fallback warning", text)
	return fallbackWarning{}
}

// checkWarning checks that the warning w of the fallback res is true: it
// shows shown of count records, and its figures are those of res and of
// the whole result (tokens).
func checkWarning(t *testing.T, res *mcp.CallToolResult, w fallbackWarning, shown, count, tokens int) {
	t.Helper()
	if w.shown != shown || w.count != count {
		t.Errorf("warning says %d of %d records, want %d of %d", w.shown, w.count, shown, count)
	}
	if !w.long {
		return
	}
	if used := sentTokens(t, res); w.used != used {
		t.Errorf("warning says ~%d tokens are shown, but the response is ~%d", w.used, used)
	}
	if w.tokens != tokens {
		t.Errorf("warning says the result was ~%d tokens, want ~%d", w.tokens, tokens)
	}
}

// readOffloaded reads the offloaded file at path and puts it back together
// with offload.Rebuild.
func readOffloaded(t *testing.T, path string) (h offload.FileHeader, lines []json.RawMessage, rebuilt []byte) {
	t.Helper()
	h, lines, err := offload.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	recs := make([][]byte, len(lines))
	for i, l := range lines {
		recs[i] = l
	}
	rebuilt, err = offload.Rebuild(h, recs)
	if err != nil {
		t.Fatalf("rebuilding %s: %v", path, err)
	}
	return h, lines, rebuilt
}

// resultJSON returns the JSON of what the client receives of res, in the
// shape offload.Rebuild returns: {"content":[...],"structuredContent":...}.
func resultJSON(t *testing.T, res *mcp.CallToolResult) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(`{"content":[`)
	for i, c := range res.Content {
		if i > 0 {
			b.WriteByte(',')
		}
		data, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
	}
	b.WriteByte(']')
	if sc := structuredBytes(t, res.StructuredContent); sc != nil {
		b.WriteString(`,"structuredContent":`)
		b.Write(sc)
	}
	b.WriteByte('}')
	return b.Bytes()
}

// compactJSON returns the valid JSON value v without whitespace and with
// its strings (member names included) in one spelling, so that two values
// compare as bytes; numbers stay as written.
func compactJSON(t *testing.T, v []byte) []byte {
	t.Helper()
	c := jsontext.Value(bytes.Clone(bytes.Trim(v, jsonSpace)))
	if err := c.Compact(jsontext.PreserveRawStrings(false)); err != nil {
		t.Fatalf("compacting %.200q: %v", v, err)
	}
	return c
}

// holdsJSON reports whether text is one JSON document, up to the
// whitespace JSON allows around it.
func holdsJSON(text string) bool {
	doc := bytes.Trim([]byte(text), jsonSpace)
	return len(doc) > 0 && jsontext.Value(doc).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
}

// normalResult returns the result JSON raw ({"content":[...],
// "structuredContent":...}) in a form that compares as bytes: compact, a
// text item that holds one JSON document as that document ({"type":"text",
// "json":...}), and numbers as written.
func normalResult(t *testing.T, raw []byte) []byte {
	t.Helper()
	var r struct {
		Content           []json.RawMessage `json:"content"`
		StructuredContent json.RawMessage   `json:"structuredContent"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("result %.200q: %v", raw, err)
	}
	var b bytes.Buffer
	b.WriteString(`{"content":[`)
	for i, item := range r.Content {
		if i > 0 {
			b.WriteByte(',')
		}
		var text struct {
			Type string  `json:"type"`
			Text *string `json:"text"`
		}
		if json.Unmarshal(item, &text) != nil || text.Type != "text" || text.Text == nil {
			b.Write(compactJSON(t, item))
			continue
		}
		if holdsJSON(*text.Text) {
			b.WriteString(`{"type":"text","json":`)
			b.Write(compactJSON(t, []byte(*text.Text)))
		} else {
			quoted, err := json.Marshal(*text.Text)
			if err != nil {
				t.Fatal(err)
			}
			b.WriteString(`{"type":"text","text":`)
			b.Write(compactJSON(t, quoted))
		}
		b.WriteByte('}')
	}
	b.WriteByte(']')
	if r.StructuredContent != nil {
		b.WriteString(`,"structuredContent":`)
		b.Write(compactJSON(t, r.StructuredContent))
	}
	b.WriteByte('}')
	return b.Bytes()
}

// checkRebuilt checks that rebuilt, the result put back together from an
// offloaded file, is the result the tool returned (orig, its JSON as from
// resultJSON, taken before the call was offloaded).
func checkRebuilt(t *testing.T, orig, rebuilt []byte) {
	t.Helper()
	want, got := normalResult(t, orig), normalResult(t, rebuilt)
	if !bytes.Equal(want, got) {
		t.Errorf("the file does not put the result back together:\n got %.2000s\nwant %.2000s", got, want)
	}
}
