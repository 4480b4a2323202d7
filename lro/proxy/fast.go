package proxy

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/estimate"
	"github.com/zircote/lro-go/internal/jsonscan"
	"github.com/zircote/lro-go/lro"
)

// The fast path. Each go-sdk hop decodes every message into typed values
// and encodes it again, and go-sdk's decoder allocates a 32 KiB buffer per
// value decoded (the message, its params, its result, each content item):
// a bare go-sdk forwarder costs as much again as the call it forwards. Most
// results are small and go out exactly as the upstream wrote them, so the
// proxy relays those without the SDK on its side:
//
//   - The connection the proxy serves its client on (made by Connect and
//     Run) takes each tools/call of an upstream tool out of the stream
//     before go-sdk's server sees it, once the session is initialized.
//   - The call goes upstream as a JSON-RPC request of the proxy's own, with
//     a string ID (go-sdk numbers its own) and the params the SDK path
//     sends, in the go-sdk client session: for a command, written on the
//     session's connection, whose captureConn takes the call's response and
//     progress out of the upstream's stream before go-sdk's client sees
//     them; for a URL, in a POST of the proxy's own, with the HTTP client and
//     the headers of the session's connection (post), whose response the
//     fast path reads itself. Whatever else the upstream sends (its requests
//     to the client, other notifications) still goes to the go-sdk client
//     session, which answers as before: captureConn lets it through, and
//     the messages of an HTTP response go to go-sdk as an event stream it
//     reads (fastCall.relayToSDK).
//   - A result that is sure to stay inline, and that the SDK path would hand
//     on unchanged, is written back to the client as the upstream wrote it.
//     Any other outcome (a larger result, one of another shape, an error,
//     a broken connection) goes to go-sdk's server as the client's own
//     request, marked so that the proxy's handler takes the upstream's
//     answer from the fast path instead of calling again: everything that
//     is not a plain inline result goes through the same code as before.

// Methods and keys of the protocol the fast path reads.
const (
	methodCallTool      = "tools/call"
	methodCancelled     = "notifications/cancelled"
	methodProgress      = "notifications/progress"
	sdkKeyPrefix        = "io.modelcontextprotocol/"
	fastIDPrefix        = "lro-proxy-call-"
	progressTokenPrefix = "lro-proxy-"
)

// prefetchKey marks, in the _meta of a call handed to go-sdk's server, the
// upstream's answer the fast path already has.
const prefetchKey = "io.github.zircote/lro-proxy-prefetched"

// prefetchTTL is how long an answer handed to go-sdk's server waits for the
// handler to take it.
const prefetchTTL = time.Minute

// cancelTimeout bounds the sending of a cancellation upstream (go-sdk's own
// bound).
const cancelTimeout = 5 * time.Second

// drainTimeout bounds the reading of what follows the response of a call in
// an HTTP response body, so that the connection can be used again.
const drainTimeout = 5 * time.Second

// Connect serves the proxy on t and returns the session. For a
// [mcp.StdioTransport] or an [mcp.IOTransport], the transports of a local
// proxy, calls of upstream tools whose results stay inline skip the SDK's
// decoding and encoding on the proxy (see the package documentation), which
// makes them several times cheaper; what the client receives is the same.
// Such calls do not go through the proxy's server: receiving middleware
// added to [Proxy.Server] does not see them (set [Options.DisableFastPath]
// if it must). Any other transport is served as Server().Connect serves it.
// Close the session, or let the client disconnect, to end it.
func (p *Proxy) Connect(ctx context.Context, t mcp.Transport) (*mcp.ServerSession, error) {
	var in io.ReadCloser
	var out io.WriteCloser
	var maxLine int
	if p.noFast {
		return p.server.Connect(ctx, t, nil)
	}
	switch t := t.(type) {
	case *mcp.StdioTransport:
		in, out, maxLine = os.Stdin, nopCloser{os.Stdout}, t.MaxLineLength
	case *mcp.IOTransport:
		in, out, maxLine = t.Reader, t.Writer, t.MaxLineLength
	default:
		return p.server.Connect(ctx, t, nil)
	}
	tp := newTap(p, in, out)
	go tp.read()
	ss, err := p.server.Connect(ctx, &mcp.IOTransport{Reader: tapReader{tp}, Writer: tapWriter{tp}, MaxLineLength: maxLine}, nil)
	if err != nil {
		tp.close()
		return nil, err
	}
	tp.ss.Store(ss)
	return ss, nil
}

