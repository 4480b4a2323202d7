package proxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Upstream says how the proxy reaches the server it fronts: a streamable
// HTTP endpoint (URL) or a command that serves MCP over stdio (Command).
// Exactly one of the two is set.
type Upstream struct {
	// URL is the streamable HTTP endpoint of the upstream server, such as
	// http://localhost:8080/mcp.
	URL string

	// Header holds HTTP headers sent with every request to URL, such as
	// Authorization. They replace headers of the same name the SDK sets.
	Header http.Header

	// HTTPClient sends the requests to URL. If nil, defaults to a client of
	// the proxy's own, with the settings of [http.DefaultTransport] except
	// that it keeps up to 32 idle connections to the upstream, for calls
	// made in parallel.
	HTTPClient *http.Client

	// Command is the program and arguments of an upstream server that serves
	// MCP over stdio, such as {"npx", "-y", "@modelcontextprotocol/server-everything"}.
	// The program is started when the proxy connects, and started again when
	// it has exited and a call needs it.
	Command []string

	// Env is the environment of Command, in the form of [exec.Cmd.Env]. If
	// nil, the command gets the proxy's environment.
	Env []string

	// Dir is the working folder of Command. If empty, the proxy's.
	Dir string

	// Stderr receives the standard error of Command. If nil, it is
	// discarded.
	Stderr io.Writer
}

// String names the upstream in logs and errors: the URL without its
// password, or the command line.
func (u *Upstream) String() string {
	if u.URL != "" {
		if p, err := url.Parse(u.URL); err == nil {
			return p.Redacted()
		}
		return u.URL
	}
	parts := make([]string, len(u.Command))
	for i, a := range u.Command {
		if a == "" || strings.ContainsAny(a, " \t\n\"'\\$") {
			a = strconv.Quote(a)
		}
		parts[i] = a
	}
	return "command " + strings.Join(parts, " ")
}

// validate reports a missing, doubled or malformed upstream.
func (u *Upstream) validate() error {
	switch {
	case u.URL == "" && len(u.Command) == 0:
		return fmt.Errorf("%w: neither a URL nor a command is set", ErrInvalidUpstream)
	case u.URL != "" && len(u.Command) > 0:
		return fmt.Errorf("%w: both a URL (%s) and a command (%s) are set", ErrInvalidUpstream, u.URL, strings.Join(u.Command, " "))
	case len(u.Command) > 0 && u.Command[0] == "":
		return fmt.Errorf("%w: the command's program is empty", ErrInvalidUpstream)
	case u.URL != "":
		p, err := url.Parse(u.URL)
		if err != nil {
			return fmt.Errorf("%w: URL %q: %v", ErrInvalidUpstream, u.URL, err)
		}
		if (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
			return fmt.Errorf("%w: URL %q: want an absolute http or https URL, such as http://localhost:8080/mcp", ErrInvalidUpstream, u.URL)
		}
		for k := range u.Header {
			if k == "" || strings.ContainsAny(k, " :\r\n") {
				return fmt.Errorf("%w: header name %q", ErrInvalidUpstream, k)
			}
		}
	}
	return nil
}

// maxMessage is the size of the largest message the proxy reads from an
// HTTP upstream: large results are what it is for. (The SDK's default is
// 16 MiB, which remains the limit for a stdio upstream.)
const maxMessage = 256 << 20

// maxIdleConns is how many idle connections to an HTTP upstream the
// default client keeps.
const maxIdleConns = 32

// httpClient returns the client of the proxy's requests to URL: up's
// HTTPClient, or the default, with a transport that adds up's headers and
// captures raw results.
func (u *Upstream) httpClient() *http.Client {
	client := &http.Client{}
	var base http.RoundTripper
	if u.HTTPClient != nil {
		c := *u.HTTPClient
		client = &c
		base = c.Transport
	}
	if base == nil {
		if dt, ok := http.DefaultTransport.(*http.Transport); ok && u.HTTPClient == nil {
			t := dt.Clone()
			t.MaxIdleConns = maxIdleConns
			t.MaxIdleConnsPerHost = maxIdleConns
			base = t
		} else {
			base = http.DefaultTransport
		}
	}
	client.Transport = &headerTransport{base: base, header: u.Header}
	return client
}

