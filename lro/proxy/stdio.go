package proxy

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
	"os"
	"os/exec"
	"runtime/debug"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/zircote/lro-go/internal/rawjson"
)

// cmdConn is the connection to an upstream command that serves MCP over
// stdio: go-sdk's CommandTransport, but that a line that is no message is
// logged and skipped, a message may be up to max bytes, and writes are
// bounded.
type cmdConn struct {
	cmd    *exec.Cmd
	stdin  *os.File // the pipe the command reads, written with deadlines
	stdout *bufio.Reader
	out    *os.File // the pipe stdout reads
	max    int
	stall  time.Duration // how long a write may wait for the command to read
	logger *slog.Logger
	exited chan struct{}

	queue []jsonrpc.Message // the messages of a batch not yet read

	wmu  sync.Mutex // one message at a time
	werr error      // a message was cut short: no more writes
	once sync.Once
	err  error // of Close
}

func startCommand(up *Upstream, max int, stall time.Duration, logger *slog.Logger) (*cmdConn, error) {
	cmd := up.command()
	// Not cmd.StdinPipe, whose writes take no deadline, nor cmd.StdoutPipe,
	// which Wait closes before what the command wrote last is read.
	in, stdin, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	stdout, w, err := os.Pipe()
	if err != nil {
		in.Close()
		stdin.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = in, w
	err = cmd.Start()
	in.Close()
	w.Close()
	if err != nil {
		stdin.Close()
		stdout.Close()
		return nil, err
	}
	c := &cmdConn{cmd: cmd, stdin: stdin, stdout: bufio.NewReaderSize(stdout, 64<<10), out: stdout, max: max, stall: stall, logger: logger, exited: make(chan struct{})}
	go func() {
		cmd.Wait()
		stdout.SetReadDeadline(time.Now().Add(stopGrace)) // for a Read under way
		close(c.exited)
	}()
	return c, nil
}

// Read returns the next JSON-RPC message of the command's stdout, those of
// a batch (a line that is an array of messages) one by one. A line that is
// no message, or is above the size limit, is skipped, but for a reply whose
// id can be found, which becomes an error reply. Once the command has
// exited, each message waits at most stopGrace: a process it started cannot
// keep the connection open.
func (c *cmdConn) Read(context.Context) (jsonrpc.Message, error) {
	for {
		if len(c.queue) > 0 {
			msg := c.queue[0]
			c.queue[0], c.queue = nil, c.queue[1:]
			return msg, nil
		}
		select {
		case <-c.exited:
			c.out.SetReadDeadline(time.Now().Add(stopGrace))
		default:
		}
		var scan replyScan
		line, err := readLine(c.stdout, c.max, &scan)
		line = bytes.TrimSpace(line)
		switch {
		case errors.Is(err, errTooLarge):
			err = fmt.Errorf("it is above the size limit of %d bytes (Options.MaxMessageBytes)", c.max)
		case errors.Is(err, os.ErrDeadlineExceeded):
			return nil, errHeldOpen
		case err != nil:
			return nil, err
		case len(line) == 0:
			continue
		case line[0] == '[':
			if c.queue, err = decodeBatch(line); err == nil {
				continue
			}
			scan.write(line)
		default:
			var msg jsonrpc.Message
			if msg, err = decodeMessage(line); err == nil {
				return msg, nil
			}
			scan.write(line)
		}
		if resp := scan.reply(err); resp != nil {
			return resp, nil
		}
		c.logger.Warn("upstream wrote a line that is too large or no JSON-RPC message; skipped", "line", preview(line), "err", err)
	}
}

// readLine reads one line of br, of up to limit bytes, into a slice of its
// own. A line above the limit is read to its end through scan (if not nil)
// and dropped, with an error wrapping [errTooLarge].
func readLine(br *bufio.Reader, limit int, scan *replyScan) ([]byte, error) {
	var chunks [][]byte
	n := 0
	for {
		chunk, err := br.ReadSlice('\n')
		n += len(chunk)
		if n > limit {
			if scan == nil {
				return nil, tooLarge(limit)
			}
			for _, c := range chunks {
				scan.write(c)
			}
			chunks = nil
			for scan.write(chunk); err == bufio.ErrBufferFull; scan.write(chunk) {
				chunk, err = br.ReadSlice('\n')
			}
			if err != nil && err != io.EOF {
				return nil, err
			}
			return nil, tooLarge(limit)
		}
		chunks = append(chunks, bytes.Clone(chunk))
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil && (err != io.EOF || n == 0) {
			return nil, err
		}
		if len(chunks) == 1 {
			return chunks[0], nil
		}
		line := bytes.Join(chunks, nil)
		if n >= collectAbove { // the chunks would live on beside the offload's copies
			chunks = nil
			debug.FreeOSMemory()
		}
		return line, nil
	}
}

// A replyScan finds, in a line that is no valid message, the id member at
// its top level, and whether a method member there makes it a request. It
// reads the line in pieces and counts brackets outside strings, so it has
// no depth limit; it checks nothing else.
type replyScan struct {
	depth, deepest int
	inString, esc  bool
	cur            []byte // the top-level name or value being read, up to maxScanned+1 bytes
	name           string // of the member whose value is being read
	inValue        bool   // past the member's colon
	id             []byte // the id as written
	method         bool
}

func (s *replyScan) write(p []byte) {
	for _, c := range p {
		switch {
		case s.inString:
			switch {
			case s.esc:
				s.esc = false
			case c == '\\':
				s.esc = true
			case c == '"':
				s.inString = false
			}
		case c == '"':
			s.inString = true
		case c == '{' || c == '[':
			s.depth++
			s.deepest = max(s.deepest, s.depth)
			if s.depth == 1 {
				continue
			}
		case s.depth == 1 && c == ':' && !s.inValue:
			s.inValue = true
			if len(s.cur) <= maxScanned {
				s.name = rawjson.Unquote(bytes.TrimSpace(s.cur))
				s.method = s.method || s.name == "method"
			}
			s.cur = s.cur[:0]
			continue
		case s.depth == 1 && (c == ',' || c == '}'):
			s.endMember()
			if c == '}' {
				s.depth--
			}
			continue
		case c == '}' || c == ']':
			s.depth--
		}
		if s.depth >= 1 && len(s.cur) <= maxScanned {
			s.cur = append(s.cur, c)
		}
	}
}

func (s *replyScan) endMember() {
	if s.name == "id" && len(s.cur) <= maxScanned {
		s.id = bytes.Clone(s.cur)
	}
	s.name, s.inValue, s.cur = "", false, s.cur[:0]
}

// reply returns the reply the line would have been, with an error saying
// why it is not, or nil when the line is no reply or has no id.
func (s *replyScan) reply(err error) *jsonrpc.Response {
	s.endMember() // cut short after the id
	if s.method || s.id == nil {
		return nil
	}
	var raw any
	v := jsontext.Value(bytes.TrimSpace(s.id))
	if k := v.Kind(); (k != '"' && k != '0') || json.Unmarshal(v, &raw) != nil {
		return nil
	}
	id, idErr := jsonrpc.MakeID(raw)
	if idErr != nil || !id.IsValid() {
		return nil
	}
	if s.deepest > rawjson.MaxDepth {
		err = fmt.Errorf("it is nested more than %d levels deep, the limit of the proxy's JSON decoder", rawjson.MaxDepth)
	} else if se := (*jsontext.SyntacticError)(nil); errors.As(err, &se) { // without its JSON pointer, which may be long
		err = fmt.Errorf("it is no valid JSON: %v after byte %d", se.Err, se.ByteOffset)
	}
	return &jsonrpc.Response{ID: id, Error: fmt.Errorf("%w: %w", errBadReply, err)}
}

// Write sends msg as one line. It fails when the command reads none of it
// for c.stall, or by ctx's deadline; a message cut short breaks the
// connection: every later Write fails.
func (c *cmdConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.werr != nil {
		return c.werr
	}
	w := &stallWriter{f: c.stdin, stall: c.stall}
	w.deadline, w.ctxBound = ctx.Deadline()
	err := writeMessage(w, msg)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		why := fmt.Sprintf("for %v (Options.ConnectTimeout, lro-proxy -connect-timeout)", c.stall)
		if w.byCtx {
			why = "within the request's time limit"
		}
		err = fmt.Errorf("%w %s", errStalled, why)
		if w.n > 0 {
			c.werr = err
		}
	}
	return err
}

