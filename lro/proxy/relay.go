package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A relay passes the messages of one client session to the upstream and
// back, and connects again when the upstream's connection ends.
type relay struct {
	p      *Proxy
	client mcp.Connection
	ctx    context.Context // ends with the relay
	cancel context.CancelFunc

	connMu sync.Mutex     // one connection attempt at a time
	exits  sync.WaitGroup // the commands' processes ending in the background

	settled chan struct{}  // a call left calls, or the output is gone (see settle)
	writing sync.WaitGroup // answers being written to the client

	mu         sync.Mutex
	up         *upConn                               // nil while disconnected
	dialing    *upConn                               // a connection being made, not yet up
	calls      map[jsonrpc.ID]*call                  // the client's requests in flight
	own        map[jsonrpc.ID]chan *jsonrpc.Response // the relay's own requests
	asked      map[jsonrpc.ID]*asked                 // the upstream's requests passed to the client, unanswered
	init       *jsonrpc.Request                      // the client's initialize, as sent upstream
	ready      bool                                  // init was answered: replay it on a new connection
	localOnly  bool                                  // init's result had no tools: the proxy added them, for the local tools
	inputEnded bool                                  // the client can answer nothing
	outputGone bool                                  // the client reads nothing
	seq        atomic.Int64
}

// asked is a request of the upstream that the client has not answered.
type asked struct {
	up     *upConn // the connection it came on
	method string
}

// call is a request of the client in flight.
type call struct {
	method   string
	params   json.RawMessage // the client's params
	up       *upConn         // the connection it was sent on; nil before
	ctx      context.Context
	cancel   context.CancelFunc // ends ctx: its HTTP request's stream, its offload
	canceled bool               // the client canceled it: no response goes back
	answered bool               // the upstream answered; the proxy is offloading the result
}

// run reads the client's messages until the client disconnects or ctx ends.
func (r *relay) run(ctx context.Context) error {
	r.ctx, r.cancel = context.WithCancel(ctx)
	r.calls, r.own, r.asked = map[jsonrpc.ID]*call{}, map[jsonrpc.ID]chan *jsonrpc.Response{}, map[jsonrpc.ID]*asked{}
	r.settled = make(chan struct{}, 1)
	defer r.close()
	stop := context.AfterFunc(r.ctx, func() { r.client.Close() })
	defer stop()
	for {
		msg, err := r.client.Read(r.ctx)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) {
				return r.drain(ctx)
			}
			return err
		}
		switch m := msg.(type) {
		case *jsonrpc.Request:
			if m.IsCall() {
				r.request(m)
			} else {
				r.notify(m)
			}
		case *jsonrpc.Response: // to a request of the upstream (sampling, elicitation, roots)
			r.answer(m)
		}
	}
}