// transport returns a new transport to the upstream: a fresh process for a
// command. client is the HTTP client for a URL.
func (u *Upstream) transport(client *http.Client) mcp.Transport {
	if u.URL != "" {
		// Retries of the SDK would hide an upstream that is gone; the proxy
		// reconnects on its own.
		return &mcp.StreamableClientTransport{Endpoint: u.URL, HTTPClient: client, MaxRetries: -1, MaxEventSize: maxMessage}
	}
	cmd := exec.Command(u.Command[0], u.Command[1:]...)
	cmd.Env = u.Env
	cmd.Dir = u.Dir
	cmd.Stderr = u.Stderr
	return captureTransport{&mcp.CommandTransport{Command: cmd}}
}

// link holds the session with the upstream and replaces it when it breaks.
// It is safe for concurrent use.
type link struct {
	up      *Upstream
	http    *http.Client // for a URL
	client  *mcp.Client
	timeout time.Duration
	// connected is called after every successful connection, the first
	// included, outside of mu.
	connected func(cs *mcp.ClientSession)
	logf      func(msg string, args ...any)

	mu     sync.Mutex
	cs     *mcp.ClientSession // nil while disconnected
	closed bool
}

// session returns the current session, connecting first if there is none.
func (l *link) session(ctx context.Context) (*mcp.ClientSession, error) {
	l.mu.Lock()
	if l.closed {
		l.mu.Unlock()
		return nil, errClosed
	}
	if cs := l.cs; cs != nil {
		l.mu.Unlock()
		return cs, nil
	}
	cs, err := l.connect(ctx)
	if err != nil {
		l.mu.Unlock()
		return nil, err
	}
	l.cs = cs
	l.mu.Unlock()
	go l.watch(cs)
	if l.connected != nil {
		l.connected(cs)
	}
	return cs, nil
}

// current returns the current session, or nil while disconnected.
func (l *link) current() *mcp.ClientSession {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cs
}

// connect makes one attempt, bounded by the link's timeout. It is called
// with mu held, so concurrent calls wait for one attempt.
func (l *link) connect(ctx context.Context) (*mcp.ClientSession, error) {
	ctx, cancel := context.WithTimeout(ctx, l.timeout)
	defer cancel()
	cs, err := l.client.Connect(ctx, l.up.transport(l.http), nil)
	if err != nil {
		if ctx.Err() != nil && errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("no answer within %v", l.timeout)
		}
		return nil, fmt.Errorf("%w: %s: %v", ErrUpstreamUnavailable, l.up, err)
	}
	return cs, nil
}

// watch forgets cs when its connection ends (a stdio upstream that exited),
// so that the next call connects again.
func (l *link) watch(cs *mcp.ClientSession) {
	err := cs.Wait()
	if l.drop(cs) {
		l.logf("upstream disconnected", "upstream", l.up.String(), "err", err)
	}
}

// drop forgets cs if it is the current session, and closes it. It reports
// whether cs was current.
func (l *link) drop(cs *mcp.ClientSession) bool {
	l.mu.Lock()
	current := l.cs == cs
	if current {
		l.cs = nil
	}
	l.mu.Unlock()
	if current {
		// Closing a command's session waits for the process to exit.
		go cs.Close()
	}
	return current
}

// close ends the session for good.
func (l *link) close() error {
	l.mu.Lock()
	l.closed = true
	cs := l.cs
	l.cs = nil
	l.mu.Unlock()
	if cs != nil {
		return cs.Close()
	}
	return nil
}

var errClosed = errors.New("proxy: closed")
