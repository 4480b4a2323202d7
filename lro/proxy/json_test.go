package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/zircote/lro-go/internal/rawjson"
	"github.com/zircote/lro-go/lro"
)

// TestDecodeMessage checks decodeMessage against go-sdk's decoder.
func TestDecodeMessage(t *testing.T) {
	for _, msg := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","n":1.50}}`,
		`{"jsonrpc":"2.0","id":"a-1","method":"x/future"}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":7}}`,
		`{"method":"ping","id":3,"jsonrpc":"2.0","params":{}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"content":[],"big":1e300}}`,
		`{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"no such method","data":{"m":"x"}}}`,
		`{"jsonrpc":"2.0","id":2,"result":{},"error":null}`,
	} {
		want, err := jsonrpc.DecodeMessage([]byte(msg))
		if err != nil {
			t.Fatalf("%s: go-sdk: %v", msg, err)
		}
		got, err := decodeMessage([]byte(msg))
		if err != nil {
			t.Errorf("%s: %v", msg, err)
			continue
		}
		w, _ := jsonrpc.EncodeMessage(want)
		g, _ := jsonrpc.EncodeMessage(got)
		if string(w) != string(g) {
			t.Errorf("%s:\n got %s\nwant %s", msg, g, w)
		}
	}
	for _, msg := range []string{
		`not json`,
		`{"jsonrpc":"1.0","id":1,"method":"x"}`,
		`{"jsonrpc":"2.0","result":{}}`,
		`{"jsonrpc":"2.0","id":{},"method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"method":"x"} trailing`,
		`[{"jsonrpc":"2.0","id":1,"method":"x"}]`,
	} {
		if got, err := decodeMessage([]byte(msg)); err == nil {
			t.Errorf("%s: decoded as %v; want an error", msg, got)
		}
	}
}

