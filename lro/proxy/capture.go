package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The go-sdk client decodes a result's structured content into Go maps and
// float64s: keys come out sorted and numbers rewritten (an integer above 2^53
// loses digits, 1.50 becomes 1.5). The proxy must hand on, and write to its
// files, exactly what the upstream sent, so it captures the raw JSON of each
// tools/call result below the client, where the bytes still exist: in the
// connection of a stdio upstream, in the HTTP responses of a streamable HTTP
// one. The call's context carries the slot the bytes go to.

// maxCapture bounds the bytes of HTTP response bodies kept for one call: the
// largest message the proxy reads from an HTTP upstream.
const maxCapture = maxMessage

type captureKey struct{}

// capture receives the raw result of one tools/call.
type capture struct {
	mu     sync.Mutex
	result json.RawMessage // the JSON-RPC result, from a stdio upstream
	bodies []*capturedBody // HTTP response bodies, from an HTTP upstream
	done   bool            // the call returned: stop keeping bytes
}

func withCapture(ctx context.Context) (context.Context, *capture) {
	c := &capture{}
	return context.WithValue(ctx, captureKey{}, c), c
}

func captureFrom(ctx context.Context) *capture {
	c, _ := ctx.Value(captureKey{}).(*capture)
	return c
}

// structured returns the raw structured content of the captured result, or
// nil when there is none or it was not captured.
func (c *capture) structured() json.RawMessage {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.done = true
	if c.result != nil {
		return json.RawMessage(member(c.result, "structuredContent"))
	}
	for _, b := range c.bodies {
		if r := b.result(); r != nil {
			return json.RawMessage(member(r, "structuredContent"))
		}
	}
	return nil
}

// captureTransport wraps the transport of a stdio upstream: its connection
// hands the raw result of each captured call to the call's slot.
type captureTransport struct{ mcp.Transport }

func (t captureTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &captureConn{Connection: conn, pending: map[jsonrpc.ID]*capture{}}, nil
}

type captureConn struct {
	mcp.Connection
	mu      sync.Mutex
	pending map[jsonrpc.ID]*capture
}

func (c *captureConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	req, ok := msg.(*jsonrpc.Request)
	if !ok || req.Method != "tools/call" || !req.ID.IsValid() {
		return c.Connection.Write(ctx, msg)
	}
	slot := captureFrom(ctx)
	if slot == nil {
		return c.Connection.Write(ctx, msg)
	}
	c.mu.Lock()
	c.pending[req.ID] = slot
	c.mu.Unlock()
	err := c.Connection.Write(ctx, msg)
	if err != nil {
		c.forget(req.ID)
	}
	return err
}

func (c *captureConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if resp, ok := msg.(*jsonrpc.Response); ok && err == nil {
		c.mu.Lock()
		slot := c.pending[resp.ID]
		delete(c.pending, resp.ID)
		c.mu.Unlock()
		if slot != nil && resp.Error == nil {
			slot.mu.Lock()
			slot.result = resp.Result
			slot.mu.Unlock()
			// go-sdk's client would decode the structured content into
			// float64s, and fail on a number they cannot hold (1e400): it
			// gets the result without it, and the call puts the captured
			// bytes back.
			if rest, ok := withoutMember(resp.Result, "structuredContent"); ok {
				resp.Result = rest
			}
		}
	}
	return msg, err
}

func (c *captureConn) forget(id jsonrpc.ID) {
	c.mu.Lock()
	delete(c.pending, id)
	c.mu.Unlock()
}

// headerTransport sends extra headers with every request and, for a request
// made on behalf of a captured call, keeps the bytes of the response body.
type headerTransport struct {
	base   http.RoundTripper
	header http.Header
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.header) > 0 {
		req = req.Clone(req.Context())
		for k, vs := range t.header {
			req.Header.Del(k)
			for _, v := range vs {
				req.Header.Add(k, v)
			}
		}
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil || req.Method != http.MethodPost {
		return resp, err
	}
	slot := captureFrom(req.Context())
	if slot == nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	b := &capturedBody{ReadCloser: resp.Body, slot: slot, sse: mt == "text/event-stream"}
	slot.mu.Lock()
	if !slot.done {
		slot.bodies = append(slot.bodies, b)
	}
	slot.mu.Unlock()
	resp.Body = b
	return resp, nil
}

// capturedBody keeps a copy of what is read from an HTTP response body.
type capturedBody struct {
	io.ReadCloser
	slot *capture
	sse  bool
	buf  bytes.Buffer // guarded by slot.mu
	over bool         // more than maxCapture bytes: give up
}

func (b *capturedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.slot.mu.Lock()
		if !b.slot.done && !b.over {
			if b.buf.Len()+n > maxCapture {
				b.over = true
				b.buf = bytes.Buffer{}
			} else {
				b.buf.Write(p[:n])
			}
		}
		b.slot.mu.Unlock()
	}
	return n, err
}

// result returns the JSON-RPC result in the body: the body itself when it
// is JSON, or the first message with a result among its server-sent events.
// The caller holds slot.mu.
func (b *capturedBody) result() json.RawMessage {
	if b.over {
		return nil
	}
	data := b.buf.Bytes()
	if !b.sse {
		return messageResult(data)
	}
	// Server-sent events: "data:" lines, joined by newlines, make an
	// event's payload; an empty line ends the event.
	var payload []byte
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, maxCapture)
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case len(line) == 0:
			if r := messageResult(payload); r != nil {
				return r
			}
			payload = payload[:0]
		case bytes.HasPrefix(line, []byte("data:")):
			if len(payload) > 0 {
				payload = append(payload, '\n')
			}
			payload = append(payload, bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))...)
		}
	}
	return messageResult(payload)
}

// messageResult returns the result of a JSON-RPC response message, as
// written, or nil when msg has none or is not valid JSON up to its end.
func messageResult(msg []byte) json.RawMessage {
	return json.RawMessage(member(msg, "result"))
}