// Run serves the proxy on t, for example &mcp.StdioTransport{}, as Connect
// does, until the client disconnects or ctx is canceled. It does not close
// the proxy.
func (p *Proxy) Run(ctx context.Context, t mcp.Transport) error {
	ss, err := p.Connect(ctx, t)
	if err != nil {
		return err
	}
	closed := make(chan error, 1)
	go func() { closed <- ss.Wait() }()
	select {
	case <-ctx.Done():
		ss.Close()
		<-closed
		return ctx.Err()
	case err := <-closed:
		return err
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// tapBuffer is the size of the buffer the tap reads the client's lines with:
// a longer line goes to go-sdk's server unread.
const tapBuffer = 64 << 10

// A tap sits between the client's stream of newline-delimited JSON-RPC
// messages and go-sdk's server: it takes the fast path's calls out of the
// stream, hands every other line to the server as it came, and writes the
// fast path's answers to the client between the server's messages.
type tap struct {
	p   *Proxy
	in  io.ReadCloser  // from the client
	out io.WriteCloser // to the client
	wmu sync.Mutex     // serializes writes to out, by the server and the fast path

	sdk    *io.PipeReader // what go-sdk's server reads
	toSDK  *io.PipeWriter
	sdkMu  sync.Mutex // serializes writes to toSDK
	ss     atomic.Pointer[mcp.ServerSession]
	ctx    context.Context // canceled when the session ends
	cancel context.CancelFunc

	mu    sync.Mutex
	calls map[string]*fastCall // the client's calls on the fast path, by idKey
}

func newTap(p *Proxy, in io.ReadCloser, out io.WriteCloser) *tap {
	tp := &tap{p: p, in: in, out: out, calls: map[string]*fastCall{}}
	tp.sdk, tp.toSDK = io.Pipe()
	tp.ctx, tp.cancel = context.WithCancel(context.Background())
	return tp
}

// tapReader and tapWriter are the stream go-sdk's server sees.
type tapReader struct{ tp *tap }

func (r tapReader) Read(b []byte) (int, error) { return r.tp.sdk.Read(b) }

func (r tapReader) Close() error { return r.tp.close() }

type tapWriter struct{ tp *tap }

func (w tapWriter) Write(b []byte) (int, error) { return w.tp.write(b) }

func (w tapWriter) Close() error { return w.tp.out.Close() }

// close ends the session's calls in flight and stops reading the client.
func (tp *tap) close() error {
	tp.cancel()
	tp.sdk.Close()
	return tp.in.Close()
}

// write writes whole messages to the client.
func (tp *tap) write(b []byte) (int, error) {
	tp.wmu.Lock()
	defer tp.wmu.Unlock()
	return tp.out.Write(b)
}

// toServer hands lines to go-sdk's server.
func (tp *tap) toServer(b []byte) error {
	tp.sdkMu.Lock()
	defer tp.sdkMu.Unlock()
	_, err := tp.toSDK.Write(b)
	return err
}

// read reads the client's stream until it ends.
func (tp *tap) read() {
	br := bufio.NewReaderSize(tp.in, tapBuffer)
	var err error
	for err == nil {
		var line []byte
		line, err = br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// Too long to take: the rest of the line goes on as it comes,
			// whole, so no hand-off may land in the middle of it.
			err = tp.passLongLine(br, line)
			continue
		}
		if len(line) > 0 && !tp.take(line) {
			if werr := tp.toServer(line); werr != nil && err == nil {
				err = werr
			}
		}
	}
	if err == io.EOF {
		err = nil
	}
	tp.toSDK.CloseWithError(err)
	tp.cancel()
}

// passLongLine hands go-sdk's server a line longer than the tap's buffer,
// of which first is the start, reading the rest from br. It holds the
// server's stream until the line ends, so that nothing else is written into
// the middle of it.
func (tp *tap) passLongLine(br *bufio.Reader, first []byte) error {
	tp.sdkMu.Lock()
	defer tp.sdkMu.Unlock()
	line := first
	for {
		if _, err := tp.toSDK.Write(line); err != nil {
			return err
		}
		if line[len(line)-1] == '\n' {
			return nil
		}
		var err error
		line, err = br.ReadSlice('\n')
		switch {
		case err == bufio.ErrBufferFull:
		case err != nil:
			if len(line) > 0 {
				_, _ = tp.toSDK.Write(line)
			}
			return err
		}
	}
}

// message is a JSON-RPC message as the tap reads it.
type message struct {
	id, method, params []byte
}

// parseMessage reads one JSON-RPC request or notification, in a line with
// nothing else. ok is false for anything else, such as a response, a
// batch, or an ID that is neither a string nor an integer.
func parseMessage(line []byte) (m message, ok bool) {
	line = bytes.TrimSpace(line)
	if jsonscan.Kind(line) != '{' || !jsonscan.Valid(line) {
		return m, false
	}
	var version bool
	err := jsonscan.Fields(line, func(f jsonscan.Field) error {
		switch string(f.Key) {
		case "jsonrpc":
			if version || string(f.Value) != `"2.0"` {
				return errFound
			}
			version = true
		case "id":
			if m.id != nil || !validID(f.Value) {
				return errFound
			}
			m.id = f.Value
		case "method":
			if m.method != nil || jsonscan.Kind(f.Value) != '"' {
				return errFound
			}
			m.method = f.Value
		case "params":
			if m.params != nil {
				return errFound
			}
			m.params = f.Value
		default:
			return errFound
		}
		return nil
	})
	return m, err == nil && version && m.method != nil
}

// validID reports whether id is a string or an integer, which go-sdk's
// server echoes as written.
func validID(id []byte) bool {
	if jsonscan.Kind(id) == '"' {
		return true
	}
	for i, b := range id {
		if !(b >= '0' && b <= '9' || b == '-' && i == 0) {
			return false
		}
	}
	return len(id) > 0 && len(id) < 16
}

// idKey identifies a request ID as go-sdk does: a string by its value, a
// number as an integer.
func idKey(id []byte) (string, bool) {
	switch k := jsonscan.Kind(id); {
	case k == '"':
		var s string
		if json.Unmarshal(id, &s) != nil {
			return "", false
		}
		return "s" + s, true
	case k == '-' || k >= '0' && k <= '9':
		f, err := strconv.ParseFloat(string(id), 64)
		if err != nil {
			return "", false
		}
		return "n" + strconv.FormatInt(int64(f), 10), true
	}
	return "", false
}

// take reports whether the fast path takes the line: a call of an upstream
// tool, or the cancellation of one of its calls.
func (tp *tap) take(line []byte) bool {
	if !bytes.Contains(line, []byte(`"`+methodCallTool+`"`)) && !bytes.Contains(line, []byte(`"`+methodCancelled+`"`)) {
		return false
	}
	m, ok := parseMessage(line)
	if !ok {
		return false
	}
	switch string(m.method) {
	case `"` + methodCallTool + `"`:
		return m.id != nil && tp.start(m)
	case `"` + methodCancelled + `"`:
		return m.id == nil && tp.cancelCall(m.params)
	}
	return false
}

// cancelCall cancels the fast call that the client's notifications/cancelled
// names, and reports whether there was one.
func (tp *tap) cancelCall(params []byte) bool {
	key, ok := idKey(jsonscan.Lookup(params, "requestId"))
	if !ok {
		return false
	}
	tp.mu.Lock()
	fc := tp.calls[key]
	tp.mu.Unlock()
	if fc == nil {
		return false
	}
	fc.cancel()
	return true
}

// fastCall is one call of the client on the fast path.
type fastCall struct {
	tp     *tap
	id     []byte // the client's ID, as written
	key    string // its idKey
	params []byte // the client's params, to hand the call back
	tool   string
	ctx    context.Context // canceled when the client cancels the call
	cancel context.CancelFunc
	up     *upstream
	upID   string // the proxy's ID for the call upstream
	token  string // the upstream progress token, or ""

	// For an HTTP upstream, where go-sdk's client reads the messages of the
	// call's stream that are not the fast path's (see relayToSDK), once
	// there is one.
	pass *io.PipeWriter
}

// callParams are the parts of the params of a call that the fast path reads.
type callParams struct {
	name                 string
	nameRaw, meta, args  []byte
	hasName, hasMeta, ok bool
}

// parseCallParams reads the params of a tools/call. ok is false unless they
// hold a string name, maybe an object _meta and maybe arguments, and
// nothing else.
func parseCallParams(data []byte) (cp callParams) {
	if jsonscan.Kind(data) != '{' {
		return cp
	}
	hasArgs := false
	err := jsonscan.Fields(data, func(f jsonscan.Field) error {
		switch string(f.Key) {
		case "name":
			if cp.hasName || jsonscan.Kind(f.Value) != '"' {
				return errFound
			}
			cp.hasName, cp.nameRaw = true, f.Value
		case "_meta":
			if cp.hasMeta || jsonscan.Kind(f.Value) != '{' {
				return errFound
			}
			cp.hasMeta, cp.meta = true, f.Value
		case "arguments":
			if hasArgs {
				return errFound
			}
			hasArgs, cp.args = true, f.Value
		default:
			return errFound
		}
		return nil
	})
	if err != nil || !cp.hasName {
		return cp
	}
	if bytes.IndexByte(cp.nameRaw, '\\') < 0 {
		cp.name = string(cp.nameRaw[1 : len(cp.nameRaw)-1])
	} else if json.Unmarshal(cp.nameRaw, &cp.name) != nil {
		return cp
	}
	cp.ok = true
	return cp
}

// start takes a call of the client on the fast path, and reports whether it
// did.
func (tp *tap) start(m message) bool {
	ss := tp.ss.Load()
	if ss == nil || ss.InitializeParams() == nil {
		return false
	}
	cp := parseCallParams(m.params)
	if !cp.ok || !tp.p.exposed(cp.name) {
		return false
	}
	// The reader never waits: while the link is busy (connecting), the call
	// takes go-sdk's path, which waits for it.
	up, ok := tp.p.link.currentUpstreamNow()
	if !ok || up == nil || !up.fast || up.ctx.Err() != nil {
		return false // go-sdk's path connects, and reports a failure
	}
	// The SDK's own _meta keys (a sessionless protocol's version, for one)
	// change how go-sdk's server handles the call.
	var token json.RawMessage
	if cp.hasMeta {
		bad := false
		_ = jsonscan.Fields(cp.meta, func(f jsonscan.Field) error {
			switch k := string(f.Key); {
			case isSDKKey(k), k == prefetchKey:
				bad = true
				return errFound
			case k == progressTokenKey && jsonscan.Kind(f.Value) != 'n':
				token = f.Value
			}
			return nil
		})
		if bad {
			return false
		}
	}
	key, ok := idKey(m.id)
	if !ok {
		return false
	}

	tp.mu.Lock()
	if tp.calls[key] != nil {
		tp.mu.Unlock()
		return false // an ID in use: go-sdk's server answers as it does
	}
	// The line is the reader's buffer: keep copies.
	fc := &fastCall{tp: tp, id: bytes.Clone(m.id), key: key, params: bytes.Clone(m.params), tool: cp.name, up: up}
	fc.ctx, fc.cancel = context.WithCancel(tp.ctx)
	tp.calls[key] = fc
	tp.mu.Unlock()

	n := tp.p.progressCount.Add(1)
	fc.upID = fastIDPrefix + strconv.FormatInt(n, 10)
	if token != nil {
		var v any
		if json.Unmarshal(token, &v) == nil {
			fc.token = progressTokenPrefix + strconv.FormatInt(n, 10)
			tp.p.progress.Store(fc.token, progressRoute{tap: tp, token: v})
		}
	}
	go tp.run(fc, upstreamParams(cp, fc.token))
	return true
}

// proxyMark is the JSON of lro.ProxySettings, the value of lro.ProxyKey in
// the _meta of each call.
var proxyMark = func() []byte {
	data, err := json.Marshal(lro.ProxySettings())
	if err != nil {
		panic(err)
	}
	return data
}()

// upstreamParams returns the params of the call upstream, as forwardMeta
// and forward make them: the client's _meta without the SDK's keys, with
// the proxy's mark and progress token; the name; the arguments, {} when
// there are none.
func upstreamParams(cp callParams, token string) json.RawMessage {
	out := make([]byte, 0, len(cp.meta)+len(cp.nameRaw)+len(cp.args)+96)
	out = append(out, `{"_meta":{`...)
	if cp.hasMeta {
		_ = jsonscan.Fields(cp.meta, func(f jsonscan.Field) error {
			k := string(f.Key)
			if isSDKKey(k) || k == progressTokenKey || k == lro.ProxyKey {
				return nil
			}
			out = appendString(out, k)
			out = append(out, ':')
			out = append(out, f.Value...)
			out = append(out, ',')
			return nil
		})
	}
	out = appendString(out, lro.ProxyKey)
	out = append(out, ':')
	out = append(out, proxyMark...)
	if token != "" {
		out = append(out, `,"progressToken":`...)
		out = appendString(out, token)
	}
	out = append(out, `},"name":`...)
	out = append(out, cp.nameRaw...)
	out = append(out, `,"arguments":`...)
	if len(cp.args) == 0 || string(cp.args) == "null" {
		out = append(out, "{}"...)
	} else {
		out = append(out, cp.args...)
	}
	return append(out, '}')
}

// appendString appends s as a JSON string.
func appendString(out []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if b := s[i]; b < 0x20 || b == '"' || b == '\\' || b >= 0x80 {
			data, _ := json.Marshal(s)
			return append(out, data...)
		}
	}
	out = append(out, '"')
	out = append(out, s...)
	return append(out, '"')
}