// TestOffloadMemory reads and offloads a tool result of 17 MiB as the relay
// does: what it allocates is a small multiple of the message (the line,
// the unquoted text, the offload core's buffers), whatever the message's
// size.
func TestOffloadMemory(t *testing.T) {
	text := strings.Repeat(strings.Repeat("x", 999)+"\n", 17<<10)
	q, err := json.Marshal(text)
	if err != nil {
		t.Fatal(err)
	}
	data := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":` + string(q) + `}]}}` + "\n"
	p, err := New(Upstream{URL: "http://localhost/mcp"}, &Options{LRO: &lro.Options{OutputDir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	line, err := readLine(bufio.NewReader(strings.NewReader(data)), defaultMaxMessageBytes, nil)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := decodeMessage(line)
	if err != nil {
		t.Fatal(err)
	}
	out := p.offload(context.Background(), []byte(`{"name":"lines"}`), msg.(*jsonrpc.Response).Result)
	runtime.ReadMemStats(&after)
	if !strings.Contains(string(out), `"offloaded":true`) {
		t.Fatalf("not offloaded: %.200s", out)
	}
	const most = 8
	ratio := float64(after.TotalAlloc-before.TotalAlloc) / float64(len(data))
	t.Logf("allocated %.1f times the message", ratio)
	if ratio > most {
		t.Errorf("allocated %.1f times the message of %d bytes; want at most %d", ratio, len(data), most)
	}
}

// withMembers is withPath's edit of doc's members, with every member of
// set: the members of doc, as rawjson.Members reads them, joined with set.
func withMembers(doc []byte, set map[string][]byte) ([]byte, bool) {
	var fields []field
	if !rawjson.Members(doc, func(name, value jsontext.Value) bool {
		fields = append(fields, field{name, value})
		return true
	}) {
		return doc, false
	}
	return join(fields, set), true
}

func TestWithMembers(t *testing.T) {
	tests := []struct {
		doc  string
		set  map[string][]byte
		want string // "" for doc returned as it is, and false
		why  string
	}{
		{`{"a":1,"b":2,"c":3}`, map[string][]byte{"b": []byte(`9`)}, `{"a":1,"b":9,"c":3}`, "replaced where it was"},
		{`{"a":1,"b":2,"c":3}`, map[string][]byte{"b": nil}, `{"a":1,"c":3}`, "nil deletes"},
		{`{"b":1,"a":2,"b":3}`, map[string][]byte{"b": []byte(`9`)}, `{"b":9,"a":2}`, "duplicates: replaced where the first was, the others dropped"},
		{`{"a":1}`, map[string][]byte{"z": []byte(`1`), "y": []byte(`2`), "x": nil}, `{"a":1,"y":2,"z":1}`, "new members last, sorted; nil for a missing one adds nothing"},
		{` { } `, map[string][]byte{"a": []byte(`[]`)}, `{"a":[]}`, "empty object, white space"},
		{`{"\u0062":1,"n":1.50,"s":"x\u00e9"}`, map[string][]byte{"b": []byte(`2`)}, `{"\u0062":2,"n":1.50,"s":"x\u00e9"}`, "names matched unescaped; names and values kept as written"},
		{`{"a":1} x`, map[string][]byte{"a": []byte(`2`)}, "", "trailing garbage"},
		{`{"a":`, map[string][]byte{"a": []byte(`2`)}, "", "cut short"},
		{`[1]`, map[string][]byte{"a": []byte(`2`)}, "", "not an object"},
	}
	for _, tt := range tests {
		got, ok := withMembers([]byte(tt.doc), tt.set)
		switch {
		case tt.want == "" && (ok || string(got) != tt.doc):
			t.Errorf("withMembers(%s) = %s, %v; want the doc as it is, false (%s)", tt.doc, got, ok, tt.why)
		case tt.want != "" && (!ok || string(got) != tt.want):
			t.Errorf("withMembers(%s) = %s, %v; want %s, true (%s)", tt.doc, got, ok, tt.want, tt.why)
		}
	}
}

// TestDecodeResult checks decodeResult against go-sdk's decoder: the same
// content, the structured content as written, and the members as written.
func TestDecodeResult(t *testing.T) {
	tests := []struct {
		result string
		ok     bool
		why    string
	}{
		{`{"content":[{"type":"text","text":"a\u00e9\"b\n"}]}`, true, "a text item, unquoted"},
		{`{"content":[{"text":"x","type":"text","annotations":{"audience":["user"],"priority":0.5},"_meta":{"k":1}}]}`, true, "a text item with annotations and _meta, type last"},
		{`{"content":[ {"type":"text","text":"x"} , {"type":"image","data":"AAAA","mimeType":"image/png"} ,{"type":"resource_link","uri":"file:///a","name":"a"}]}`, true, "other items are decoded by go-sdk, between white space and commas"},
		{`{"content":[{"type":"text","text":"x","x-extra":{"n":1}}]}`, true, "a text item with a member go-sdk does not know goes to go-sdk"},
		{`{"content":[{"type":"text","text":"first"}],"content":[{"type":"text","text":"last"}]}`, true, "duplicate content: the last, as go-sdk reads it"},
		{`{"x-before":[1.50,1e400],"content":[],"structuredContent":{"n":1.50,"s":"\u00e9"},"_meta":{"m":true}}`, true, "structured content and other members as written"},
		{`{"content":[],"structuredContent":null}`, true, "null structured content is none"},
		{`{"content":[],"isError":false}`, true, "isError false"},
		{`{"content":[],"resultType":"complete"}`, true, "a complete result"},
		{`{"content":[],"isError":true}`, false, "an error is never offloaded"},
		{`{"resultType":"input_required","content":[]}`, false, "a result that is not complete"},
		{`{"content":[],"inputRequests":{}}`, false, "input requests"},
		{`{"content":[],"requestState":"x"}`, false, "request state"},
		{`{"content":{"type":"text","text":"x"}}`, false, "content that is no array"},
		{`{"content":["x"]}`, false, "an item that is no object"},
		{`{"content":[{"type":"text","text":1}]}`, false, "a text that is no string, which go-sdk refuses"},
		{`{"content":[{"type":"text","text":"x"}]`, false, "cut short"},
		{`{"content":[{"type":"text","text":"x"}]} {}`, false, "a second value"},
		{`{"content":[{"type":"text","text":"x}]}`, false, "invalid JSON in a text"},
		{`[]`, false, "not an object"},
	}
	for _, tt := range tests {
		res, fields, ok := decodeResult([]byte(tt.result))
		if ok != tt.ok {
			t.Errorf("decodeResult(%s): ok %v; want %v (%s)", tt.result, ok, tt.ok, tt.why)
			continue
		}
		if !ok {
			continue
		}
		var sdk mcp.CallToolResult
		if err := json.Unmarshal([]byte(tt.result), &sdk); err != nil {
			t.Fatalf("%s: go-sdk: %v", tt.result, err)
		}
		want, _ := json.Marshal(sdk.Content)
		got, _ := json.Marshal(res.Content)
		if string(got) != string(want) {
			t.Errorf("decodeResult(%s): content %s; want %s, as go-sdk reads it (%s)", tt.result, got, want, tt.why)
		}
		wantSC := rawjson.Member([]byte(tt.result), "structuredContent")
		if wantSC.Kind() == 'n' {
			wantSC = nil
		}
		if sc, _ := res.StructuredContent.(json.RawMessage); string(sc) != string(wantSC) || (sc == nil) != (wantSC == nil) {
			t.Errorf("decodeResult(%s): structured content %s; want %s as written (%s)", tt.result, sc, wantSC, tt.why)
		}
		// The members as written: join with nothing to set gives the
		// result back, but for the value of content.
		all, _ := withMembers([]byte(tt.result), map[string][]byte{"content": []byte(`0`)})
		if got := join(fields, map[string][]byte{"content": []byte(`0`)}); string(got) != string(all) {
			t.Errorf("decodeResult(%s): members joined %s; want %s (%s)", tt.result, got, all, tt.why)
		}
	}
}

// FuzzReplyScan checks replyScan, fed in pieces, against decodeMessage: on
// any valid reply it finds the same id, and on a request none.
func FuzzReplyScan(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"a":[1,{"id":2}]}}`,
		`{"result":{"x":"}\"id\":9"},"jsonrpc":"2.0","id":"a-1"}`,
		`{"jsonrpc":"2.0","id":3,"method":"x","params":{"id":4}}`,
		`{"jsonrpc":"2.0","\u0069d":7,"error":{"code":1,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":5,"result":[[[`,
	} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, line []byte, piece uint8) {
		if len(line) > 1<<16 {
			return
		}
		var s replyScan
		for rest := line; len(rest) > 0; {
			n := min(len(rest), int(piece)+1)
			s.write(rest[:n])
			rest = rest[n:]
		}
		got := s.reply(errors.New("test"))
		msg, err := decodeMessage(line)
		if err != nil {
			return
		}
		switch m := msg.(type) {
		case *jsonrpc.Request:
			if got != nil {
				t.Errorf("%s: a request, found reply id %v", line, got.ID.Raw())
			}
		case *jsonrpc.Response:
			if got == nil || got.ID != m.ID {
				t.Errorf("%s: reply id %v, found %v", line, m.ID.Raw(), got)
			}
		}
	})
}

