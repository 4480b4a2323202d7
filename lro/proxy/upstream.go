package proxy

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/zircote/lro-go/internal/redact"
)

// Upstream says how the proxy reaches the server it fronts: a streamable
// HTTP endpoint (URL) or a command that serves MCP over stdio (Cmd).
// Exactly one of the two is set.
type Upstream struct {
	// URL is the streamable HTTP endpoint of the upstream server, such as
	// http://localhost:8080/mcp.
	URL string

	// Header holds HTTP headers sent with every request to URL, such as
	// Authorization. They replace headers of the same name the SDK sets.
	Header http.Header

	// HTTPClient sends the requests to URL. If nil, defaults to a client
	// with the settings of [http.DefaultTransport], but 32 idle connections
	// to the upstream, for calls made in parallel.
	HTTPClient *http.Client

	// Cmd is the command of an upstream server that serves MCP over
	// stdio, made by [exec.Command], with Env, Dir and Stderr set as needed.
	// It is a template, never started itself: the proxy starts a new
	// command from its Path, Args, Env, Dir, Stderr and WaitDelay (if zero,
	// one second) when it connects.
	Cmd *exec.Cmd
}

// String names the upstream in logs and errors: the URL without its
// password, or the command line.
func (u *Upstream) String() string {
	if u.URL != "" {
		return redact.URL(u.URL)
	}
	parts := make([]string, len(u.args()))
	for i, a := range u.args() {
		if a == "" || strings.ContainsAny(a, " \t\n\"'\\$") {
			a = strconv.Quote(a)
		}
		parts[i] = a
	}
	return "command " + strings.Join(parts, " ")
}

// args returns the program and arguments of u.Cmd, none without one.
func (u *Upstream) args() []string {
	switch {
	case u.Cmd != nil && len(u.Cmd.Args) == 0:
		return []string{u.Cmd.Path}
	case u.Cmd != nil:
		return u.Cmd.Args
	}
	return nil
}

// command returns a new command made from the template u.Cmd.
func (u *Upstream) command() *exec.Cmd {
	t := u.Cmd
	return &exec.Cmd{Path: t.Path, Args: slices.Clone(t.Args), Env: slices.Clone(t.Env), Dir: t.Dir,
		Stderr: t.Stderr, Err: t.Err, WaitDelay: cmp.Or(t.WaitDelay, stopGrace)}
}

// validate reports a missing, doubled or malformed upstream.
func (u *Upstream) validate() error {
	switch {
	case u.URL == "" && u.Cmd == nil:
		return fmt.Errorf("%w: neither a URL nor a command is set", errInvalidUpstream)
	case u.URL != "" && u.Cmd != nil:
		return fmt.Errorf("%w: both a URL (%s) and a command (%s) are set", errInvalidUpstream, redact.URL(u.URL), strings.Join(u.args(), " "))
	case u.Cmd != nil && u.Cmd.Path == "":
		return fmt.Errorf("%w: the command's program is empty", errInvalidUpstream)
	case u.URL != "":
		p, err := url.Parse(u.URL)
		if ue := (*url.Error)(nil); errors.As(err, &ue) {
			err = ue.Err // without the URL, which may hold a password
		}
		if err != nil {
			return fmt.Errorf("%w: URL %q: %v", errInvalidUpstream, redact.URL(u.URL), err)
		}
		if (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return fmt.Errorf("%w: URL %q: want an absolute http or https URL, such as http://localhost:8080/mcp", errInvalidUpstream, p.Redacted())
		}
		for k := range u.Header {
			if k == "" || strings.ContainsAny(k, " :\r\n") {
				return fmt.Errorf("%w: header name %q", errInvalidUpstream, k)
			}
		}
	}
	return nil
}

// baseClient returns the HTTP client of the requests to URL (a copy of
// HTTPClient, or the default) and the transport below the proxy's headers.
func (u *Upstream) baseClient() (http.Client, http.RoundTripper) {
	if u.HTTPClient != nil {
		return *u.HTTPClient, cmp.Or[http.RoundTripper](u.HTTPClient.Transport, http.DefaultTransport)
	}
	if dt, ok := http.DefaultTransport.(*http.Transport); ok {
		t := dt.Clone()
		t.MaxIdleConns, t.MaxIdleConnsPerHost = 32, 32 // see HTTPClient
		return http.Client{}, t
	}
	return http.Client{}, http.DefaultTransport
}

// upConn is one connection to the upstream: a command's process, or a
// streamable HTTP session.
type upConn struct {
	mcp.Connection
	http    *http.Client           // for a URL: the client of the connection's requests
	version atomic.Pointer[string] // for a URL: the negotiated protocol version
	ctx     context.Context        // ends when the connection or the relay ended
	stop    context.CancelFunc     // ends ctx
	closed  chan struct{}          // closed when it is closed: a command's process has exited
	end     sync.Once
}

// ended ends u and closes it in the background. It reports whether this
// call ended it.
func (u *upConn) ended() bool {
	first := false
	u.end.Do(func() {
		first = true
		u.stop()
		go func() {
			u.Close()
			close(u.closed)
		}()
	})
	return first
}

