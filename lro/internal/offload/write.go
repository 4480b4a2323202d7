package offload

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	pathpkg "path"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/disk"
	"github.com/zircote/lro-go/internal/redact"
	"github.com/zircote/lro-go/internal/spec"
	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro/event"
	"github.com/zircote/lro-go/lro/internal/describe"
)

// write writes the records of p to a new file and returns its descriptor,
// for a file in a store the resource link to it, and the event to emit,
// once the file is whole. Nothing is left behind when it fails, whatever
// the failure (a panic of a WrapWriter included).
func (c *Config) write(ctx context.Context, call Call, r *result, p *plan) (o Outcome, link *mcp.ResourceLink, done event.Offloaded, err error) {
	var handle string
	defer func() {
		if err != nil && handle != "" {
			err = &storeError{err: err, handle: handle}
		}
	}()
	defer recovered(&err)
	start := c.Now()
	op := disk.SanitizeOperation(call.Operation)
	w, err := c.create(ctx, op)
	if err != nil {
		return Outcome{}, nil, done, err
	}
	if c.Store != nil {
		handle = pathpkg.Base(w.Path())
	}
	defer w.Abort() // no-op after a successful Commit

	count := p.count()
	h := FileHeader{
		Header: jsonl.Header{
			Operation:       op,
			Query:           call.Query,
			Count:           count,
			SchemaVersion:   c.SchemaVersion,
			Timestamp:       c.Now().UTC().Format(disk.TimestampLayout),
			EstimatedTokens: p.tokens,
			Detail:          string(call.Detail),
		},
		Shape: Shape{Result: json.RawMessage(p.result), Copies: p.copies, Redacted: p.redacted},
	}
	for _, ru := range p.runs {
		h.RecordsAt = append(h.RecordsAt, ru.Placement)
	}
	if err := writeHeader(w, h); err != nil {
		return Outcome{}, nil, done, err
	}
	if err := p.writeRecords(ctx, w); err != nil {
		return Outcome{}, nil, done, err
	}
	in := describe.Input{
		Path:     c.clientPath(w),
		Summary:  describe.Summary{Operation: op, Detail: string(call.Detail), Count: count, EstimatedTokens: p.tokens},
		Redacted: redact.Counts(p.redacted).Total(),
	}
	// Built before the commit: one that cannot be built leaves no file.
	if c.Store != nil {
		in.Handle = handle
		size := w.Size() // every byte is written
		link = &mcp.ResourceLink{URI: describe.ResultURIPrefix + in.Handle, Name: pathpkg.Base(in.Path), MIMEType: spec.ContentType, Size: &size}
	}
	desc, err := c.describe(in, call, p.t, p, link)
	if err != nil {
		return Outcome{}, nil, done, err
	}
	if err := w.Commit(); err != nil {
		return Outcome{}, nil, done, err
	}
	path := w.Path()
	if c.remote() {
		path = "" // an object's name is its handle
	}
	done = event.Offloaded{
		Tool:            call.Tool,
		Operation:       op,
		Path:            cmp.Or(path, in.Handle),
		Count:           count,
		EstimatedTokens: p.tokens,
		Bytes:           w.Size(),
		Duration:        c.Now().Sub(start),
	}
	return Outcome{Offloaded: true, Descriptor: desc, Path: path, Handle: in.Handle}, link, done, nil
}

// create starts the file of operation op: in the Store, whose bucket uploads
// are canceled with ctx, else in Dir.
func (c *Config) create(ctx context.Context, op string) (*jsonl.Writer, error) {
	if c.Store != nil {
		return c.Store.Create(ctx, op)
	}
	if c.Create != nil {
		return c.Create(op)
	}
	var expires func() time.Time
	if c.TTL > 0 {
		expires = func() time.Time { return c.Now().Add(c.TTL) }
	}
	f, err := disk.Create(c.Dir, c.Prefix, op, c.Now(), false, expires)
	if err != nil {
		return nil, err
	}
	return jsonl.NewWriter(disk.Wrap(f, c.WrapWriter), f.Path(), op), nil
}

// remote reports whether files go to a bucket, not the client's disk.
func (c *Config) remote() bool { return c.Store != nil && c.Store.Bucket() != nil }

// storeError is the error of a write to a Store, whose object was to be named
// handle. A failed write may still complete later (a bucket that received
// the object whole), so the fallback's warning names no handle; the event's
// error does.
type storeError struct {
	err    error
	handle string
}

func (e *storeError) Error() string { return e.err.Error() }
func (e *storeError) Unwrap() error { return e.err }

// reason returns the message of err for the fallback's warning.
func reason(err error) string {
	var se *storeError
	if errors.As(err, &se) {
		return strings.ReplaceAll(err.Error(), se.handle, "(the result)")
	}
	return err.Error()
}

// recovered turns a panic of a WrapWriter into an error: the call falls back.
func recovered(err *error) {
	if v := recover(); v != nil {
		*err = fmt.Errorf("offload: writing the file panicked: %v", v)
	}
}

// writeRecords writes every record of p to w, one a line, without validating
// them again (plan read them). It stops when ctx is canceled.
func (p *plan) writeRecords(ctx context.Context, w *jsonl.Writer) error {
	var buf []byte
	writeCompact := func(v []byte) error {
		line, err := compactLine(v, &buf)
		if err != nil {
			return err
		}
		return w.WriteValid(line)
	}
	for i, ru := range p.runs {
		if err := checkEvery(ctx, i); err != nil {
			return err
		}
		arr := ru.doc[ru.start:ru.end]
		var err error
		switch {
		case ru.rows != nil || ru.As == asLines:
			err = ru.each(&buf, w.WriteValid)
		case ru.As == asArray && len(ru.elems) == ru.Count:
			line := writeCompact
			if ru.oneLine {
				line = w.WriteValid // a line break outside strings is white space, inside one invalid
			}
			for _, e := range ru.elems {
				if err = line(arr[e.start:e.end]); err != nil {
					break
				}
			}
		case ru.As == asArray:
			err = eachElement(arr, writeCompact)
		default:
			err = writeCompact(arr)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// compactLine returns the valid JSON value v as one line: v itself, or its
// compact form in *buf.
func compactLine(v []byte, buf *[]byte) ([]byte, error) {
	if bytes.IndexByte(v, '\n') < 0 && bytes.IndexByte(v, '\r') < 0 {
		return v, nil
	}
	*buf = append((*buf)[:0], v...)
	c := jsontext.Value(*buf)
	if err := c.Compact(); err != nil {
		return nil, err
	}
	*buf = c
	return c, nil
}
