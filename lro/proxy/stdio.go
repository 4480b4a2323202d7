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
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// cmdConn is the connection to an upstream command that serves MCP over
// stdio: one JSON-RPC message a line. It is go-sdk's CommandTransport with
// two differences: a line that is no JSON-RPC message (a library printing to
// stdout) is logged and skipped, as the TypeScript SDK does, instead of
// ending the connection; and a message may be up to max bytes (go-sdk's
// frame cap is 16 MiB, below the results offloading is for).
type cmdConn struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	max    int
	logger *slog.Logger
	exited chan struct{}

	wmu  sync.Mutex // one message at a time
	once sync.Once
	err  error // of Close
}

// startCommand starts the command of up.
func startCommand(up *Upstream, max int, logger *slog.Logger) (*cmdConn, error) {
	cmd := exec.Command(up.Command[0], up.Command[1:]...)
	cmd.Env = up.Env
	cmd.Dir = up.Dir
	cmd.Stderr = up.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &cmdConn{cmd: cmd, stdin: stdin, stdout: bufio.NewReaderSize(stdout, 64<<10), max: max, logger: logger, exited: make(chan struct{})}
	go func() {
		cmd.Wait()
		close(c.exited)
	}()
	return c, nil
}

// errTooLarge ends a connection whose peer sent a message above the limit.
var errTooLarge = errors.New("proxy: message above the size limit")

// Read returns the next JSON-RPC message of the command's stdout. It is not
// safe for concurrent use (the relay reads from one goroutine).
func (c *cmdConn) Read(context.Context) (jsonrpc.Message, error) {
	for {
		line, err := readLine(c.stdout, c.max)
		if err != nil {
			return nil, err
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		msg, err := decodeMessage(line)
		if err != nil {
			c.logger.Warn("upstream wrote a line that is no JSON-RPC message; skipped", "line", preview(line), "err", err)
			continue
		}
		return msg, nil
	}
}

// readLine reads one line of br, of up to limit bytes, into a slice of its
// own. A long line is read in chunks and joined once: it allocates twice its
// size, where growing one slice would allocate up to four times.
func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var chunks [][]byte
	n := 0
	for {
		chunk, err := br.ReadSlice('\n')
		n += len(chunk)
		if n > limit {
			return nil, fmt.Errorf("%w of %d bytes (see Options.MaxMessageBytes)", errTooLarge, limit)
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
		return bytes.Join(chunks, nil), nil
	}
}

// Write sends msg as one line.
func (c *cmdConn) Write(_ context.Context, msg jsonrpc.Message) error {
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err = c.stdin.Write(append(data, '\n'))
	return err
}

// stopGrace is how long Close waits for the command to exit after each
// step of the shutdown.
const stopGrace = time.Second

// Close stops the command as the MCP specification's shutdown for stdio
// says: it closes the command's stdin and waits for it to exit; then sends
// it SIGTERM (where there are signals) and waits again; then kills it. It
// returns once the process has exited.
func (c *cmdConn) Close() error {
	c.once.Do(func() {
		c.stdin.Close()
		for _, stop := range []func() error{terminate(c.cmd.Process), c.cmd.Process.Kill} {
			select {
			case <-c.exited:
				return
			case <-time.After(stopGrace):
			}
			if err := stop(); err != nil && !errors.Is(err, os.ErrProcessDone) {
				c.err = err
			}
		}
		<-c.exited
	})
	return c.err
}

// terminate returns the function that asks p to stop: SIGTERM, or a kill
// where there are no signals.
func terminate(p *os.Process) func() error {
	return func() error {
		if err := p.Signal(syscall.SIGTERM); err != nil {
			return p.Kill()
		}
		return nil
	}
}

// SessionID is empty: stdio has no sessions.
func (c *cmdConn) SessionID() string { return "" }

// preview returns the start of b, for a log.
func preview(b []byte) string {
	const n = 200
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// decodeMessage is [jsonrpc.DecodeMessage] for a message the relay passes
// on: it validates it and takes its members as they are, params and result
// as slices of data, without decoding them (go-sdk's decoder copies them
// through a generic JSON decoder, which takes a second for 17 MiB).
func decodeMessage(data []byte) (jsonrpc.Message, error) {
	var version, id, method, params, result, errv jsontext.Value
	ok := members(data, func(name, value jsontext.Value) bool {
		switch unquote(name) {
		case "jsonrpc":
			version = value
		case "id":
			id = value
		case "method":
			method = value
		case "params":
			params = value
		case "result":
			result = value
		case "error":
			errv = value
		}
		return true
	})
	if !ok {
		return nil, errors.New("not a JSON object")
	}
	if unquote(version) != "2.0" || version.Kind() != '"' {
		return nil, fmt.Errorf("invalid message version tag %s", version)
	}
	var rawID any
	if id != nil {
		if err := json.Unmarshal(id, &rawID); err != nil {
			return nil, err
		}
	}
	mid, err := jsonrpc.MakeID(rawID)
	if err != nil {
		return nil, err
	}
	if method != nil {
		if method.Kind() != '"' {
			return nil, errors.New("method is not a string")
		}
		return &jsonrpc.Request{ID: mid, Method: unquote(method), Params: json.RawMessage(params)}, nil
	}
	if !mid.IsValid() {
		return nil, errors.New("a response without an id")
	}
	resp := &jsonrpc.Response{ID: mid, Result: json.RawMessage(result)}
	if errv != nil && errv.Kind() != 'n' {
		var werr jsonrpc.Error
		if err := json.Unmarshal(errv, &werr); err != nil {
			return nil, err
		}
		resp.Error = &werr
	}
	return resp, nil
}