// drain waits, once the client's input ended, until every request it sent
// is answered, at most r.p.grace.
func (r *relay) drain(ctx context.Context) error {
	r.mu.Lock()
	r.inputEnded = true
	n, asked := len(r.calls), r.asked
	r.asked = nil
	r.mu.Unlock()
	if n > 0 {
		r.p.logger.Info("the client closed its input; answering the requests it sent first", "requests", n, "grace", r.p.grace)
	}
	for id, a := range asked { // no answer can come
		r.answerForClient(a.up, id, a.method)
	}
	start, grace := time.Now(), time.NewTimer(r.p.grace)
	defer grace.Stop()
	for {
		r.mu.Lock()
		n, gone := len(r.calls), r.outputGone
		r.mu.Unlock()
		if gone {
			r.p.logger.Warn("the client closed its input, and its output: stopped waiting for answers", "unanswered", n)
			return nil
		}
		if n == 0 {
			break
		}
		select {
		case <-r.settled:
		case <-grace.C:
			r.p.logger.Warn("the client closed its input; the grace period is over, stopped waiting for answers", "grace", r.p.grace, "unanswered", n)
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	written := make(chan struct{}) // the last answers may still be written
	go func() { r.writing.Wait(); close(written) }()
	select {
	case <-written:
		r.p.logger.Info("the client closed its input; every request it sent is answered", "waited", time.Since(start).Round(time.Millisecond))
	case <-grace.C:
		r.p.logger.Warn("the client closed its input; the grace period is over, stopped waiting for answers to be written", "grace", r.p.grace)
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// remove takes the call id out of the calls in flight, with r.mu held.
// With answer, the caller writes its answer, then calls r.writing.Done().
func (r *relay) remove(id jsonrpc.ID, answer bool) {
	delete(r.calls, id)
	if answer {
		r.writing.Add(1)
	}
	r.settle()
}

func (r *relay) settle() { // wakes drain
	select {
	case r.settled <- struct{}{}:
	default:
	}
}

// close ends the relay's connections, and returns once they are closed:
// no upstream process outlives Run.
func (r *relay) close() {
	r.cancel()
	r.mu.Lock()
	ups := []*upConn{r.up, r.dialing}
	r.up = nil
	r.mu.Unlock()
	r.client.Close()
	for _, u := range ups {
		if u != nil {
			u.ended()
			<-u.closed
		}
	}
	r.connMu.Lock()
	//lint:ignore SA2001 a barrier: a connection made since has been ended by its maker
	r.connMu.Unlock()
	r.exits.Wait()
}

// answer passes the client's answer to the connection whose request it
// answers. An answer to a connection that has ended since, or to no
// request, is dropped: the next connection, a new session or process, did
// not ask it, and may have a request of its own under the same id.
func (r *relay) answer(m *jsonrpc.Response) {
	r.mu.Lock()
	a := r.asked[m.ID]
	delete(r.asked, m.ID)
	r.mu.Unlock()
	if a == nil || a.up.ctx.Err() != nil {
		r.p.logger.Info("the client answered a request of no upstream connection in use (one that ended since, or none); dropped", "id", m.ID.Raw())
		return
	}
	if err := r.post(a.up, m); err != nil {
		r.lost(a.up, err)
	}
}

// forward sends msg on the upstream connection, if any.
func (r *relay) forward(msg jsonrpc.Message) {
	r.mu.Lock()
	u := r.up
	r.mu.Unlock()
	if u == nil {
		return
	}
	if err := r.post(u, msg); err != nil {
		r.lost(u, err)
	}
}

// post writes msg, no request of the client's, to u: to an HTTP upstream
// within r.p.timeout, as a command's write is bounded (cmdConn.Write).
func (r *relay) post(u *upConn, msg jsonrpc.Message) error {
	if u.http == nil {
		return u.Write(r.ctx, msg)
	}
	ctx, cancel := context.WithTimeout(r.ctx, r.p.timeout)
	defer cancel()
	err := u.Write(ctx, msg)
	if err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		err = fmt.Errorf("the upstream took no message within %v (Options.ConnectTimeout, lro-proxy -connect-timeout)", r.p.timeout)
	}
	return err
}

// notify passes a notification of the client upstream; a canceled call
// gets no response.
func (r *relay) notify(m *jsonrpc.Request) {
	var params struct{ RequestID any }
	if m.Method == "notifications/cancelled" && json.Unmarshal(m.Params, &params) == nil {
		id, _ := jsonrpc.MakeID(params.RequestID) // the zero ID, of no call, if invalid
		r.mu.Lock()
		if c := r.calls[id]; c != nil {
			c.canceled = true
			r.remove(id, false)
			defer c.cancel() // after the notification, which the upstream reads first
		}
		r.mu.Unlock()
	}
	r.forward(m)
}

// request registers a request of the client, and sends it upstream, or
// answers it for a local tool, from a goroutine of its own.
func (r *relay) request(m *jsonrpc.Request) {
	ctx, cancel := context.WithCancel(r.ctx)
	c := &call{method: m.Method, params: m.Params, ctx: ctx, cancel: cancel}
	r.mu.Lock()
	r.calls[m.ID] = c
	r.mu.Unlock()
	if m.Method == "tools/call" && r.p.local != nil && r.p.localNames[stringMember(m.Params, "name")] {
		go r.callLocal(ctx, m, c)
		return
	}
	switch m.Method {
	case "initialize":
		m = &jsonrpc.Request{ID: m.ID, Method: m.Method, Params: markInitialize(m.Params)}
		r.mu.Lock()
		r.init, r.ready = m, false
		r.mu.Unlock()
		r.send(ctx, m, c) // before the client's next messages, which find the connection
		return
	case "tools/call":
		m = &jsonrpc.Request{ID: m.ID, Method: m.Method, Params: markCall(m.Params)}
	}
	go r.send(ctx, m, c)
}

// send sends the client's request m upstream, connecting first if needed.
func (r *relay) send(ctx context.Context, m *jsonrpc.Request, c *call) {
	for attempt := 0; ; attempt++ {
		u, err := r.connection(m.Method != "initialize")
		if err != nil {
			r.fail(m.ID, err)
			return
		}
		if ctx.Err() != nil {
			return // canceled before it was sent
		}
		r.mu.Lock() // on u while it is written: if u ends meanwhile, the call fails
		c.up = u
		r.mu.Unlock()
		err = u.Write(ctx, m)
		if err == nil {
			r.mu.Lock()
			live := r.up == u
			r.mu.Unlock()
			if !live { // it ended before the call was registered on it
				r.fail(m.ID, errEnded)
			}
			return
		}
		if ctx.Err() != nil && !errors.Is(err, errStalled) {
			return // canceled while it was being sent
		}
		r.mu.Lock()
		c.up = nil // failed here, or sent again, not by lost
		r.mu.Unlock()
		r.lost(u, err)
		// A session the upstream no longer knows never saw it: sent again, once.
		if attempt > 0 || !errors.Is(err, mcp.ErrSessionMissing) {
			r.fail(m.ID, err)
			return
		}
	}
}

// connection returns the upstream connection, connecting first if there is
// none; with replay, a new connection gets the client's initialize again.
func (r *relay) connection(replay bool) (*upConn, error) {
	r.connMu.Lock()
	defer r.connMu.Unlock()
	r.mu.Lock()
	u, init, ready := r.up, r.init, r.ready
	r.mu.Unlock()
	if u != nil {
		return u, nil
	}
	if err := r.ctx.Err(); err != nil { // the relay ended: close has run, or waits for connMu
		return nil, r.p.unavailable(err)
	}
	u, err := r.p.dial(r.ctx)
	if err != nil {
		return nil, err
	}
	if u.http == nil {
		r.exits.Go(func() { <-u.closed }) // before Run returns, close waits for every process
	}
	r.mu.Lock()
	r.dialing = u
	r.mu.Unlock()
	go r.read(u)
	if replay && ready {
		if err = r.replay(u, init); err == nil {
			r.p.logger.Info("upstream connected again", "upstream", r.p.up.String())
		}
	}
	r.mu.Lock()
	r.dialing = nil
	if err == nil && u.ctx.Err() != nil { // a command that exited at once, or the relay ended
		err = errEnded
	} else if err == nil {
		r.up = u
	}
	r.mu.Unlock()
	if err != nil {
		u.ended() // its process exits in the background; close waits for it
		return nil, r.p.unavailable(err)
	}
	return u, nil
}

// replay initializes a new connection as the client initialized the first.
func (r *relay) replay(u *upConn, init *jsonrpc.Request) error {
	id, _ := jsonrpc.MakeID("lro-proxy-" + strconv.FormatInt(r.seq.Add(1), 10))
	answer := make(chan *jsonrpc.Response, 1)
	r.mu.Lock()
	r.own[id] = answer
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.own, id)
		r.mu.Unlock()
	}()
	ctx, cancel := context.WithTimeout(r.ctx, r.p.timeout)
	defer cancel()
	if err := u.Write(ctx, &jsonrpc.Request{ID: id, Method: init.Method, Params: init.Params}); err != nil {
		return err
	}
	select {
	case resp := <-answer:
		if resp.Error != nil {
			return resp.Error
		}
		r.initialized(u, resp.Result)
	case <-u.ctx.Done():
		return errEnded
	case <-ctx.Done():
		return fmt.Errorf("no answer to initialize within %v", r.p.timeout)
	}
	return u.Write(ctx, &jsonrpc.Request{Method: "notifications/initialized", Params: json.RawMessage("{}")})
}

// initialized records an initialize result's protocol version, and opens
// the stream of an HTTP upstream's own messages.
func (r *relay) initialized(u *upConn, result []byte) {
	v := stringMember(result, "protocolVersion")
	u.version.Store(&v)
	if u.http != nil && v < protocol20260728 {
		go r.listen(u)
	}
}

// read passes the messages of u to the client until it ends. A connection
// from which nothing comes within r.p.timeout is broken.
func (r *relay) read(u *upConn) {
	heard := make(chan struct{})
	silent := time.AfterFunc(r.p.timeout, func() {
		select {
		case <-heard:
		default:
			r.lost(u, fmt.Errorf("nothing came from the upstream within %v of connecting (Options.ConnectTimeout, lro-proxy -connect-timeout)", r.p.timeout))
		}
	})
	defer silent.Stop()
	for first := true; ; first = false {
		msg, err := u.Read(r.ctx)
		if err != nil {
			r.lost(u, err)
			return
		}
		if first {
			close(heard)
		}
		r.fromUpstream(u, msg)
	}
}

// fromUpstream passes a message of the upstream to the client.
func (r *relay) fromUpstream(u *upConn, msg jsonrpc.Message) {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		req := msg.(*jsonrpc.Request)
		r.mu.Lock()
		gone := r.inputEnded
		if !gone && req.IsCall() {
			r.asked[req.ID] = &asked{u, req.Method}
		}
		r.mu.Unlock()
		if gone && req.IsCall() { // no answer can come back
			r.answerForClient(u, req.ID, req.Method)
			return
		}
		r.toClient(msg)
		return
	}
	r.mu.Lock()
	if answer := r.own[resp.ID]; answer != nil {
		r.mu.Unlock()
		select {
		case answer <- resp:
		default: // answered already: the reading goes on
		}
		return
	}
	c := r.calls[resp.ID]
	if c == nil { // a string id for a number, or the other way round?
		if alt, ok := sameText(resp.ID); ok && r.calls[alt] != nil && (r.calls[alt].up == u || r.calls[alt].up == nil) {
			r.mu.Unlock()
			idText, _ := json.Marshal(resp.ID.Raw())
			r.fail(alt, fmt.Errorf("%w: it has the id %s, of another type than the request's", errBadReply, idText))
			return
		}
	}
	if c == nil || c.up != u && c.up != nil || c.answered { // canceled, failed or answered
		r.mu.Unlock()
		return
	}
	// An error of the SDK's, not the upstream's: no answer came.
	if _, ok := errors.AsType[*jsonrpc.Error](resp.Error); resp.Error != nil && !ok {
		r.mu.Unlock()
		r.fail(resp.ID, resp.Error)
		return
	}
	if c.method == "tools/call" && resp.Error == nil { // offloaded aside; the client may still cancel
		c.answered = true
		r.mu.Unlock()
		go func() {
			resp.Result = r.p.offload(c.ctx, c.params, resp.Result)
			r.finish(c, resp)
		}()
		return
	}
	r.remove(resp.ID, true)
	r.mu.Unlock()
	defer r.writing.Done()
	c.cancel()
	r.mu.Lock()
	localOnly := r.localOnly
	r.mu.Unlock()
	switch {
	case resp.Error != nil && c.method == "tools/list" && localOnly:
		// An upstream without tools may have no tools/list (the TypeScript
		// SDK's servers answer "method not found"): the local tools.
		resp = &jsonrpc.Response{ID: resp.ID, Result: r.p.rewriteTools([]byte(`{"tools":[]}`))}
	case resp.Error != nil: // passed as it is
	case c.method == "initialize":
		var added bool
		if r.p.local != nil {
			resp.Result, added = advertiseTools(resp.Result)
		}
		r.mu.Lock()
		r.ready, r.localOnly = true, added
		r.mu.Unlock()
		r.initialized(u, resp.Result)
	case c.method == "tools/list":
		resp.Result = r.p.rewriteTools(resp.Result)
	}
	r.toClient(resp)
}

