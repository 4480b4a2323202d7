package proxy

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro"
)

const (
	defaultConnectTimeout  = 30 * time.Second
	defaultMaxMessageBytes = 256 << 20
	drainGrace             = time.Minute  // Run's wait for answers, beyond ConnectTimeout, once the client's input ended
	stopGrace              = time.Second  // Close's wait after each step of a command's shutdown
	listenRetry            = time.Second  // the wait before an HTTP upstream's stream is opened again
	protocol20260728       = "2026-07-28" // the first protocol without the standalone stream of server messages
	collectAbove           = 16 << 20     // the size of a line above which readLine collects its garbage
	maxScanned             = 256          // what a replyScan keeps of a name or a value
	stallPiece             = 64 << 10     // the size of a stallWriter's piece: a pipe's buffer
	protocolVersionHeader  = "Mcp-Protocol-Version"
)

// errInvalidUpstream is wrapped by the error of [New] for an Upstream with
// neither or both of URL and Cmd, or a malformed URL or header.
var errInvalidUpstream = errors.New("proxy: invalid upstream")

var (
	errUpstreamUnavailable = errors.New("proxy: upstream unavailable")
	errTooLarge            = errors.New("proxy: message above the size limit")
	errBadReply            = errors.New("the upstream's reply could not be read") // no valid message, or too large
	errStalled             = errors.New("the command read nothing of a message")
	errHeldOpen            = errors.New("the command exited, and a process it started keeps its stdout open")
	errEnded               = errors.New("the connection ended")
)

// Options configure a [Proxy]. A nil *Options means the defaults of every
// field. Options are copied by New.
type Options struct {
	// LRO configures the offloading of tool results ([lro.LoadOptions]
	// reads them). If nil, defaults to the specification's defaults.
	LRO *lro.Options

	// Logger receives the proxy's own log. If nil, it is discarded.
	Logger *slog.Logger

	// ConnectTimeout bounds each wait on the upstream: an attempt to connect
	// again (the replayed initialize included), the first message of a new
	// connection, a write to a command's stdin of which no byte is read, and
	// an HTTP upstream's answer to the POST of a notification or of the
	// client's answer to its request; the connection is broken when one is
	// over (docs/proxy.md tells what fails). If zero, defaults to 30
	// seconds.
	ConnectTimeout time.Duration

	// MaxMessageBytes bounds one message read from the upstream: a line, a
	// server-sent event or a JSON response. A larger reply to a call
	// answers that call with an error saying so. If zero, defaults to
	// 256 MiB.
	MaxMessageBytes int

	// RegisterLocalTools, if not nil, is called once by New with a server of
	// the proxy's own, to register the tools the proxy serves itself, such
	// as the extraction tools of package lro/extract; they hide the
	// upstream's tools of the same names. An error fails New.
	RegisterLocalTools func(s *mcp.Server) error
}

// A Proxy relays MCP between clients and an upstream MCP server, and
// offloads large tool results to JSONL files on the proxy's machine, as
// [lro.Wrap] does. A Proxy is safe for concurrent use. Call Close when
// done.
type Proxy struct {
	up          Upstream
	lro         lro.Options
	logger      *slog.Logger
	timeout     time.Duration
	grace       time.Duration // how long Run waits for answers after the client's input ended
	listenRetry time.Duration // the wait before an HTTP upstream's stream is opened again
	maxMessage  int
	offloader   func(context.Context, *mcp.CallToolRequest, *mcp.CallToolResult) bool
	client      http.Client // for a URL: the user's client, or a zero one
	base        http.RoundTripper

	local      *mcp.ClientSession // to the server of the local tools; nil for none
	localEnd   *mcp.ServerSession // the server's end of local
	localTools [][]byte           // their definitions, as tools/list lists them
	localNames map[string]bool
}