// exposed reports whether name is an upstream tool the proxy serves.
func (p *Proxy) exposed(name string) bool {
	p.toolsMu.Lock()
	defer p.toolsMu.Unlock()
	_, ok := p.tools[name]
	return ok
}

// run makes the call upstream and answers the client, or hands the call to
// go-sdk's server with the upstream's answer.
func (tp *tap) run(fc *fastCall, params json.RawMessage) {
	defer fc.cancel()
	var after func() // what is left to do once the client has its answer
	result, err := tp.p.callUpstream(fc, params, &after)
	defer func() {
		if after != nil {
			after()
		}
		if fc.token != "" {
			// The client may handle the upstream's last notifications after
			// the result: keep their route a little longer.
			time.AfterFunc(progressGrace, func() { tp.p.progress.Delete(fc.token) })
		}
	}()

	if err == nil {
		if out, ok := tp.p.inline(fc.tool, result); ok {
			tp.forget(fc)
			tp.p.fastCalls.Add(1)
			_ = tp.answer(fc.id, "result", out)
			return
		}
	}
	if cerr := fc.ctx.Err(); cerr != nil {
		// The client canceled the call (or is gone): go-sdk's server answers
		// a canceled call with the handler's error, the context's.
		tp.forget(fc)
		if tp.ctx.Err() == nil {
			if data, err := json.Marshal(&jsonrpc.Error{Message: cerr.Error()}); err == nil {
				_ = tp.answer(fc.id, "error", data)
			}
		}
		return
	}
	if err != nil && upstreamError(err) == nil {
		if tp.p.link.drop(fc.up.cs) {
			tp.p.logger.Warn("upstream call failed; reconnecting on the next call", "upstream", tp.p.link.up.String(), "tool", fc.tool, "err", err)
		}
	}
	tp.handOff(fc, result, err)
}

