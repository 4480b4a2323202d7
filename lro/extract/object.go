package extract

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"sync/atomic"
)

// object is the one GET of an object of a bucket, of at most MaxInputBytes
// + 1 bytes so that a longer object trips the limit. The server reads its
// header; for lro_extract and lro_search a worker then reads it whole on its
// standard input, after its job. A failed GET kills the worker before the
// copy closes the pipe, so that a cut object never passes for a shorter one.
type object struct {
	r        io.Reader          // the object from its first byte, once the header is read
	cancel   context.CancelFunc // ends the GET
	kill     func()             // kills the worker at once
	stopping atomic.Bool
	failed   atomic.Pointer[error] // the GET failed before the worker had the whole object
}

// openObject starts the GET of the object r names and reads its header.
func (c *config) openObject(ctx context.Context, r ref) (*source, error) {
	handle := objectName(r)
	length := int64(-1) // to the end
	if c.MaxInputBytes < math.MaxInt64 {
		length = c.MaxInputBytes + 1
	}
	gctx, cancel := context.WithCancel(ctx)
	rd, want, err := c.Store.NewRangeReader(gctx, handle, 0, length)
	if err != nil {
		cancel()
		return nil, c.storeError(ctx, r, err)
	}
	if length >= 0 {
		want = min(want, length)
	}
	b := &body{r: rd, cancel: cancel, want: want}
	s, err := newSource(ctx, b, b, handle, c.MaxInputBytes)
	if err != nil {
		return nil, c.headerError(ctx, r, err)
	}
	// The header line is s.read bytes: s.head and "\r\n", "\n", "" or "\r"
	// (sent as "\n", which the worker trims alike).
	head := s.head + "\r\n"[2-(int(s.read)-len(s.head)):]
	s.obj = &object{r: io.MultiReader(strings.NewReader(head), s.br), cancel: cancel}
	return s, nil
}

// body reads a GET of want bytes; one that ends early is an error. Close
// ends the GET.
type body struct {
	r      io.ReadCloser
	cancel context.CancelFunc
	want   int64 // bytes the GET must deliver
	n      int64 // bytes read
	err    error // the first error but io.EOF
}

func (b *body) Close() error {
	b.cancel()
	return b.r.Close()
}

func (b *body) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	if b.n >= b.want {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), b.want-b.n)]
	n, err := b.r.Read(p)
	b.n += int64(n)
	switch {
	case errors.Is(err, io.EOF) && b.n < b.want:
		err = fmt.Errorf("the store's answer ended after %d of its %d bytes", b.n, b.want)
	case errors.Is(err, io.EOF):
		return n, io.EOF
	case err != nil:
		err = fmt.Errorf("the store failed: %w", err)
	}
	b.err = err
	return n, err
}

func (o *object) Read(p []byte) (int, error) {
	n, err := o.r.Read(p)
	if err != nil && err != io.EOF && !o.stopping.Load() {
		o.kill()
		o.failed.Store(&err)
	}
	return n, err
}

// stop ends the GET: an error that follows is not a failure.
func (o *object) stop() {
	o.stopping.Store(true)
	o.cancel()
}