// New returns a proxy in front of up. It fails with an error that names
// the problem for a bad up (neither or both of URL and Cmd, a malformed URL
// or header), and with an error wrapping [lro.ErrInvalidOption] for
// invalid opts.LRO. It does not connect: each session of [Proxy.Run]
// connects when its client's first request arrives.
func New(up Upstream, opts *Options) (*Proxy, error) {
	o := cmp.Or(opts, &Options{})
	if err := up.validate(); err != nil {
		return nil, err
	}
	up.Header = up.Header.Clone()
	if up.Cmd != nil {
		up.Cmd = up.command()
	}
	lo := *cmp.Or(o.LRO, &lro.Options{})
	switch err := lo.Validate(); {
	case err != nil:
		return nil, err
	case lo.Store != nil:
		return nil, fmt.Errorf("proxy: Options.LRO.Store is set: the proxy writes offloaded results to a folder on the client's machine (OutputDir), not to a store: %w", lro.ErrInvalidOption)
	case o.ConnectTimeout < 0:
		return nil, fmt.Errorf("proxy: Options.ConnectTimeout is %v: must not be negative", o.ConnectTimeout)
	case o.MaxMessageBytes < 0:
		return nil, fmt.Errorf("proxy: Options.MaxMessageBytes is %d: must not be negative", o.MaxMessageBytes)
	}
	timeout := cmp.Or(o.ConnectTimeout, defaultConnectTimeout)
	p := &Proxy{up: up, lro: lo, logger: cmp.Or(o.Logger, slog.New(slog.DiscardHandler)), timeout: timeout, grace: timeout + drainGrace,
		maxMessage: cmp.Or(o.MaxMessageBytes, defaultMaxMessageBytes), offloader: offloader(&lo), listenRetry: listenRetry}
	p.client, p.base = up.baseClient()
	if o.RegisterLocalTools != nil {
		if err := p.startLocal(o.RegisterLocalTools); err != nil {
			p.Close()
			return nil, err
		}
	}
	return p, nil
}

// startLocal serves the local tools on an in-memory session and lists them.
func (p *Proxy) startLocal(register func(*mcp.Server) error) error {
	impl := &mcp.Implementation{Name: "lro-proxy", Version: "local"}
	s := mcp.NewServer(impl, nil)
	if err := register(s); err != nil {
		return fmt.Errorf("proxy: registering local tools: %w", err)
	}
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	var err error
	if p.localEnd, err = s.Connect(ctx, st, nil); err != nil {
		return err
	}
	if p.local, err = mcp.NewClient(impl, nil).Connect(ctx, ct, nil); err != nil {
		return err
	}
	p.localNames = map[string]bool{}
	for t, err := range p.local.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("proxy: listing local tools: %w", err)
		}
		data, _ := json.Marshal(t) // a tool decoded from JSON
		p.localTools = append(p.localTools, data)
		p.localNames[t.Name] = true
	}
	return nil
}

// Run relays one client session, on t (for example &mcp.StdioTransport{}),
// to a connection of its own to the upstream, until the client disconnects
// or ctx is canceled, then closes that connection (stopping a command's
// process). Once the client's input ends, it first answers the requests it
// read, waiting at most ConnectTimeout plus one minute. It returns nil when
// the client disconnected, and ctx's error when ctx ended the session.
func (p *Proxy) Run(ctx context.Context, t mcp.Transport) error {
	conn, err := t.Connect(ctx)
	if err != nil {
		return err
	}
	switch t := t.(type) { // over a stream, the relay writes the messages itself (writeMessage)
	case *mcp.StdioTransport:
		conn = &lineConn{Connection: conn, w: os.Stdout}
	case *mcp.IOTransport:
		conn = &lineConn{Connection: conn, w: t.Writer}
	}
	return (&relay{p: p, client: conn}).run(ctx)
}

// Close stops the local tools' server, once their calls in flight have
// returned. Sessions of Run end with their clients or contexts (and cancel
// their local calls). It is safe to call more than once.
func (p *Proxy) Close() error {
	if p.local != nil {
		p.local.Close()
		p.localEnd.Close() // waits for the local calls in flight
	}
	return nil
}

// resultKey is the context key of the result that offloader's handler
// returns.
type resultKey struct{}

// offloader returns the offloading of a result the proxy read, with opts:
// [lro.Wrap] around a handler that returns that result. The returned
// function offloads res, the result of the call req, in place, and reports
// whether it changed res: lro then puts a new first content item there, the
// descriptor or a fallback's text, and the descriptor (a [json.RawMessage]
// or nil) in its structured content.
func offloader(opts *lro.Options) func(context.Context, *mcp.CallToolRequest, *mcp.CallToolResult) bool {
	h := lro.Wrap(func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return ctx.Value(resultKey{}).(*mcp.CallToolResult), nil
	}, opts)
	return func(ctx context.Context, req *mcp.CallToolRequest, res *mcp.CallToolResult) bool {
		if res == nil {
			return false
		}
		before := res.Content
		h(context.WithValue(ctx, resultKey{}, res), req) // no error: the handler returns none
		return len(res.Content) > 0 && (len(before) == 0 || res.Content[0] != before[0])
	}
}
