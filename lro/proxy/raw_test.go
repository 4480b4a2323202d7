package proxy_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/internal/offload"
	"github.com/zircote/lro-go/lro/proxy"
)

// rawUpstreamEnv, when set, makes the test binary a raw upstream over
// stdio (see rawUpstream).
const rawUpstreamEnv = "LRO_PROXY_TEST_RAW_UPSTREAM"

// The raw upstream's answers, as written: numbers float64 cannot hold,
// fields no SDK knows.
const (
	rawInitResult = `{"protocolVersion":"2025-11-25","capabilities":{"tools":{"listChanged":true},"x-future":{"depth":1e400}},"serverInfo":{"name":"raw","version":"1"},"x-extra":[1.50,1e400]}`
	rawTools      = `{"tools":[{"name":"exact","inputSchema":{"type":"object"},"outputSchema":{"type":"object","required":["rows"]},"x-tool-field":{"kept":true}}],"x-page-field":1e400}`
)

// rawExact is the result of the raw upstream's tool exact: rows with 1e400,
// fields beside the records, a text item of its own.
func rawExact() string {
	var rows []string
	for i := range 300 {
		rows = append(rows, fmt.Sprintf(`{"zeta":"row %d with some words to count","id":%d,"big":1e400,"alpha":1.50}`, i, 12345678901234567890+uint64(i)))
	}
	sc := `{"total":987654,"rows":[` + strings.Join(rows, ",") + `],"next":"CURSOR-XYZ"}`
	return `{"content":[{"type":"text","text":"300 rows"}],"structuredContent":` + sc + `}`
}

// bigText is a text of n bytes in lines of 1,000 bytes.
func bigText(n int) string {
	line := strings.Repeat("x", 999) + "\n"
	return strings.Repeat(line, n/len(line))
}

