package proxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/cleanup"
	"github.com/zircote/lro-go/lro"
)

// Defaults of [Options].
const (
	// DefaultName is the proxy's name in the handshakes with its client and
	// its upstream.
	DefaultName = "lro-proxy"
	// DefaultVersion is the proxy's version in the handshakes.
	DefaultVersion = "v0.1.0"
	// DefaultConnectTimeout bounds one attempt to connect to the upstream.
	DefaultConnectTimeout = 30 * time.Second
)

// listTimeout bounds one listing of the upstream's tools after a change.
const listTimeout = 30 * time.Second

// Errors of [New] and of calls.
var (
	// ErrInvalidUpstream is returned by New for an Upstream with neither or
	// both of URL and Command, or a malformed URL or header.
	ErrInvalidUpstream = errors.New("proxy: invalid upstream")
	// ErrUpstreamUnavailable is returned by New when the upstream cannot be
	// reached or does not complete the MCP handshake; the message names the
	// URL or command. A call made while the upstream is unavailable fails
	// with a tool error that says the same.
	ErrUpstreamUnavailable = errors.New("proxy: upstream unavailable")
)

// Options configure a [Proxy]. A nil *Options means the defaults of every
// field. Options are copied by New.
type Options struct {
	// LRO configures the offloading of every forwarded result: threshold,
	// output folder, TTL, per-tool overrides, observer. If nil, defaults to
	// the specification's defaults. Build it with [lro.LoadOptions] to read
	// the specification's TOML file and environment variables.
	LRO *lro.Options

	// Implementation is the proxy's name and version, sent to the client it
	// serves and to the upstream. If nil, defaults to [DefaultName] and
	// [DefaultVersion].
	Implementation *mcp.Implementation

	// Logger receives the proxy's own log: connections, reconnections,
	// tool list changes, tools that cannot be exposed. If nil, the log is
	// discarded.
	Logger *slog.Logger

	// ConnectTimeout bounds one attempt to connect to the upstream. If zero,
	// defaults to [DefaultConnectTimeout].
	ConnectTimeout time.Duration

	// RegisterLocalTools, if not nil, is called once by New with the proxy's
	// server, before any upstream tool is added, to register the tools the
	// proxy serves itself, such as the native extraction tools of package
	// lro/extract. An upstream tool with the name of a local tool is not
	// exposed. An error fails New.
	RegisterLocalTools func(s *mcp.Server) error

	// DisableJanitor keeps New from starting the janitor that deletes the
	// offloaded files whose TTL has passed (see [lro.StartJanitor]). If
	// false (the zero value), a janitor runs while offloading is enabled,
	// until Close.
	DisableJanitor bool
}

// A Proxy is an MCP server that re-exposes the tools of an upstream MCP
// server, forwards every call to it, and offloads large results to JSONL
// files on the proxy's machine, as [lro.Wrap] does. It identifies itself to
// the upstream as an LRO proxy (see [lro.ProxyKey]), so that an upstream
// built with package lro returns full results inline.
//
// A Proxy is safe for concurrent use. Call Close when done.
type Proxy struct {
	impl    *mcp.Implementation
	server  *mcp.Server
	link    *link
	lro     lro.Options
	logger  *slog.Logger
	local   map[string]bool // names of the local tools
	handler mcp.ToolHandler // forwards a call and offloads its result
	janitor *cleanup.Janitor

	toolsMu sync.Mutex
	tools   map[string][]byte // exposed upstream tools: name -> JSON of the upstream's definition
	retry   map[string]bool   // tools annotated read-only or idempotent

	refresh  chan struct{} // asks the refresher to list the upstream's tools again
	stop     chan struct{}
	done     chan struct{}
	closeErr error
	once     sync.Once

	progress      sync.Map // upstream progress token -> progressRoute
	progressCount atomic.Int64
}

// progressRoute is where progress of one forwarded call goes back to.
type progressRoute struct {
	session *mcp.ServerSession
	token   any // the client's progress token
}