// A stallWriter writes to a pipe in pieces, each allowed stall, and none
// past deadline if ctxBound.
type stallWriter struct {
	f        *os.File
	stall    time.Duration
	deadline time.Time
	ctxBound bool
	byCtx    bool // the deadline that passed was the context's
	n        int  // bytes written
}

func (w *stallWriter) Write(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		d := time.Now().Add(w.stall)
		if w.byCtx = w.ctxBound && w.deadline.Before(d); w.byCtx {
			d = w.deadline
		}
		if err := w.f.SetWriteDeadline(d); err != nil && !errors.Is(err, os.ErrNoDeadline) {
			return n, err // where pipes take no deadline (Windows), writes are not bounded
		}
		m, err := w.f.Write(p[n:min(len(p), n+stallPiece)])
		n += m
		w.n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// writeMessage writes msg to w as one line. A result, valid JSON, is
// written from its own bytes, where go-sdk's encoder would copy it; one
// with a newline (from a server-sent event) is compacted first.
func writeMessage(w io.Writer, msg jsonrpc.Message) error {
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.Error == nil && len(resp.Result) > 0 {
		result := jsontext.Value(resp.Result)
		if bytes.IndexByte(result, '\n') >= 0 {
			result = bytes.Clone(result)
			if err := result.Compact(); err != nil {
				return err
			}
		}
		head := append(appendID([]byte(`{"jsonrpc":"2.0","id":`), resp.ID), `,"result":`...)
		_, err := (&net.Buffers{head, result, []byte("}\n")}).WriteTo(w)
		return err
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	_, err = w.Write(append(data, '\n'))
	return err
}

// appendID appends id, an int64 or a string, to dst as go-sdk's encoder
// writes it: without escaping <, > and &, as [json.Marshal] would.
func appendID(dst []byte, id jsonrpc.ID) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(id.Raw()) // no error: an int64 or a string
	return append(dst, bytes.TrimSuffix(b.Bytes(), []byte{'\n'})...)
}

// lineConn is a client's connection over a stream, whose messages the
// relay writes itself, with [writeMessage].
type lineConn struct {
	mcp.Connection
	mu sync.Mutex
	w  io.Writer
}

func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return writeMessage(c.w, msg)
}

