package main

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// drainGrace is how long, once the client's input ended, the server keeps
// answering the requests it read before it stops.
const drainGrace = time.Minute

// drainingTransport is a transport whose connection, once the client's
// input ends, reports that end only after every request read from it is
// answered (or after grace, or when the connection is closed): go-sdk
// v1.8.0 cancels the requests in flight and writes no answer once Read
// fails, so a client that writes its requests and closes its input, as
// printf ... | memory does, got no answer at all.
type drainingTransport struct {
	mcp.Transport
	grace  time.Duration
	logger *slog.Logger
}

// Connect connects t's transport, and wraps its connection.
func (t *drainingTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &drainingConn{Connection: c, grace: t.grace, logger: t.logger, settled: make(chan struct{}, 1), closed: make(chan struct{})}, nil
}

// drainingConn is the connection of a [drainingTransport].
type drainingConn struct {
	mcp.Connection
	grace  time.Duration
	logger *slog.Logger

	mu       sync.Mutex
	calls    int // requests with an id read
	answered int // responses written (or that failed to be): one to each, duplicates and all

	settled   chan struct{} // signaled when answered grows
	closed    chan struct{} // closed by Close
	closeOnce sync.Once
}

// Read reads the next message; once the input ends, it returns that end
// only after the requests read are answered.
func (c *drainingConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		c.drain(ctx)
		return msg, err
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		c.mu.Lock()
		c.calls++
		c.mu.Unlock()
	}
	return msg, nil
}

// Write writes msg, counting the answers.
func (c *drainingConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	err := c.Connection.Write(ctx, msg)
	if _, ok := msg.(*jsonrpc.Response); ok {
		c.mu.Lock()
		c.answered++
		c.mu.Unlock()
		select {
		case c.settled <- struct{}{}:
		default:
		}
	}
	return err
}

// Close closes the connection, and ends a wait in Read.
func (c *drainingConn) Close() error {
	c.closeOnce.Do(func() { close(c.closed) })
	return c.Connection.Close()
}

// drain waits until every request read is answered, at most c.grace, or
// until ctx is done or the connection closed.
func (c *drainingConn) drain(ctx context.Context) {
	grace := time.NewTimer(c.grace)
	defer grace.Stop()
	for {
		c.mu.Lock()
		left := c.calls - c.answered
		c.mu.Unlock()
		if left <= 0 {
			return
		}
		select {
		case <-c.settled:
		case <-grace.C:
			c.logger.Warn("the client closed its input; the grace period is over, stopped waiting for answers", "grace", c.grace, "unanswered", left)
			return
		case <-c.closed:
			return
		case <-ctx.Done():
			return
		}
	}
}