// dial starts the command, or prepares an HTTP session (its first request
// connects).
func (p *Proxy) dial(ctx context.Context) (*upConn, error) {
	u := &upConn{closed: make(chan struct{})}
	var err error
	if p.up.URL == "" {
		u.Connection, err = startCommand(&p.up, p.maxMessage, p.timeout, p.logger)
	} else {
		client := p.client
		client.Transport = &headerTransport{base: p.base, header: p.up.Header, version: &u.version, max: p.maxMessage}
		u.http = &client // no retries: they would hide an upstream that is gone
		t := &mcp.StreamableClientTransport{Endpoint: p.up.URL, HTTPClient: u.http, MaxRetries: -1, MaxEventSize: p.maxMessage}
		u.Connection, err = t.Connect(context.Background())
	}
	if err != nil {
		return nil, p.unavailable(err)
	}
	u.ctx, u.stop = context.WithCancel(ctx)
	return u, nil
}

// headerTransport sends the user's headers and the negotiated protocol
// version (go-sdk's connection learns it only from a client session).
type headerTransport struct {
	base    http.RoundTripper
	header  http.Header
	version *atomic.Pointer[string]
	max     int // the size limit of a JSON body
}

func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, vs := range t.header {
		req.Header.Del(k)
		for _, v := range vs {
			req.Header.Add(k, v)
		}
	}
	if v := t.version.Load(); v != nil && req.Header.Get(protocolVersionHeader) == "" {
		req.Header.Set(protocolVersionHeader, *v)
	}
	resp, err := t.base.RoundTrip(req)
	if err == nil { // go-sdk bounds an event (MaxEventSize), not a JSON body
		if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "application/json" {
			resp.Body = maxBody{http.MaxBytesReader(nil, resp.Body, int64(t.max)), t.max}
		}
	}
	return resp, err
}

// maxBody is a body of at most max bytes, whose error says which limit.
type maxBody struct {
	io.ReadCloser
	max int
}

func (b maxBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
		err = tooLarge(b.max)
	}
	return n, err
}

// unavailable returns the error of a request that cannot reach the upstream.
func (p *Proxy) unavailable(err error) error {
	return fmt.Errorf("%w: %s: %v", errUpstreamUnavailable, p.up.String(), err)
}

// tooLarge returns the error of a message above the size limit.
func tooLarge(limit int) error {
	return fmt.Errorf("%w of %d bytes (see Options.MaxMessageBytes)", errTooLarge, limit)
}

// listen reads the stream of an HTTP upstream's own messages (the GET
// stream before protocol 2026-07-28; go-sdk opens it only for a client
// session), again when the upstream closes it, until the connection ends,
// or until the upstream closed it three times in a row with no message and
// no event ID beyond the last.
func (r *relay) listen(u *upConn) {
	lastID := ""
	for quiet := 0; ; {
		if quiet == 3 {
			r.p.logger.Warn("upstream closed its stream of messages three times with nothing new; no longer listening", "upstream", r.p.up.String())
			return
		}
		req, _ := http.NewRequestWithContext(u.ctx, http.MethodGet, r.p.up.URL, nil) // the URL is valid
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", u.SessionID())
		if lastID != "" {
			req.Header.Set("Last-Event-ID", lastID)
		}
		resp, err := u.http.Do(req)
		if err != nil {
			return
		}
		mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		if resp.StatusCode != http.StatusOK || mt != "text/event-stream" {
			resp.Body.Close()
			return
		}
		before := lastID
		var fresh bool
		lastID, fresh = r.readEvents(u, resp.Body, lastID)
		resp.Body.Close()
		if quiet++; lastID != before || fresh {
			quiet = 0
		}
		select {
		case <-u.ctx.Done():
			return
		case <-time.After(r.p.listenRetry):
		}
	}
}

// readEvents passes the messages of a stream of server-sent events to the
// client, and returns the ID of the last event, and whether a message came
// (of a stream without event IDs, the only sign of one).
func (r *relay) readEvents(u *upConn, body io.Reader, lastID string) (string, bool) {
	br, data, event, fresh := bufio.NewReaderSize(body, 64<<10), []byte(nil), "", false
	for {
		line, err := readLine(br, r.p.maxMessage-len(data), nil)
		if err != nil {
			if errors.Is(err, errTooLarge) {
				r.p.logger.Warn("upstream event above the size limit; stream closed", "limit", r.p.maxMessage)
			}
			return lastID, fresh
		}
		line = bytes.TrimRight(line, "\r\n")
		name, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch {
		case len(line) == 0:
			if len(data) > 0 && (event == "" || event == "message") {
				if msg, err := jsonrpc.DecodeMessage(data); err == nil {
					fresh = true
					r.fromUpstream(u, msg)
				} else {
					r.p.logger.Warn("upstream event that is no JSON-RPC message; skipped", "data", preview(data), "err", err)
				}
			}
			data, event = data[:0], ""
		case string(name) == "data":
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, value...)
		case string(name) == "event":
			event = string(value)
		case string(name) == "id":
			lastID = string(value)
		}
	}
}