// Close stops the command as the MCP specification says: it closes stdin,
// then sends SIGTERM (where there are signals), then kills it, and returns
// once it has exited, closing its stdout.
func (c *cmdConn) Close() error {
	c.once.Do(func() {
		defer c.out.Close() // ends a Read that a process the command started keeps waiting
		c.stdin.Close()
		for _, sig := range []os.Signal{syscall.SIGTERM, os.Kill} {
			select {
			case <-c.exited:
				return
			case <-time.After(stopGrace):
			}
			err := c.cmd.Process.Signal(sig)
			if err != nil && sig != os.Kill {
				err = c.cmd.Process.Kill() // no SIGTERM on this system, or it exited
			}
			if err != nil && !errors.Is(err, os.ErrProcessDone) {
				c.err = err
			}
		}
		<-c.exited
	})
	return c.err
}

// SessionID is empty: stdio has no sessions.
func (c *cmdConn) SessionID() string { return "" }

// preview returns the start of b, for a log.
func preview(b []byte) string {
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// decodeMessage is [jsonrpc.DecodeMessage], but that params and result are
// slices of data, where go-sdk's decoder copies them.
func decodeMessage(data []byte) (jsonrpc.Message, error) {
	var m [6]jsontext.Value // of messageKeys; the last of duplicate members, as go-sdk
	if !rawjson.Members(data, func(name, value jsontext.Value) bool {
		if i := slices.Index(messageKeys, rawjson.Unquote(name)); i >= 0 {
			m[i] = value
		}
		return true
	}) {
		if _, err := rawjson.NewDecoder(data).ReadValue(); err != nil {
			return nil, err // why it is no JSON
		}
		return nil, errors.New("not a JSON object")
	}
	version, rawID, method, params, result, errv := m[0], m[1], m[2], m[3], m[4], m[5]
	if rawjson.Unquote(version) != "2.0" || version.Kind() != '"' {
		return nil, fmt.Errorf("invalid message version tag %s", version)
	}
	var raw any
	if rawID != nil {
		if err := json.Unmarshal(rawID, &raw); err != nil {
			return nil, err
		}
	}
	id, err := jsonrpc.MakeID(raw)
	if err != nil {
		return nil, err
	}
	if method != nil {
		if method.Kind() != '"' {
			return nil, errors.New("method is not a string")
		}
		return &jsonrpc.Request{ID: id, Method: rawjson.Unquote(method), Params: json.RawMessage(params)}, nil
	}
	if !id.IsValid() {
		return nil, errors.New("a response without an id")
	}
	resp := &jsonrpc.Response{ID: id, Result: json.RawMessage(result)}
	if errv != nil && errv.Kind() != 'n' {
		var werr jsonrpc.Error
		if err := json.Unmarshal(errv, &werr); err != nil {
			return nil, err
		}
		resp.Error = &werr
	}
	return resp, nil
}

// decodeBatch decodes a batch, a JSON array of messages, with
// [decodeMessage]. A batch that is empty, or not valid as a whole, is an
// error, as for go-sdk.
func decodeBatch(data []byte) ([]jsonrpc.Message, error) {
	var msgs []jsonrpc.Message
	var err error
	dec := rawjson.NewDecoder(data)
	ok := rawjson.Elements(dec, '[', func() bool {
		var v jsontext.Value
		var msg jsonrpc.Message
		if v, err = dec.ReadValue(); err == nil {
			msg, err = decodeMessage(v)
		}
		msgs = append(msgs, msg)
		return err == nil
	})
	switch {
	case err != nil:
		return nil, fmt.Errorf("in a batch: %w", err)
	case !ok || !rawjson.AtEnd(dec):
		return nil, errors.New("no valid JSON array")
	case len(msgs) == 0:
		return nil, errors.New("an empty batch")
	}
	return msgs, nil
}

var messageKeys = []string{"jsonrpc", "id", "method", "params", "result", "error"}