// answer writes the response to the client's call id: its result or error.
func (tp *tap) answer(id []byte, field string, value []byte) error {
	if bytes.ContainsAny(value, "\r\n") {
		// One message per line.
		var b bytes.Buffer
		if err := json.Compact(&b, value); err != nil {
			return err
		}
		value = b.Bytes()
	}
	line := make([]byte, 0, len(value)+len(id)+40)
	line = append(line, `{"jsonrpc":"2.0","id":`...)
	line = append(line, id...)
	line = append(line, ',', '"')
	line = append(line, field...)
	line = append(line, '"', ':')
	line = append(line, value...)
	line = append(line, '}', '\n')
	_, err := tp.write(line)
	return err
}

// forget removes fc from the calls in flight.
func (tp *tap) forget(fc *fastCall) {
	tp.mu.Lock()
	if tp.calls[fc.key] == fc {
		delete(tp.calls, fc.key)
	}
	tp.mu.Unlock()
}

// prefetch is the upstream's answer to a call handed to go-sdk's server.
type prefetch struct {
	session *mcp.ServerSession
	cs      *mcp.ClientSession // the upstream session that answered
	result  json.RawMessage
	err     error
}

// handOff gives the call to go-sdk's server, marked with the upstream's
// answer, for the handler to take.
func (tp *tap) handOff(fc *fastCall, result json.RawMessage, err error) {
	var b [16]byte
	_, _ = rand.Read(b[:])
	key := hex.EncodeToString(b[:])
	tp.p.prefetched.Store(key, &prefetch{session: tp.ss.Load(), cs: fc.up.cs, result: result, err: err})
	time.AfterFunc(prefetchTTL, func() { tp.p.prefetched.Delete(key) })
	tp.forget(fc)
	line := append([]byte(`{"jsonrpc":"2.0","id":`), fc.id...)
	line = append(line, `,"method":"tools/call","params":`...)
	line = append(line, withMetaKey(fc.params, prefetchKey, key)...)
	line = append(line, '}', '\n')
	_ = tp.toServer(line)
}