// rawUpstream serves MCP over stdio by hand, as a server of another SDK (or
// of the future) would: it writes a line that is no message first, answers
// methods no SDK knows, sends requests and notifications of its own, and
// answers a canceled call anyway.
func rawUpstream() {
	fmt.Println("raw upstream: hello (no JSON-RPC)")
	var wmu sync.Mutex
	send := func(msg jsonrpc.Message) {
		data, err := jsonrpc.EncodeMessage(msg)
		if err != nil {
			panic(err)
		}
		wmu.Lock()
		defer wmu.Unlock()
		os.Stdout.Write(append(data, '\n'))
	}
	respond := func(id jsonrpc.ID, result string) { send(&jsonrpc.Response{ID: id, Result: json.RawMessage(result)}) }
	var initParams json.RawMessage
	var slow *jsonrpc.Request // a call waiting for its cancellation
	var asked *jsonrpc.Request
	var records string
	br := bufio.NewReaderSize(os.Stdin, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			return
		}
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			panic(err)
		}
		if resp, ok := msg.(*jsonrpc.Response); ok {
			if asked == nil { // an answer to a request this process never made
				id, _ := json.Marshal(resp.ID.Raw())
				send(&jsonrpc.Request{Method: "x/unasked-answer", Params: json.RawMessage(`{"id":` + string(id) + `}`)})
				continue
			}
			// The client's answer to x/ask: the call that asked returns it.
			respond(asked.ID, `{"content":[{"type":"text","text":`+strconvQuote(string(resp.Result))+`}]}`)
			continue
		}
		req := msg.(*jsonrpc.Request)
		switch req.Method {
		case "initialize":
			initParams = req.Params
			respond(req.ID, rawInitResult)
		case "notifications/initialized":
			send(&jsonrpc.Request{Method: "x/future-notification", Params: json.RawMessage(`{"n":1e400}`)})
		case "x/init-params":
			respond(req.ID, string(initParams))
		case "x/echo":
			respond(req.ID, string(req.Params))
		case "x/large":
			// A result of n MiB, passed as it is.
			var a struct {
				N int `json:"n"`
			}
			json.Unmarshal(req.Params, &a)
			id, _ := json.Marshal(req.ID.Raw())
			wmu.Lock()
			os.Stdout.WriteString(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"blob":"` + strings.Repeat("b", a.N<<20) + `"}}` + "\n")
			wmu.Unlock()
		case "x/big":
			respond(req.ID, `{"blob":"`+strings.Repeat("b", 17<<20)+`","n":1e400}`)
		case "tools/list":
			respond(req.ID, rawTools)
		case "tools/call":
			var p struct {
				Name string `json:"name"`
			}
			json.Unmarshal(req.Params, &p)
			switch p.Name {
			case "exact":
				respond(req.ID, rawExact())
			case "records":
				// The benchmark's 10,000 records, encoded once and written
				// as prepared bytes: jsonrpc.EncodeMessage would compact
				// them again on every call (7 ms for 1.5 MB), a cost of
				// this upstream, not of the proxy the benchmark measures.
				if records == "" {
					data, _ := json.Marshal(makeItems(10_000))
					records = `{"content":[{"type":"text","text":` + strconvQuote(string(data)) + `}]}`
				}
				id, _ := json.Marshal(req.ID.Raw())
				line := `{"jsonrpc":"2.0","id":` + string(id) + `,"result":` + records + "}\n"
				wmu.Lock()
				os.Stdout.WriteString(line)
				wmu.Unlock()
			case "items":
				// count one-character text items, as prepared bytes.
				var a struct {
					Arguments struct {
						Count int `json:"count"`
					} `json:"arguments"`
				}
				json.Unmarshal(req.Params, &a)
				id, _ := json.Marshal(req.ID.Raw())
				line := `{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"content":[` +
					strings.Repeat(`{"type":"text","text":"a"},`, a.Arguments.Count-1) + `{"type":"text","text":"a"}]}}` + "\n"
				wmu.Lock()
				os.Stdout.WriteString(line)
				wmu.Unlock()
			case "large":
				// A text of count MiB, in lines of 1,000 bytes.
				var a struct {
					Arguments struct {
						Count int `json:"count"`
					} `json:"arguments"`
				}
				json.Unmarshal(req.Params, &a)
				id, _ := json.Marshal(req.ID.Raw())
				wmu.Lock()
				os.Stdout.WriteString(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"content":[{"type":"text","text":` + strconvQuote(bigText(a.Arguments.Count<<20)) + "}]}}\n")
				wmu.Unlock()
			case "big":
				respond(req.ID, `{"content":[{"type":"text","text":`+strconvQuote(bigText(17<<20))+`}]}`)
			case "params":
				// The call's params, as the upstream read them.
				respond(req.ID, `{"content":[{"type":"text","text":`+strconvQuote(string(req.Params))+`}]}`)
			case "slow":
				slow = req
			case "exit": // a crash, the call unanswered
				os.Exit(0)
			default:
				if reply, ok := hostileReplies[p.Name]; ok {
					id, _ := json.Marshal(req.ID.Raw())
					wmu.Lock()
					os.Stdout.WriteString(reply(string(id)) + "\n")
					wmu.Unlock()
				}
			case "ask":
				asked = req
				id, _ := jsonrpc.MakeID("s-1")
				send(&jsonrpc.Request{ID: id, Method: "x/ask", Params: json.RawMessage(`{"question":1e400}`)})
			}
		case "notifications/cancelled":
			if slow != nil {
				respond(slow.ID, `{"content":[{"type":"text","text":"answered after the cancellation"}]}`)
				slow = nil
			}
		case "ping":
			respond(req.ID, `{}`)
		default:
			if req.IsCall() {
				send(&jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "no " + req.Method}})
			}
		}
	}
}

func strconvQuote(s string) string {
	b, _ := jsontext.AppendQuote(nil, s)
	return string(b)
}

// rawClient speaks JSON-RPC to the proxy by hand.
type rawClient struct {
	t    *testing.T
	conn mcp.Connection
	seq  int
	in   chan jsonrpc.Message
}

// newRawClient serves p on a pipe and returns a raw client of it.
func newRawClient(t *testing.T, p *proxy.Proxy) *rawClient {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	c1, c2 := net.Pipe()
	ran := make(chan error, 1)
	go func() {
		ran <- p.Run(ctx, &mcp.IOTransport{Reader: c1, Writer: c1, MaxLineLength: proxy.DefaultMaxMessageBytes})
	}()
	conn, err := (&mcp.IOTransport{Reader: c2, Writer: c2, MaxLineLength: proxy.DefaultMaxMessageBytes}).Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	c := &rawClient{t: t, conn: conn, in: make(chan jsonrpc.Message, 100)}
	go func() {
		for {
			msg, err := conn.Read(ctx)
			if err != nil {
				close(c.in)
				return
			}
			c.in <- msg
		}
	}()
	t.Cleanup(func() {
		cancel()
		conn.Close()
		<-ran
	})
	return c
}