// New connects to the upstream, lists its tools and returns a proxy serving
// them. It fails with [ErrInvalidUpstream] for a bad up, with
// [ErrUpstreamUnavailable] when the upstream cannot be reached (the error
// names its URL or command), and with an error wrapping
// [lro.ErrInvalidOption] for invalid opts.LRO. ctx bounds the connection and
// the first listing only.
func New(ctx context.Context, up Upstream, opts *Options) (*Proxy, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if err := up.validate(); err != nil {
		return nil, err
	}
	up.Header = up.Header.Clone()
	up.Command = append([]string(nil), up.Command...)
	if up.Env != nil {
		up.Env = append([]string{}, up.Env...)
	}
	if o.LRO != nil {
		l := *o.LRO
		o.LRO = &l
	} else {
		o.LRO = &lro.Options{}
	}
	if err := o.LRO.Validate(); err != nil {
		return nil, err
	}
	if o.ConnectTimeout < 0 {
		return nil, fmt.Errorf("proxy: Options.ConnectTimeout is %v: must not be negative", o.ConnectTimeout)
	}
	if o.ConnectTimeout == 0 {
		o.ConnectTimeout = DefaultConnectTimeout
	}
	impl := &mcp.Implementation{Name: DefaultName, Version: DefaultVersion}
	if o.Implementation != nil {
		i := *o.Implementation
		impl = &i
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}

	p := &Proxy{
		impl:    impl,
		lro:     *o.LRO,
		logger:  logger,
		local:   map[string]bool{},
		tools:   map[string][]byte{},
		retry:   map[string]bool{},
		refresh: make(chan struct{}, 1),
		stop:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	p.handler = p.offloading(lro.Wrap(p.forward, &p.lro))

	caps := &mcp.ClientCapabilities{}
	caps.AddExtension(lro.ProxyKey, lro.ProxySettings())
	client := mcp.NewClient(impl, &mcp.ClientOptions{
		Capabilities:                caps,
		ToolListChangedHandler:      func(context.Context, *mcp.ToolListChangedRequest) { p.askRefresh() },
		ProgressNotificationHandler: p.relayProgress,
	})
	p.link = &link{
		up:        &up,
		http:      up.httpClient(),
		client:    client,
		timeout:   o.ConnectTimeout,
		logf:      logger.Info,
		connected: func(*mcp.ClientSession) { p.askRefresh() },
	}
	cs, err := p.link.session(ctx)
	if err != nil {
		return nil, err
	}
	// The first connection's refresh request is served below, synchronously.
	select {
	case <-p.refresh:
	default:
	}
	logger.Info("upstream connected", "upstream", up.String(), "server", serverName(cs))

	instructions := ""
	if ir := cs.InitializeResult(); ir != nil {
		instructions = ir.Instructions
	}
	p.server = mcp.NewServer(impl, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       slog.New(warnings{logger.Handler()}), // the SDK logs every session at Info
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: true}},
	})
	p.server.AddReceivingMiddleware(lro.GuardNullArguments)
	if o.RegisterLocalTools != nil {
		if err := o.RegisterLocalTools(p.server); err != nil {
			p.link.close()
			return nil, fmt.Errorf("proxy: registering local tools: %w", err)
		}
		if p.local, err = toolNames(ctx, p.server); err != nil {
			p.link.close()
			return nil, fmt.Errorf("proxy: listing local tools: %w", err)
		}
	}
	if err := p.syncTools(ctx, cs); err != nil {
		p.link.close()
		return nil, fmt.Errorf("%w: %s: listing tools: %v", ErrUpstreamUnavailable, up.String(), err)
	}
	if !p.lro.Disabled && !o.DisableJanitor {
		if p.janitor, err = lro.StartJanitor(context.Background(), &p.lro); err != nil {
			p.link.close()
			return nil, err
		}
	}
	go p.refresher()
	return p, nil
}

// Server returns the proxy's MCP server, to serve on any transport, such as
// streamable HTTP with [mcp.NewStreamableHTTPHandler], or to add receiving
// middleware to.
func (p *Proxy) Server() *mcp.Server { return p.server }