// withMetaKey returns the params of a call with key set to the string value
// in its _meta, which does not hold key.
func withMetaKey(params json.RawMessage, key, value string) json.RawMessage {
	entry := appendString(nil, key)
	entry = append(entry, ':')
	entry = appendString(entry, value)
	out := []byte{'{'}
	found := false
	_ = jsonscan.Fields(params, func(f jsonscan.Field) error {
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = appendString(out, string(f.Key))
		out = append(out, ':')
		if string(f.Key) != "_meta" {
			out = append(out, f.Value...)
			return nil
		}
		found = true
		out = append(out, '{')
		out = append(out, entry...)
		if inner := bytes.TrimSpace(f.Value[1 : len(f.Value)-1]); len(inner) > 0 {
			out = append(out, ',')
			out = append(out, inner...)
		}
		out = append(out, '}')
		return nil
	})
	if !found {
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, `"_meta":{`...)
		out = append(out, entry...)
		out = append(out, '}')
	}
	return append(out, '}')
}

// takePrefetched returns the upstream's answer the fast path left in the
// _meta of req, and deletes the mark. It returns nil, false for a call
// without one; nil, true for a call marked with one it no longer has (kept
// longer than prefetchTTL) or never had, which must not call the upstream
// again: the tool may not be safe to run twice.
func (p *Proxy) takePrefetched(req *mcp.CallToolRequest) (pf *prefetch, marked bool) {
	if req.Params == nil {
		return nil, false
	}
	v, ok := req.Params.Meta[prefetchKey]
	if !ok {
		return nil, false
	}
	delete(req.Params.Meta, prefetchKey)
	key, _ := v.(string)
	x, ok := p.prefetched.LoadAndDelete(key)
	if !ok {
		return nil, true
	}
	pf = x.(*prefetch)
	if pf.session != req.Session {
		return nil, true
	}
	return pf, true
}

// lostAnswer is the tool error of a call whose upstream answer, taken by the
// fast path, was lost before the call's handler ran.
func lostAnswer(tool string) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("lro proxy: the upstream answered the call of %q, but the answer was lost before it could be handed on (the proxy was too busy for %v); it is not called again, in case the tool is not safe to run twice. Call it again if it is.", tool, prefetchTTL)}},
	}
}

// outcome returns the upstream's answer as the SDK's client returns it.
func (p *Proxy) outcome(pf *prefetch) (*mcp.CallToolResult, error) {
	if pf.err != nil {
		return nil, pf.err
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(pf.result, &res); err != nil {
		err = fmt.Errorf("calling %q: unmarshaling result: %w", methodCallTool, err)
		if p.link.drop(pf.cs) {
			p.logger.Warn("upstream call failed; reconnecting on the next call", "upstream", p.link.up.String(), "err", err)
		}
		return nil, err
	}
	if sc := jsonscan.Lookup(pf.result, "structuredContent"); sc != nil {
		res.StructuredContent = json.RawMessage(sc)
	}
	return &res, nil
}

// callUpstream sends the call upstream on the fast path and returns the
// raw result, or the error the SDK's client would have returned. after,
// when set, finishes reading an HTTP response.
func (p *Proxy) callUpstream(fc *fastCall, params json.RawMessage, after *func()) (json.RawMessage, error) {
	up := fc.up
	if up.capture != nil {
		id, _ := jsonrpc.MakeID(fc.upID) // a string ID
		return p.callCommand(fc, &jsonrpc.Request{ID: id, Method: methodCallTool, Params: params})
	}
	ctx, cancel := context.WithCancel(fc.ctx)
	stop := context.AfterFunc(up.ctx, cancel)
	*after = func() { stop(); cancel() }
	resp, sse, err := p.post(ctx, fc, params)
	if err != nil {
		if fc.ctx.Err() != nil {
			p.cancelUpstream(fc)
			return nil, fc.ctx.Err()
		}
		return nil, fmt.Errorf("calling %q: %w", methodCallTool, err)
	}
	msg, err := p.readBody(fc, resp.Body, sse)
	if fc.pass != nil {
		fc.pass.Close()
	}
	body := resp.Body
	*after = func() {
		if err == nil {
			// Read what follows, so that the connection can be used again.
			t := time.AfterFunc(drainTimeout, cancel)
			_, _ = io.Copy(io.Discard, body)
			t.Stop()
		}
		body.Close()
		stop()
		cancel()
	}
	if err != nil {
		if fc.ctx.Err() != nil {
			p.cancelUpstream(fc)
			return nil, fc.ctx.Err()
		}
		if up.ctx.Err() != nil {
			err = fmt.Errorf("%w: %v", mcp.ErrConnectionClosed, err)
		}
		return nil, fmt.Errorf("calling %q: %w", methodCallTool, err)
	}
	return responseResult(msg)
}

// The headers of go-sdk's streamable HTTP client.
const (
	headerSessionID       = "Mcp-Session-Id"
	headerProtocolVersion = "Mcp-Protocol-Version"
	acceptCall            = "application/json, text/event-stream"
	postSummary           = `sending "` + methodCallTool + `"`
)

// errRejected is go-sdk's error for a request the transport did not get to
// the server (jsonrpc2.ErrRejected).
var errRejected = &jsonrpc.Error{Code: codeRejected, Message: "rejected by transport"}

// sessionIDer is the HTTP connection of go-sdk's client, which knows the
// session's ID.
type sessionIDer interface{ SessionID() string }

// post sends the call to an HTTP upstream as go-sdk's client sends a request
// in the session (streamableClientConn.Write, for a protocol before
// 2026-07-28): on the client the transport uses, so that the user's headers
// apply, with the session's ID and protocol version. It returns the
// response, which holds an event stream when sse is set, or the error
// go-sdk's Write returns for the same response.
func (p *Proxy) post(ctx context.Context, fc *fastCall, params json.RawMessage) (resp *http.Response, sse bool, err error) {
	data := make([]byte, 0, len(params)+len(fc.upID)+64)
	data = append(data, `{"jsonrpc":"2.0","id":`...)
	data = appendString(data, fc.upID)
	data = append(data, `,"method":"`+methodCallTool+`","params":`...)
	data = append(data, params...)
	data = append(data, '}')
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.link.up.URL, bytes.NewReader(data))
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w: %w", postSummary, errRejected, err)
	}
	var session string
	if c, ok := fc.up.conn.(sessionIDer); ok {
		session = c.SessionID()
	}
	h := req.Header
	h["Content-Type"] = []string{"application/json"}
	h["Accept"] = []string{acceptCall}
	h[headerProtocolVersion] = []string{fc.up.version}
	if session != "" {
		h[headerSessionID] = []string{session}
	}
	resp, err = p.link.http.Do(req)
	if err != nil {
		// As go-sdk: the request did not reach the server.
		return nil, false, fmt.Errorf("%s: %w: %w", postSummary, errRejected, err)
	}
	if err := checkStatus(resp, session); err != nil {
		resp.Body.Close()
		return nil, false, err
	}
	if got := resp.Header.Get(headerSessionID); got != "" && session != "" && got != session {
		resp.Body.Close()
		return nil, false, fmt.Errorf("mismatching session IDs %q and %q", session, got)
	}
	switch mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt {
	case "application/json":
		return resp, false, nil
	case "text/event-stream":
		return resp, true, nil
	default:
		resp.Body.Close()
		return nil, false, fmt.Errorf("%s: unsupported content type %q", postSummary, mt)
	}
}