func (c *rawClient) send(msg jsonrpc.Message) {
	c.t.Helper()
	if err := c.conn.Write(context.Background(), msg); err != nil {
		c.t.Fatal(err)
	}
}

// request sends a request and returns its ID.
func (c *rawClient) request(method, params string) jsonrpc.ID {
	c.t.Helper()
	c.seq++
	id, _ := jsonrpc.MakeID(float64(c.seq))
	c.send(&jsonrpc.Request{ID: id, Method: method, Params: json.RawMessage(params)})
	return id
}

// next returns the next message from the proxy. It waits as long as the
// test may run: a message of 20 MiB under the race detector on a loaded
// machine takes a while.
func (c *rawClient) next() jsonrpc.Message {
	c.t.Helper()
	msg, ok := <-c.in
	if !ok {
		c.t.Fatal("the proxy closed the connection")
	}
	return msg
}

// response returns the response to id, failing on any other message.
func (c *rawClient) response(id jsonrpc.ID) *jsonrpc.Response {
	c.t.Helper()
	msg := c.next()
	resp, ok := msg.(*jsonrpc.Response)
	if !ok || resp.ID != id {
		c.t.Fatalf("got %s; want the response to %v", summary(msg), id.Raw())
	}
	if resp.Error != nil {
		c.t.Fatalf("response to %v: %v", id.Raw(), resp.Error)
	}
	return resp
}

func summary(msg jsonrpc.Message) string {
	data, _ := jsonrpc.EncodeMessage(msg)
	return preview(string(data))
}