// Run serves the proxy on t, for example &mcp.StdioTransport{}, until the
// client disconnects or ctx is canceled. It does not close the proxy.
//
// It is [mcp.Server.Run] without that method's log records, one of which,
// at level Error, would report every cancellation of ctx (such as the end
// of examples/proxy on a signal) as a failure.
func (p *Proxy) Run(ctx context.Context, t mcp.Transport) error {
	ss, err := p.server.Connect(ctx, t, nil)
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

// Close ends the session with the upstream (stopping its process, for a
// command) and the janitor. It is safe to call more than once.
func (p *Proxy) Close() error {
	p.once.Do(func() {
		close(p.stop)
		<-p.done
		p.closeErr = p.link.close()
		if p.janitor != nil {
			p.janitor.Close()
		}
	})
	return p.closeErr
}

// askRefresh asks the refresher to list the upstream's tools again; requests
// made while one is pending are merged.
func (p *Proxy) askRefresh() {
	select {
	case p.refresh <- struct{}{}:
	default:
	}
}

// refresher follows the upstream's tool list until Close.
func (p *Proxy) refresher() {
	defer close(p.done)
	for {
		select {
		case <-p.stop:
			return
		case <-p.refresh:
		}
		cs := p.link.current()
		if cs == nil {
			continue // the next connection asks again
		}
		ctx, cancel := context.WithTimeout(context.Background(), listTimeout)
		go func() {
			select {
			case <-p.stop:
				cancel()
			case <-ctx.Done():
			}
		}()
		if err := p.syncTools(ctx, cs); err != nil {
			p.logger.Warn("listing the upstream's tools failed", "upstream", p.link.up.String(), "err", err)
		}
		cancel()
	}
}

// forward is the handler of every upstream tool: it calls the tool upstream.
// Upstream tool errors (isError) pass through as they are, protocol errors
// as protocol errors; a call that does not reach the upstream becomes a
// tool error naming it.
func (p *Proxy) forward(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	meta := p.forwardMeta(ctx, req)
	// The client writes its own _meta into the params of a call, so every
	// attempt gets new ones.
	params := func() *mcp.CallToolParams {
		m := make(mcp.Meta, len(meta))
		for k, v := range meta {
			m[k] = v
		}
		ps := &mcp.CallToolParams{Name: req.Params.Name, Meta: m}
		if args := req.Params.Arguments; len(args) > 0 {
			ps.Arguments = args
		}
		return ps
	}
	res, err := p.call(ctx, params())
	// A failed connection is not tried again at once; a broken session may be.
	if err != nil && !errors.Is(err, ErrUpstreamUnavailable) && upstreamError(err) == nil && ctx.Err() == nil && p.retryable(req.Params.Name, err) {
		res, err = p.call(ctx, params())
	}
	if err != nil {
		if werr := upstreamError(err); werr != nil {
			return nil, werr
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return unavailable(p.link.up, err), nil
	}
	stripSDKMeta(res.Meta)
	return res, nil
}

// call makes one call on the current session, connecting first if needed.
func (p *Proxy) call(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	cs, err := p.link.session(ctx)
	if err != nil {
		return nil, err
	}
	if ir := cs.InitializeResult(); ir != nil && ir.ProtocolVersion >= protocol20260728 {
		// This protocol sends clientInfo with every request, in _meta: there
		// the specification's own carrier, clientInfo.proxy, fits.
		params.Meta[mcp.MetaKeyClientInfo] = map[string]any{"name": p.impl.Name, "version": p.impl.Version, "proxy": true}
	}
	ctx, raw := withCapture(ctx)
	res, err := cs.CallTool(ctx, params)
	if err != nil {
		if upstreamError(err) == nil && ctx.Err() == nil {
			// The session is broken (or the upstream is gone): the next call
			// connects again.
			if p.link.drop(cs) {
				p.logger.Warn("upstream call failed; reconnecting on the next call", "upstream", p.link.up.String(), "tool", params.Name, "err", err)
			}
		}
		return nil, err
	}
	if sc := raw.structured(); sc != nil {
		res.StructuredContent = sc
	}
	return res, nil
}

// retryable reports whether a call that failed with err, a failure to reach
// the upstream, is made again, once, on a new connection: when the upstream
// cannot have seen it (it no longer knows the session), or when the tool is
// annotated read-only or idempotent, so that seeing it twice does no harm.
func (p *Proxy) retryable(tool string, err error) bool {
	if errors.Is(err, mcp.ErrSessionMissing) {
		return true
	}
	p.toolsMu.Lock()
	defer p.toolsMu.Unlock()
	return p.retry[tool]
}

// The SDK's own JSON-RPC errors for a message that never reached the peer
// or got no answer: the transport rejected it, or the connection is closing.
// They are not errors of the upstream.
const (
	codeClientClosing = -32003
	codeServerClosing = -32004
	codeRejected      = -32005
)

// upstreamError returns the JSON-RPC error the upstream answered a call
// with, or nil when err is a failure to reach it.
func upstreamError(err error) *jsonrpc.Error {
	var werr *jsonrpc.Error
	if !errors.As(err, &werr) || errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, mcp.ErrSessionMissing) {
		return nil
	}
	switch werr.Code {
	case codeClientClosing, codeServerClosing, codeRejected:
		return nil
	}
	return werr
}

// unavailable is the tool error of a call that did not reach the upstream.
func unavailable(up *Upstream, err error) *mcp.CallToolResult {
	msg := err.Error()
	if !errors.Is(err, ErrUpstreamUnavailable) {
		msg = fmt.Sprintf("%v: %s: %v", ErrUpstreamUnavailable, up, err)
	}
	return &mcp.CallToolResult{
		IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: "lro proxy: the call did not complete: " +
			strings.TrimPrefix(msg, "proxy: ") +
			". The proxy connects again on the next call; retry when the upstream server is back."}},
	}
}