// checkStatus returns the error go-sdk's client makes of the status of a
// response (streamableClientConn.checkResponse), or nil for a success.
func checkStatus(resp *http.Response, session string) error {
	switch code := resp.StatusCode; {
	case code == http.StatusInternalServerError || code == http.StatusBadGateway || code == http.StatusServiceUnavailable ||
		code == http.StatusGatewayTimeout || code == http.StatusTooManyRequests:
		// Transient.
		return fmt.Errorf("%w: %s: %v", errRejected, postSummary, http.StatusText(code))
	case code >= 200 && code < 300:
		return nil
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxMessage))
	if msg, err := jsonrpc.DecodeMessage(body); err == nil {
		if r, ok := msg.(*jsonrpc.Response); ok && r.Error != nil {
			return fmt.Errorf("%s: %w: %w: %v", postSummary, r.Error, errRejected, http.StatusText(resp.StatusCode))
		}
	}
	if resp.StatusCode == http.StatusNotFound && session != "" {
		// The upstream no longer knows the session.
		return fmt.Errorf("%s: failed to connect (session ID: %v): %w", postSummary, session, mcp.ErrSessionMissing)
	}
	return fmt.Errorf("%s: %v", postSummary, http.StatusText(resp.StatusCode))
}

// responseResult returns the result of the JSON-RPC response msg, or its
// error as the SDK's client returns it.
func responseResult(msg []byte) (json.RawMessage, error) {
	if jsonscan.Lookup(msg, "error") != nil {
		m, err := jsonrpc.DecodeMessage(msg)
		if err != nil {
			return nil, fmt.Errorf("calling %q: %w", methodCallTool, err)
		}
		if resp, ok := m.(*jsonrpc.Response); ok && resp.Error != nil {
			return nil, fmt.Errorf("calling %q: %w", methodCallTool, resp.Error)
		}
	}
	result := jsonscan.Lookup(msg, "result")
	if result == nil {
		return nil, fmt.Errorf("calling %q: the upstream's response has no result", methodCallTool)
	}
	return result, nil
}

// callCommand sends the call to a command upstream, whose captureConn hands
// back the response.
func (p *Proxy) callCommand(fc *fastCall, req *jsonrpc.Request) (json.RawMessage, error) {
	cc := fc.up.capture
	reply := make(chan upReply, 1)
	cc.expect(fc.upID, reply)
	if err := cc.Connection.Write(fc.ctx, req); err != nil {
		cc.forgetFast(fc.upID)
		if fc.ctx.Err() != nil {
			return nil, fc.ctx.Err()
		}
		return nil, fmt.Errorf("calling %q: %w", methodCallTool, err)
	}
	select {
	case r := <-reply:
		if r.err != nil {
			return nil, fmt.Errorf("calling %q: %w: %v", methodCallTool, mcp.ErrConnectionClosed, r.err)
		}
		if r.resp.Error != nil {
			return nil, fmt.Errorf("calling %q: %w", methodCallTool, r.resp.Error)
		}
		return r.resp.Result, nil
	case <-fc.ctx.Done():
		cc.forgetFast(fc.upID)
		p.cancelUpstream(fc)
		return nil, fc.ctx.Err()
	case <-fc.up.ctx.Done():
		cc.forgetFast(fc.upID)
		return nil, fmt.Errorf("calling %q: %w", methodCallTool, mcp.ErrConnectionClosed)
	}
}

// cancelUpstream tells the upstream that the call was canceled, as the SDK's
// client does.
func (p *Proxy) cancelUpstream(fc *fastCall) {
	params, err := json.Marshal(&mcp.CancelledParams{Reason: context.Canceled.Error(), RequestID: fc.upID})
	if err != nil {
		return
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), cancelTimeout)
		defer cancel()
		_ = fc.up.conn.Write(ctx, &jsonrpc.Request{Method: methodCancelled, Params: params})
	}()
}