func preview(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// sameJSON compares two JSON values compacted, numbers as written.
func sameJSON(t *testing.T, what string, want, got []byte) {
	t.Helper()
	w, g := jsontext.Value(bytes.Clone(want)), jsontext.Value(bytes.Clone(got))
	if err := w.Compact(jsontext.PreserveRawStrings(false)); err != nil {
		t.Fatalf("%s: want: %v", what, err)
	}
	if err := g.Compact(jsontext.PreserveRawStrings(false)); err != nil {
		t.Fatalf("%s: got: %v", what, err)
	}
	if !bytes.Equal(w, g) {
		t.Errorf("%s:\n got %s\nwant %s", what, preview(string(g)), preview(string(w)))
	}
}

// TestRaw drives the proxy by hand in front of an upstream written by hand:
// every message the proxy does not need to touch passes as written, in both
// directions, and the ones it changes keep everything else.
func TestRaw(t *testing.T) {
	var log lockedLog
	dir := t.TempDir()
	up := proxy.Upstream{Cmd: cmdWith(append(os.Environ(), rawUpstreamEnv+"=1"), os.Stderr, os.Args[0])}
	p, err := proxy.New(up, &proxy.Options{LRO: &lro.Options{OutputDir: dir}, Logger: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	c := newRawClient(t, p)

	initParams := `{"protocolVersion":"2025-11-25","capabilities":{"sampling":{},"x-cap":{"k":1e400}},"clientInfo":{"name":"raw-client","version":"0"},"x-field":true}`
	resp := c.response(c.request("initialize", initParams))
	sameJSON(t, "initialize result", []byte(rawInitResult), resp.Result)
	c.send(&jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)})
	msg := c.next()
	if n, ok := msg.(*jsonrpc.Request); !ok || n.Method != "x/future-notification" || string(n.Params) != `{"n":1e400}` {
		t.Errorf("got %s; want the upstream's notification x/future-notification as written", summary(msg))
	}
	if !strings.Contains(log.String(), "no JSON-RPC message; skipped") {
		t.Errorf("the upstream's first line was not logged as skipped:\n%s", log.String())
	}

	t.Run("initialize params, with the proxy's mark", func(t *testing.T) {
		want := `{"protocolVersion":"2025-11-25","capabilities":{"sampling":{},"x-cap":{"k":1e400},"extensions":{"io.github.zircote/lro":{"proxy":true}}},"clientInfo":{"name":"raw-client","version":"0","proxy":true},"x-field":true}`
		sameJSON(t, "initialize params at the upstream", []byte(want), c.response(c.request("x/init-params", `{}`)).Result)
	})
	t.Run("unknown method", func(t *testing.T) {
		params := `{"a":1e400,"b":[1.50,"x\u00e9"],"z":null,"_meta":{"x":1}}`
		sameJSON(t, "x/echo", []byte(params), c.response(c.request("x/echo", params)).Result)
		id := c.request("x/nothing", `{}`)
		resp, ok := c.next().(*jsonrpc.Response)
		if !ok || resp.ID != id || resp.Error == nil || !strings.Contains(resp.Error.Error(), "no x/nothing") {
			t.Errorf("x/nothing: %v; want the upstream's error", resp)
		}
	})
	t.Run("a message above 16 MiB", func(t *testing.T) {
		res := c.response(c.request("x/big", `{}`)).Result
		if len(res) < 17<<20 || !bytes.HasSuffix(res, []byte(`"n":1e400}`)) {
			t.Errorf("x/big: %d bytes ending %q; want the upstream's 17 MiB", len(res), res[max(0, len(res)-20):])
		}
	})
	t.Run("tools/list", func(t *testing.T) {
		res := c.response(c.request("tools/list", `{}`)).Result
		var list struct {
			Tools []map[string]any `json:"tools"`
		}
		if err := json.Unmarshal(bytes.ReplaceAll(res, []byte("1e400"), []byte("1")), &list); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(res), `"x-page-field":1e400`) || !strings.Contains(string(res), `"x-tool-field":{"kept":true}`) {
			t.Errorf("tools/list lost fields: %s", res)
		}
		if s, _ := json.Marshal(list.Tools[0]["outputSchema"]); !strings.Contains(string(s), "offloaded") {
			t.Errorf("output schema not widened: %s", s)
		}
	})
	t.Run("server request", func(t *testing.T) {
		id := c.request("tools/call", `{"name":"ask","arguments":{}}`)
		req, ok := c.next().(*jsonrpc.Request)
		if !ok || req.Method != "x/ask" || string(req.Params) != `{"question":1e400}` {
			t.Fatalf("got %v; want the upstream's request x/ask as written", req)
		}
		c.send(&jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{"answer":1e400}`)})
		res := c.response(id).Result
		if !strings.Contains(string(res), `{\"answer\":1e400}`) {
			t.Errorf("the upstream did not get the client's answer as written: %s", res)
		}
	})
	t.Run("no reply after a cancellation", func(t *testing.T) {
		id := c.request("tools/call", `{"name":"slow","arguments":{}}`)
		c.send(&jsonrpc.Request{Method: "notifications/cancelled", Params: json.RawMessage(fmt.Sprintf(`{"requestId":%v,"reason":"user"}`, id.Raw()))})
		// The upstream answers the canceled call before the ping.
		c.response(c.request("ping", `{}`))
	})
	t.Run("offloaded losslessly", func(t *testing.T) {
		res := c.response(c.request("tools/call", `{"name":"exact","arguments":{}}`)).Result
		var d offloadResponse
		if err := json.Unmarshal(member(t, res, "structuredContent"), &d); err != nil || !d.Offloaded {
			t.Fatalf("exact not offloaded: %v %s", err, preview(string(res)))
		}
		h, lines, err := offload.ReadFile(d.FilePath)
		if err != nil {
			t.Fatal(err)
		}
		recs := make([][]byte, len(lines))
		for i, l := range lines {
			recs[i] = l
		}
		rebuilt, err := offload.Rebuild(h, recs)
		if err != nil {
			t.Fatal(err)
		}
		sameJSON(t, "the result rebuilt from the file", []byte(rawExact()), rebuilt)
	})
	t.Run("a result above 16 MiB, offloaded", func(t *testing.T) {
		res := c.response(c.request("tools/call", `{"name":"big","arguments":{}}`)).Result
		var d offloadResponse
		if err := json.Unmarshal(member(t, res, "structuredContent"), &d); err != nil || !d.Offloaded {
			t.Fatalf("big not offloaded: %v %s", err, preview(string(res)))
		}
		if want := len(bigText(17<<20)) / 1000; d.Summary.Count != want {
			t.Errorf("%d records; want %d lines", d.Summary.Count, want)
		}
	})
}

func member(t *testing.T, doc []byte, key string) []byte {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(doc, &m); err != nil {
		t.Fatal(err)
	}
	return m[key]
}

// lockedLog is a log buffer safe for concurrent use.
type lockedLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// hostileReplies are the raw upstream's replies to its hostile tools, as
// functions of the call's id as written.
var hostileReplies = map[string]func(id string) string{
	"deep": func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[],"structuredContent":` + nested(100_000) + `}}`
	},
	// The TypeScript SDK writes the id after the result.
	"deep-id-last": func(id string) string {
		return `{"result":{"structuredContent":` + nested(100_000) + `},"jsonrpc":"2.0","id":` + id + `}`
	},
	"not-json": func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"x"}],}}`
	},
	"cut-short": func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"the rest is missi`
	},
	"too-large": func(id string) string {
		return `{"result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 2<<20) + `"}]},"jsonrpc":"2.0","id":` + id + `}`
	},
	"id-as-string": func(id string) string {
		return `{"jsonrpc":"2.0","id":"` + id + `","result":{"content":[{"type":"text","text":"wrong id type"}]}}`
	},
	"deep-request-then-reply": func(id string) string {
		// A request of the upstream with the id of the client's call, which
		// is no reply to it (the ids of the two sides are apart), then the
		// reply.
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"x/deep","params":` + nested(100_000) + "}\n" +
			`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"the reply"}]}}`
	},
	"id-of-other-text": func(id string) string {
		// A reply to an id the proxy does not know, a string that parses as
		// the call's number but is not its text, then the reply.
		return `{"jsonrpc":"2.0","id":"0` + id + `","result":{"content":[{"type":"text","text":"not the reply"}]}}` + "\n" +
			`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"the reply"}]}}`
	},
	"invalid-utf8": func(id string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"a` + "\xff" + `b"}]}}`
	},
}