// forwardMeta returns the _meta sent upstream with a call: the client's,
// without the SDK's own keys (the SDK sets its own), with the proxy's mark,
// and with a progress token of the proxy's own that leads back to the
// client's.
func (p *Proxy) forwardMeta(ctx context.Context, req *mcp.CallToolRequest) mcp.Meta {
	m := mcp.Meta{}
	for k, v := range req.Params.Meta {
		if !isSDKKey(k) && k != progressTokenKey {
			m[k] = v
		}
	}
	m[lro.ProxyKey] = lro.ProxySettings()
	if token := req.Params.GetProgressToken(); token != nil && req.Session != nil {
		if st := stateFrom(ctx); st != nil {
			up := fmt.Sprintf("lro-proxy-%d", p.progressCount.Add(1))
			p.progress.Store(up, progressRoute{session: req.Session, token: token})
			st.progressToken = up // the route is removed when the call returns
			m[progressTokenKey] = up
		}
	}
	return m
}

const progressTokenKey = "progressToken"

// protocol20260728 is the first protocol version that carries clientInfo in
// the _meta of every request.
const protocol20260728 = "2026-07-28"

// progressGrace is how long the progress notifications of a call are still
// relayed after the call returned.
const progressGrace = 5 * time.Second

// relayProgress hands a progress notification of the upstream to the client
// whose call it belongs to, with the client's own token.
func (p *Proxy) relayProgress(ctx context.Context, req *mcp.ProgressNotificationClientRequest) {
	if req.Params == nil {
		return
	}
	v, ok := p.progress.Load(req.Params.ProgressToken)
	if !ok {
		return
	}
	route := v.(progressRoute)
	params := *req.Params
	params.ProgressToken = route.token
	params.Meta = nil
	if err := route.session.NotifyProgress(ctx, &params); err != nil {
		p.logger.Debug("relaying progress failed", "err", err)
	}
}

// isSDKKey reports whether a _meta key belongs to the protocol itself, which
// the SDK sets on each hop.
func isSDKKey(k string) bool { return strings.HasPrefix(k, "io.modelcontextprotocol/") }

// stripSDKMeta deletes the protocol's own keys from a result's _meta, such as
// the upstream's serverInfo, which would otherwise pass for the proxy's.
func stripSDKMeta(m mcp.Meta) {
	for k := range m {
		if isSDKKey(k) {
			delete(m, k)
		}
	}
}

// offloading is the handler the client calls: wrapped forwards and
// offloads, as lro offloads any tool's result.
func (p *Proxy) offloading(wrapped mcp.ToolHandler) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		st := &callState{}
		res, err := wrapped(context.WithValue(ctx, stateKey{}, st), req)
		if token := st.progressToken; token != "" {
			// The client may handle the upstream's last notifications after
			// the result: keep their route a little longer.
			time.AfterFunc(progressGrace, func() { p.progress.Delete(token) })
		}
		return res, err
	}
}

type stateKey struct{}

// callState is what the forwarding handler leaves for the outer handler of
// one call.
type callState struct {
	progressToken string // the upstream progress token, to forget
}

func stateFrom(ctx context.Context) *callState {
	st, _ := ctx.Value(stateKey{}).(*callState)
	return st
}

func serverName(cs *mcp.ClientSession) string {
	if ir := cs.InitializeResult(); ir != nil && ir.ServerInfo != nil {
		return ir.ServerInfo.Name + " " + ir.ServerInfo.Version
	}
	return ""
}

// toolNames lists the tools of s through an in-memory session.
func toolNames(ctx context.Context, s *mcp.Server) (map[string]bool, error) {
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		return nil, err
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: DefaultName, Version: DefaultVersion}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return nil, err
	}
	defer cs.Close()
	names := map[string]bool{}
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		names[t.Name] = true
	}
	return names, nil
}

// warnings passes on the records of a handler at level Warn and above.
type warnings struct{ slog.Handler }

func (w warnings) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelWarn && w.Handler.Enabled(ctx, l)
}

func (w warnings) WithAttrs(attrs []slog.Attr) slog.Handler {
	return warnings{w.Handler.WithAttrs(attrs)}
}

func (w warnings) WithGroup(name string) slog.Handler { return warnings{w.Handler.WithGroup(name)} }