// answerForClient answers the upstream u's request id, of method, with an
// error: the client, whose input ended, can answer nothing. A ping gets
// its empty result: the proxy is there to deliver the answers (a go-sdk
// server with KeepAlive closes its session at the first ping that fails).
func (r *relay) answerForClient(u *upConn, id jsonrpc.ID, method string) {
	if u.ctx.Err() != nil {
		return // the connection ended
	}
	no := &jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "lro proxy: the client has closed its input"}}
	if method == "ping" {
		no = &jsonrpc.Response{ID: id, Result: json.RawMessage("{}")}
	}
	if err := r.post(u, no); err != nil {
		r.lost(u, err)
	}
}

// finish answers the call c with resp, unless the client canceled it.
func (r *relay) finish(c *call, resp *jsonrpc.Response) {
	r.mu.Lock()
	canceled := c.canceled
	mine := r.calls[resp.ID] == c
	if mine {
		r.remove(resp.ID, true)
	}
	r.mu.Unlock()
	if mine {
		defer r.writing.Done()
	}
	c.cancel()
	if !canceled {
		r.toClient(resp)
	}
}

func (r *relay) toClient(msg jsonrpc.Message) {
	if err := r.client.Write(r.ctx, msg); err != nil && r.ctx.Err() == nil {
		r.p.logger.Warn("writing to the client failed", "err", err)
		r.mu.Lock()
		r.outputGone = true
		r.mu.Unlock()
		r.settle()
	}
}