// readBody reads the HTTP response to the fast call until its JSON-RPC
// response, which it returns. On the way it relays the call's progress and
// passes everything else on to go-sdk's client.
func (p *Proxy) readBody(fc *fastCall, body io.Reader, sse bool) ([]byte, error) {
	if !sse {
		data, err := io.ReadAll(io.LimitReader(body, maxMessage+1))
		if err != nil {
			return nil, err
		}
		if len(data) > maxMessage {
			return nil, fmt.Errorf("the response is larger than %d bytes", maxMessage)
		}
		if !jsonscan.Valid(data) || !bytes.Equal(jsonscan.Lookup(data, "id"), quoted(fc.upID)) {
			return nil, errors.New("the response is not the call's")
		}
		return data, nil
	}
	want := quoted(fc.upID)
	var found []byte
	err := readEvents(body, func(name string, data []byte) (bool, error) {
		if name != "" && name != "message" || len(data) == 0 {
			return false, nil
		}
		if !jsonscan.Valid(data) || jsonscan.Kind(data) != '{' {
			return false, errors.New("an event that is no JSON-RPC message")
		}
		method := jsonscan.Lookup(data, "method")
		switch {
		case method == nil && bytes.Equal(jsonscan.Lookup(data, "id"), want):
			found = data
			return true, nil
		case string(method) == `"`+methodProgress+`"` && p.relayRaw(jsonscan.Lookup(data, "params")):
			return false, nil
		}
		// Not the call's: go-sdk's client handles it.
		return false, fc.relayToSDK(name, data)
	})
	if err == nil && found == nil {
		err = errors.New("request terminated without response")
	}
	return found, err
}

func quoted(s string) []byte { return appendString(nil, s) }

// readEvents calls fn with each event of a server-sent event stream until fn
// reports that it is done, or the stream ends.
func readEvents(r io.Reader, fn func(name string, data []byte) (bool, error)) error {
	br := bufio.NewReaderSize(r, 4<<10)
	var name string
	var data []byte
	hasData := false
	for {
		line, err := readLine(br)
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
		if len(line) == 0 {
			if hasData || name != "" {
				done, err := fn(name, data)
				if err != nil || done {
					return err
				}
			}
			name, data, hasData = "", data[:0], false
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		// As go-sdk reads them: white space around a value is not part of it.
		value = bytes.TrimSpace(value)
		switch string(field) {
		case "event":
			name = string(value)
		case "data":
			if hasData {
				data = append(data, '\n')
			}
			data = append(data, value...)
			hasData = true
			if len(data) > maxMessage {
				return fmt.Errorf("an event is larger than %d bytes", maxMessage)
			}
		}
	}
}

// readLine reads one line of an event stream, without its end.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		long := append([]byte(nil), line...)
		for err == bufio.ErrBufferFull {
			line, err = br.ReadSlice('\n')
			long = append(long, line...)
			if len(long) > maxMessage {
				return nil, fmt.Errorf("a line is larger than %d bytes", maxMessage)
			}
		}
		line = long
	}
	if err != nil && !(err == io.EOF && len(line) > 0) {
		return nil, err
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r")), nil
}

// relayIDPrefix begins the IDs of the requests that carry to go-sdk's
// client the messages of fast calls' streams that are not the fast path's.
const relayIDPrefix = "lro-proxy-relay-"

// relayKey marks the context of such a request; its value is the
// *io.PipeReader of the stream headerTransport answers it with.
type relayKey struct{}

// relayToSDK hands an event of the fast call's stream that is not the fast
// path's (a request of the upstream to the client, a notification) to
// go-sdk's client, which reads and answers it as if it had read it in the
// response to a request of its own. The first such event makes go-sdk's
// connection write a request (a ping, which is never sent) that
// headerTransport answers with a stream of the events relayed; the stream
// ends with the call's, without a response to the ping, which go-sdk's
// client drops as it drops any response to a request it does not know.
func (fc *fastCall) relayToSDK(name string, data []byte) error {
	if fc.pass == nil {
		pr, pw := io.Pipe()
		id, _ := jsonrpc.MakeID(relayIDPrefix + strings.TrimPrefix(fc.upID, fastIDPrefix))
		ctx := context.WithValue(fc.up.ctx, relayKey{}, pr)
		if err := fc.up.conn.Write(ctx, &jsonrpc.Request{ID: id, Method: "ping"}); err != nil {
			pr.Close()
			return fmt.Errorf("relaying the upstream's message to the client session: %w", err)
		}
		fc.pass = pw
	}
	return writeEvent(fc.pass, name, data)
}

// relayResponse is the response headerTransport gives a request marked with
// relayKey, without sending it: the events fastCall.relayToSDK writes to
// pr.
func relayResponse(req *http.Request, pr *io.PipeReader) *http.Response {
	if req.Body != nil {
		req.Body.Close()
	}
	return &http.Response{
		Status:        "200 OK",
		StatusCode:    http.StatusOK,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        http.Header{"Content-Type": {"text/event-stream"}},
		Body:          pr,
		ContentLength: -1,
		Request:       req,
	}
}

