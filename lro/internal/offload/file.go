package offload

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	pathpkg "path"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/disk"
	"github.com/zircote/lro-go/internal/redact"
	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro/event"
	"github.com/zircote/lro-go/lro/internal/describe"
)

// write writes the records of p to a new file and returns its descriptor
// and, for a file in a store, the resource link to it, once the file is
// whole where it is written. Nothing is left on disk or in the bucket when
// it fails, whatever the failure (a panic of a WrapWriter included).
func (c *Config) write(ctx context.Context, call Call, r *result, p *plan) (o Outcome, link *mcp.ResourceLink, err error) {
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
		return Outcome{}, nil, err
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
		return Outcome{}, nil, err
	}
	if err := p.writeRecords(ctx, w); err != nil {
		return Outcome{}, nil, err
	}
	in := describe.Input{
		Path:     c.clientPath(w),
		Summary:  describe.Summary{Operation: op, Detail: string(call.Detail), Count: count, EstimatedTokens: p.tokens},
		Redacted: redact.Counts(p.redacted).Total(),
	}
	// The descriptor is built before the commit, so that one that cannot be
	// built leaves no file behind.
	if c.Store != nil {
		in.Handle = handle
		size := w.Size() // every byte is written
		// The name is file_path's base name, which a client that saves the
		// resource can use.
		link = &mcp.ResourceLink{URI: describe.ResultURIPrefix + in.Handle, Name: pathpkg.Base(in.Path), MIMEType: disk.ContentType, Size: &size}
	}
	desc, err := c.describe(in, call, p.t, p, link)
	if err != nil {
		return Outcome{}, nil, err
	}
	if err := w.Commit(); err != nil {
		return Outcome{}, nil, err
	}
	path := w.Path()
	if c.remote() {
		path = "" // an object's name is its handle
	}
	emit(ctx, c.Observer, event.Offloaded{
		Tool:            call.Tool,
		Operation:       op,
		Path:            cmp.Or(path, in.Handle),
		Count:           count,
		EstimatedTokens: p.tokens,
		Bytes:           w.Size(),
		Duration:        c.Now().Sub(start),
	})
	return Outcome{Offloaded: true, Descriptor: desc, Path: path, Handle: in.Handle}, link, nil
}

// create starts the file of operation op: in the Store, when there is one,
// whose bucket uploads are canceled with ctx, else in Dir.
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

// remote reports whether files go to a bucket, which is not the client's
// disk: the descriptor then names a file the client would download.
func (c *Config) remote() bool { return c.Store != nil && c.Store.Dir() == "" }

// emit delivers e to o. A nil o discards the event.
func emit(ctx context.Context, o event.Observer, e event.Event) {
	if o != nil {
		o.Observe(ctx, e)
	}
}

// storeError is the error of a write to a Store, whose object was to be
// named handle. A write that failed may still complete later (a bucket
// that received the object whole), so the fallback's warning names no
// handle (see reason); the event's error does.
type storeError struct {
	err    error
	handle string
}

func (e *storeError) Error() string { return e.err.Error() }
func (e *storeError) Unwrap() error { return e.err }

// reason returns the message of err for the fallback's warning: without
// the handle of a Store's object.
func reason(err error) string {
	var se *storeError
	if errors.As(err, &se) {
		return strings.ReplaceAll(err.Error(), se.handle, "(the result)")
	}
	return err.Error()
}