// lost ends the upstream connection u after err: its requests in flight
// fail, and the next request connects again.
func (r *relay) lost(u *upConn, err error) {
	first := u.ended()
	r.mu.Lock()
	if r.up == u {
		r.up = nil
	}
	var ids []jsonrpc.ID
	for id, c := range r.calls {
		if c.up == u && !c.answered {
			ids = append(ids, id)
		}
	}
	for id, a := range r.asked {
		if a.up == u {
			delete(r.asked, id)
		}
	}
	r.mu.Unlock()
	if !first || r.ctx.Err() != nil {
		return
	}
	r.p.logger.Warn("upstream connection ended; the next request connects again", "upstream", r.p.up.String(), "err", err, "requests_failed", len(ids))
	for _, id := range ids {
		r.fail(id, err)
	}
}

// fail answers the client's request id after err: a tools/call with a tool
// error, other requests with a JSON-RPC error.
func (r *relay) fail(id jsonrpc.ID, err error) {
	r.mu.Lock()
	c := r.calls[id]
	if c == nil || c.answered { // answered, canceled, or its result is being offloaded
		r.mu.Unlock()
		return
	}
	r.remove(id, true)
	r.mu.Unlock()
	defer r.writing.Done()
	c.cancel()
	next := ". The proxy connects again on the next call; retry when the upstream server is back."
	if errors.Is(err, errBadReply) {
		next = "."
	} else if !errors.Is(err, errUpstreamUnavailable) {
		err = r.p.unavailable(err)
	}
	msg := strings.TrimPrefix(err.Error(), "proxy: ")
	r.p.logger.Warn("request failed", "method", c.method, "err", msg)
	if c.method != "tools/call" {
		r.toClient(&jsonrpc.Response{ID: id, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "lro proxy: " + msg}})
		return
	}
	res, _ := json.Marshal(&mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "lro proxy: the call did not complete: " + msg + next}}})
	r.toClient(&jsonrpc.Response{ID: id, Result: res})
}