// nested is a JSON array nested n levels deep.
func nested(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// TestHostileReplies drives the proxy in front of an upstream that replies
// to calls with lines that are no valid messages: each call gets an answer
// that says why (nothing hangs), and the connection goes on.
func TestHostileReplies(t *testing.T) {
	var log lockedLog
	up := proxy.Upstream{Cmd: cmdWith(append(os.Environ(), rawUpstreamEnv+"=1"), os.Stderr, os.Args[0])}
	p, err := proxy.New(up, &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}, Logger: slog.New(slog.NewTextHandler(&log, nil)), MaxMessageBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	c := newRawClient(t, p)
	c.response(c.request("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw-client","version":"0"}}`))
	c.send(&jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)})
	if n, ok := c.next().(*jsonrpc.Request); !ok || n.Method != "x/future-notification" {
		t.Fatalf("got %v; want the upstream's notification", n)
	}
	for _, tc := range []struct {
		tool, reason string
		want         string // in the tool error; empty: the reply passes as it is
	}{
		{"deep", "nested 100,000 levels: jsontext stops at 10,000", "nested more than 10000 levels deep"},
		{"deep-id-last", "the id after the deep result, as the TypeScript SDK writes it", "nested more than 10000 levels deep"},
		{"not-json", "a comma before }", "no valid JSON"},
		{"cut-short", "the line ends inside a string", "no valid JSON"},
		{"too-large", "2 MiB above the 1 MiB limit, the id at the end", "above the size limit of 1048576 bytes (Options.MaxMessageBytes)"},
		{"id-as-string", "the id as a string, the client's is a number", `has the id "`},
		{"deep-request-then-reply", "a bad request of the upstream with the call's id is no reply to it", ""},
		{"invalid-utf8", "a byte that is no UTF-8 in a text: passed as it is", ""},
		{"id-of-other-text", `a reply to the id "0" and the call's id, of another text than the call's, is no reply to it`, ""},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			id := c.request("tools/call", `{"name":"`+tc.tool+`","arguments":{}}`)
			res := c.response(id).Result
			var got mcp.CallToolResult
			if err := json.Unmarshal(res, &got); err != nil {
				t.Fatalf("%s: %v", preview(string(res)), err)
			}
			txt := ""
			if len(got.Content) > 0 {
				txt = got.Content[0].(*mcp.TextContent).Text
			}
			if got.IsError != (tc.want != "") || !strings.Contains(txt, tc.want) {
				t.Errorf("%s: got isError %v, %q; want isError %v with %q", tc.reason, got.IsError, preview(txt), tc.want != "", tc.want)
			}
			// The connection goes on.
			c.response(c.request("ping", `{}`))
		})
	}
	if strings.Contains(log.String(), "connection ended") {
		t.Errorf("the upstream's connection ended:\n%s", log.String())
	}
}