// TestWriteMessage checks writeMessage against go-sdk's encoder: one line,
// the same message once decoded, a result as written.
func TestWriteMessage(t *testing.T) {
	id, _ := jsonrpc.MakeID("a-1")
	num, _ := jsonrpc.MakeID(float64(7))
	odd, _ := jsonrpc.MakeID("<&>\u00e9\u2028\"\n")
	for _, tc := range []struct {
		reason string
		msg    jsonrpc.Message
		want   string // empty: as go-sdk writes it
	}{
		{"a result, as written", &jsonrpc.Response{ID: id, Result: json.RawMessage(`{"n":1e400, "x":[1.50]}`)}, `{"jsonrpc":"2.0","id":"a-1","result":{"n":1e400, "x":[1.50]}}`},
		{"a number id", &jsonrpc.Response{ID: num, Result: json.RawMessage(`{}`)}, `{"jsonrpc":"2.0","id":7,"result":{}}`},
		{"a string id, its escapes as go-sdk writes them", &jsonrpc.Response{ID: odd, Result: json.RawMessage(`{}`)}, "{\"jsonrpc\":\"2.0\",\"id\":\"<&>\u00e9\\u2028\\\"\\n\",\"result\":{}}"},
		{"an error with that id, by go-sdk", &jsonrpc.Response{ID: odd, Error: &jsonrpc.Error{Code: 1, Message: "m"}}, ""},
		{"a newline in a result is white space, compacted", &jsonrpc.Response{ID: num, Result: json.RawMessage("{\"a\":\n1}")}, `{"jsonrpc":"2.0","id":7,"result":{"a":1}}`},
		{"an error, by go-sdk", &jsonrpc.Response{ID: num, Error: &jsonrpc.Error{Code: 1, Message: "m"}}, ""},
		{"a request, by go-sdk", &jsonrpc.Request{ID: num, Method: "x", Params: json.RawMessage(`{"a":1}`)}, ""},
	} {
		var b bytes.Buffer
		if err := writeMessage(&b, tc.msg); err != nil {
			t.Fatalf("%s: %v", tc.reason, err)
		}
		want := tc.want
		if want == "" {
			data, _ := jsonrpc.EncodeMessage(tc.msg)
			want = string(data)
		}
		if diff := cmp.Diff(want+"\n", b.String()); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.reason, diff)
		}
	}
}

// TestReplyScan checks the id replyScan finds in lines that are no valid
// messages.
func TestReplyScan(t *testing.T) {
	long := strings.Repeat("9", 300)
	for _, tc := range []struct {
		line, reason string
		want         any // the id found; nil: no reply
	}{
		{`{"jsonrpc":"2.0","id":5,"result":{"a":[1,],}}`, "a syntax error after the id", int64(5)},
		{`{"result":` + strings.Repeat("[", 20_000) + strings.Repeat("]", 20_000) + `,"jsonrpc":"2.0","id":"a"}`, "the id after a value too deep for jsontext", "a"},
		{`{"result":{"x":"}\"id\":9"},"jsonrpc":"2.0","id":3,}`, "an id in a string is no member", int64(3)},
		{`{"jsonrpc":"2.0","result":[[],"id":7`, "an id in an array is no member", nil},
		{`{"jsonrpc":"2.0","result":{"a":"x","id" : 8`, "an id in the result, cut short", nil},
		{`{"jsonrpc":"2.0","id" : 8 ,"result":{"a":"x`, "cut short in the result", int64(8)},
		{`{"jsonrpc":"2.0","id":2,"method":"x","params":[}`, "a request", nil},
		{`{"jsonrpc":"2.0","id":` + long + `,"result":[}`, "an id longer than 256 bytes, refused rather than cut", nil},
		{`{"jsonrpc":"2.0","id":"` + long + `","result":[}`, "a string id longer than 256 bytes", nil},
	} {
		var s replyScan
		s.write([]byte(tc.line))
		var got any
		if r := s.reply(errors.New("test")); r != nil {
			got = r.ID.Raw()
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.reason, diff)
		}
	}
}