// writeEvent writes an event for the SDK to read, without its ID: the SDK
// does not resume the fast call's stream.
func writeEvent(w io.Writer, name string, data []byte) error {
	var b bytes.Buffer
	if name != "" {
		b.WriteString("event: " + name + "\n")
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		b.WriteString("data: ")
		b.Write(line)
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	_, err := w.Write(b.Bytes())
	return err
}

// relayRaw relays a progress notification of the upstream, given its
// params, when it belongs to a fast call, and reports whether it did.
func (p *Proxy) relayRaw(params []byte) bool {
	raw := jsonscan.Lookup(params, "progressToken")
	if len(raw) < len(progressTokenPrefix)+2 || !bytes.HasPrefix(raw[1:], []byte(progressTokenPrefix)) || raw[0] != '"' {
		return false
	}
	v, ok := p.progress.Load(string(raw[1 : len(raw)-1]))
	if !ok || v.(progressRoute).tap == nil {
		return false
	}
	var pn mcp.ProgressNotificationParams
	if json.Unmarshal(params, &pn) != nil {
		return false
	}
	p.notifyFast(context.Background(), v.(progressRoute), &pn)
	return true
}

// notifyFast sends a progress notification to the client of a fast call.
func (p *Proxy) notifyFast(ctx context.Context, route progressRoute, params *mcp.ProgressNotificationParams) {
	out := *params
	out.ProgressToken = route.token
	out.Meta = nil
	data, err := json.Marshal(&out)
	if err == nil {
		line := append([]byte(`{"jsonrpc":"2.0","method":"`+methodProgress+`","params":`), data...)
		_, err = route.tap.write(append(line, '}', '\n'))
	}
	if err != nil {
		p.logger.Debug("relaying progress failed", "err", err)
	}
}

// inline returns what the client receives for the raw result of a call to
// tool when the result is sure to stay inline and the SDK path would hand
// it on unchanged, or ok false.
//
// Inline: lro estimates the tokens of each text (or, with no text, of the
// structured content) against the threshold; with the built-in heuristic no
// such estimate exceeds that of the whole result, escape sequences and
// all, so a result whose whole estimate is within the threshold stays
// inline. Unchanged: the SDK path decodes the result into go-sdk's types and
// encodes it again; with only text content and the fields below, that gives
// the same JSON, except for the protocol's own _meta keys, which it
// deletes (and so does inline).
func (p *Proxy) inline(tool string, result []byte) (out []byte, ok bool) {
	// The SDK path decodes strings into Go strings, which turns invalid
	// UTF-8 into U+FFFD; relayed as written, it could break a strict client.
	if jsonscan.Kind(result) != '{' || !utf8.Valid(result) {
		return nil, false
	}
	var seen [5]bool
	var meta []byte
	rewrite := false
	err := jsonscan.Fields(result, func(f jsonscan.Field) error {
		i := -1
		switch string(f.Key) {
		case "content":
			i = 0
			if jsonscan.Kind(f.Value) != '[' || !textContent(f.Value) {
				return errFound
			}
		case "structuredContent":
			i = 1
		case "isError":
			i = 2
			if k := jsonscan.Kind(f.Value); k != 't' && k != 'f' {
				return errFound
			}
		case "_meta":
			i = 3
			if jsonscan.Kind(f.Value) != '{' {
				return errFound
			}
			meta = f.Value
			_ = jsonscan.Fields(f.Value, func(m jsonscan.Field) error {
				if isSDKKey(string(m.Key)) {
					rewrite = true
				}
				return nil
			})
		case "resultType":
			// go-sdk's client keeps a "complete" and its server writes it.
			i = 4
			if string(f.Value) != `"complete"` {
				return errFound
			}
		}
		if i < 0 || seen[i] {
			return errFound
		}
		seen[i] = true
		return nil
	})
	if err != nil || !seen[0] {
		return nil, false
	}
	// lro leaves tool errors alone.
	isError := string(jsonscan.Lookup(result, "isError")) == "true"
	if !isError && !p.lro.Disabled && !p.lro.Tools[tool].Disabled {
		if t := p.lro.Tokenizer; t != nil {
			if _, heuristic := t.(estimate.Heuristic); !heuristic {
				return nil, false
			}
		}
		if estimate.Bytes(result) > p.threshold(tool) {
			return nil, false
		}
	}
	if !rewrite {
		return result, true
	}
	return withoutSDKMeta(result, meta), true
}

// textContent reports whether the content array holds only text items of
// the fields go-sdk keeps: type, text, _meta.
func textContent(content []byte) bool {
	return jsonscan.Elements(content, func(item []byte) error {
		if jsonscan.Kind(item) != '{' {
			return errFound
		}
		var typ, text, meta bool
		err := jsonscan.Fields(item, func(f jsonscan.Field) error {
			switch string(f.Key) {
			case "type":
				if typ || string(f.Value) != `"text"` {
					return errFound
				}
				typ = true
			case "text":
				if text || jsonscan.Kind(f.Value) != '"' {
					return errFound
				}
				text = true
			case "_meta":
				if meta || jsonscan.Kind(f.Value) != '{' {
					return errFound
				}
				meta = true
			default:
				return errFound
			}
			return nil
		})
		if err != nil || !typ || !text {
			return errFound
		}
		return nil
	}) == nil
}

// withoutSDKMeta returns the result with the protocol's own keys deleted
// from its _meta, meta, and the _meta left out when nothing remains.
func withoutSDKMeta(result, meta []byte) []byte {
	kept := []byte{'{'}
	_ = jsonscan.Fields(meta, func(f jsonscan.Field) error {
		if isSDKKey(string(f.Key)) {
			return nil
		}
		if len(kept) > 1 {
			kept = append(kept, ',')
		}
		kept = appendString(kept, string(f.Key))
		kept = append(kept, ':')
		kept = append(kept, f.Value...)
		return nil
	})
	kept = append(kept, '}')
	out := []byte{'{'}
	_ = jsonscan.Fields(result, func(f jsonscan.Field) error {
		value := f.Value
		if string(f.Key) == "_meta" {
			if len(kept) == 2 {
				return nil
			}
			value = kept
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = appendString(out, string(f.Key))
		out = append(out, ':')
		out = append(out, value...)
		return nil
	})
	return append(out, '}')
}

// isFastID reports whether id is one the fast path gave a call upstream.
func isFastID(id jsonrpc.ID) (string, bool) {
	s, ok := id.Raw().(string)
	return s, ok && strings.HasPrefix(s, fastIDPrefix)
}