// TestHostileRepliesHTTP is TestHostileReplies for an HTTP upstream, whose
// replies go-sdk's client reads: a reply it refuses ends the connection
// (go-sdk's design), so the call gets an error that says why, and the next
// call connects again.
func TestHostileRepliesHTTP(t *testing.T) {
	hostile := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var req struct {
				ID     json.RawMessage `json:"id"`
				Params struct {
					Name string `json:"name"`
				} `json:"params"`
			}
			json.Unmarshal(body, &req)
			reply, ok := hostileReplies[req.Params.Name]
			if r.Method != http.MethodPost || !ok {
				next.ServeHTTP(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, reply(string(req.ID)))
		})
	}
	u := &httpUpstream{tb: t, s: newUpstream(t.TempDir()), addr: "127.0.0.1:0", wrap: hostile}
	u.start()
	t.Cleanup(u.stop)
	p, err := proxy.New(proxy.Upstream{URL: u.url()}, &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}, MaxMessageBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	cs := connectProxy(t, p, nil)
	for _, tc := range []struct {
		tool, reason string
		want         string // in the tool error; empty: the reply passes as it is
	}{
		{"deep", "nested 100,000 levels: go-sdk's decoder stops at 1,000", "nesting depth"},
		{"deep-id-last", "the id after the deep result", "nesting depth"},
		{"not-json", "a comma before }", "decode"},
		{"cut-short", "the body ends inside a string", "decode"},
		{"too-large", "a JSON body of 2 MiB above the 1 MiB limit", "above the size limit of 1048576 bytes"},
		{"invalid-utf8", "a byte that is no UTF-8 in a text", ""},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			res := call(t, cs, tc.tool, 0)
			if res.IsError != (tc.want != "") || !strings.Contains(text(res), tc.want) {
				t.Errorf("%s: got isError %v, %q; want isError %v with %q", tc.reason, res.IsError, preview(text(res)), tc.want != "", tc.want)
			}
			t.Log(text(res))
			// The session goes on.
			if res := call(t, cs, "text", 3); res.IsError {
				t.Errorf("the next call: %s", text(res))
			}
		})
	}
}

// TestCancelStopsOffload cancels a call while the proxy offloads its
// result: the offload's context ends (a long offload stops), no response
// reaches the client, and the next call works.
func TestCancelStopsOffload(t *testing.T) {
	up := proxy.Upstream{Cmd: cmdWith(append(os.Environ(), rawUpstreamEnv+"=1"), os.Stderr, os.Args[0])}
	p, err := proxy.New(up, &proxy.Options{LRO: &lro.Options{OutputDir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	started, stopped := make(chan struct{}), make(chan error)
	proxy.SetOffload(p, func(ctx context.Context, req *mcp.CallToolRequest, _ *mcp.CallToolResult) bool {
		if req.Params.Name != "items" {
			return false
		}
		close(started)
		<-ctx.Done()
		stopped <- ctx.Err()
		return false
	})
	c := newRawClient(t, p)
	c.response(c.request("initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw-client","version":"0"}}`))
	c.send(&jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage(`{}`)})
	c.next() // the upstream's notification
	id := c.request("tools/call", `{"name":"items","arguments":{"count":3}}`)
	<-started
	c.send(&jsonrpc.Request{Method: "notifications/cancelled", Params: json.RawMessage(fmt.Sprintf(`{"requestId":%v}`, id.Raw()))})
	if err := <-stopped; !errors.Is(err, context.Canceled) {
		t.Errorf("the offload's context ended with %v; want context.Canceled", err)
	}
	// No response to the canceled call comes before the ping's.
	c.response(c.request("ping", `{}`))
}
