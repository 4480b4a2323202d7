package proxy

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"mime"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// listen reads the stream of an HTTP upstream's own messages (the GET
// stream of protocols before 2026-07-28), which go-sdk opens only for its
// client session. It opens it again when the upstream closes it, until the
// connection ends or the upstream has none.
func (r *relay) listen(u *upConn) {
	lastID := ""
	for quiet := 0; quiet < 3; {
		req, err := http.NewRequestWithContext(u.ctx, http.MethodGet, r.p.up.URL, nil)
		if err != nil {
			return
		}
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set(sessionIDHeader, u.SessionID())
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
		lastID = r.readEvents(u, resp.Body, lastID)
		resp.Body.Close()
		if lastID == before {
			quiet++
		} else {
			quiet = 0
		}
		select {
		case <-u.ctx.Done():
			return
		case <-time.After(listenRetry):
		}
	}
}

// readEvents passes the messages of a stream of server-sent events to the
// client, and returns the ID of the last event.
func (r *relay) readEvents(u *upConn, body io.Reader, lastID string) string {
	br := bufio.NewReaderSize(body, 64<<10)
	var data []byte
	event := ""
	for {
		line, err := readLine(br, r.p.maxMessage-len(data), nil)
		if err != nil {
			if errors.Is(err, errTooLarge) {
				r.p.logger.Warn("upstream event above the size limit; stream closed", "limit", r.p.maxMessage)
			}
			return lastID
		}
		line = bytes.TrimRight(line, "\r\n")
		name, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch {
		case len(line) == 0:
			if len(data) > 0 && (event == "" || event == "message") {
				if msg, err := jsonrpc.DecodeMessage(data); err == nil {
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