// callLocal answers a call of a local tool.
func (r *relay) callLocal(ctx context.Context, m *jsonrpc.Request, c *call) {
	resp := &jsonrpc.Response{ID: m.ID}
	var params mcp.CallToolParamsRaw
	var res *mcp.CallToolResult
	err := json.Unmarshal(m.Params, &params)
	if err != nil {
		err = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	} else if res, err = r.p.local.CallTool(ctx, &mcp.CallToolParams{Meta: params.Meta, Name: params.Name, Arguments: params.Arguments}); err == nil {
		resp.Result, err = json.Marshal(res)
	}
	if werr := (*jsonrpc.Error)(nil); errors.As(err, &werr) {
		resp.Error = werr
	} else if err != nil {
		resp.Error = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
	}
	r.finish(c, resp)
}

// sameText returns the id of the other type (number, string) and same text.
func sameText(id jsonrpc.ID) (jsonrpc.ID, bool) {
	switch v := id.Raw().(type) {
	case int64:
		alt, err := jsonrpc.MakeID(strconv.FormatInt(v, 10))
		return alt, err == nil
	case string:
		n, err := strconv.ParseInt(v, 10, 64)
		alt, _ := jsonrpc.MakeID(float64(n))
		return alt, err == nil && strconv.FormatInt(n, 10) == v // not "07" for 7
	}
	return jsonrpc.ID{}, false
}
