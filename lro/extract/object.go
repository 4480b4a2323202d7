package extract

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"sync"
	"sync/atomic"
)

// An offloaded file kept in a bucket is read with one GET of at most
// MaxInputBytes + 1 bytes, so that a longer object trips the limit. For
// lro_extract and lro_search the server reads the header, then a goroutine
// copies the object into a pipe that the worker reads as it reads a file.
// When the GET fails, the goroutine kills the worker instead of closing the
// pipe, so that a cut object never passes for a shorter one.

// object is the GET of an object of a bucket that a source reads.
type object struct {
	r      io.Reader // the object from its first byte, once the header is read
	body   *body
	cancel context.CancelFunc // ends the GET
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
	b := &body{r: rd, want: want}
	closer := closerFunc(func() error {
		cancel()
		return rd.Close()
	})
	s, err := newSource(ctx, b, closer, handle, c.MaxInputBytes)
	if err != nil {
		return nil, c.headerError(ctx, r, err)
	}
	// The header line is s.read bytes: s.head and "\r\n", "\n", "" or "\r"
	// (sent as "\n", which the worker trims alike).
	head := s.head + "\r\n"[2-(int(s.read)-len(s.head)):]
	s.obj = &object{r: io.MultiReader(strings.NewReader(head), s.br), body: b, cancel: cancel}
	return s, nil
}

// closerFunc is a func as an io.Closer.
type closerFunc func() error

func (f closerFunc) Close() error { return f() }

// body reads a GET of want bytes; one that ends early is an error.
type body struct {
	r    io.Reader
	want int64 // bytes the GET must deliver
	n    int64 // bytes read
	err  error // the first error but io.EOF
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

// feed is the pipe that carries an object from the server to a worker.
type feed struct {
	r, w        *os.File // the worker's end, and the server's
	obj         *object
	done        chan struct{}
	closeWriter func() error // closes w once
	stopping    atomic.Bool  // stop ends the GET: not a failure
	rerr        error        // the GET failed: the worker was killed, not shown an end
}

// feed starts the copy of the object into a new pipe, from its first
// byte; the server must not read the source after. The copy calls kill if
// the GET fails. The caller gives f.r to the worker, and calls stop once
// the worker exited.
func (o *object) feed(kill func()) (*feed, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	f := &feed{r: r, w: w, obj: o, done: make(chan struct{}), closeWriter: sync.OnceValue(w.Close)}
	go func() {
		defer close(f.done)
		io.Copy(w, o.r)
		if o.body.err != nil && !f.stopping.Load() {
			// Leave the pipe open: a cut object is not a whole one.
			f.rerr = o.body.err
			kill()
			return
		}
		f.closeWriter()
	}()
	return f, nil
}

// stop ends the copy, waits for it and releases the pipe. It returns the
// error of the GET if it failed before the worker had the whole object.
func (f *feed) stop() error {
	f.stopping.Store(true)
	f.obj.cancel()
	f.closeWriter()
	<-f.done
	f.r.Close()
	return f.rerr
}
