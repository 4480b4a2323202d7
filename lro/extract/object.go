package extract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sync"
	"sync/atomic"
)

// An offloaded file kept in a bucket is read with one GET of at most
// MaxInputBytes + 1 bytes (one more, so that a longer object trips the
// limit rather than looking shorter than it is). lro_read reads it in the
// server and ends the GET once it has its lines. For lro_extract and
// lro_search the server reads the header from the GET, then hands the
// object to the worker through a pipe: a goroutine writes into it the
// bytes the server took (the header, and what its buffer read ahead) and
// the rest of the same GET. The worker reads the pipe as it reads a file,
// under the same limits. It sees the end of the object only if the GET
// delivered it whole: when the GET fails, the goroutine kills the worker
// instead of closing the pipe, so that a cut object can never pass for a
// shorter one.

// object is the GET of an object of a bucket that a source reads.
type object struct {
	tee    *tee
	body   *body
	cancel context.CancelFunc // ends the GET
}

// openObject opens the object of a bucket that r names, with one GET
// bounded by MaxInputBytes, and reads its header.
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
	t := &tee{r: b, max: maxHeaderBytes + 2*readBuffer, recording: true}
	closer := closerFunc(func() error {
		cancel()
		return rd.Close()
	})
	s, err := newSource(ctx, t, closer, handle, c.MaxInputBytes)
	if err != nil {
		return nil, c.headerError(ctx, r, err)
	}
	t.recording = false
	s.obj = &object{tee: t, body: b, cancel: cancel}
	return s, nil
}

// closerFunc is a func as an io.Closer.
type closerFunc func() error

func (f closerFunc) Close() error { return f() }

// body reads a GET of want bytes and reports one that ends early as an
// error, not as the end of the object.
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

// tee keeps a copy of what is read through it while recording, at most
// max bytes: the header that the server reads first, which the worker
// reads again.
type tee struct {
	r         io.Reader
	buf       []byte
	max       int
	recording bool
	lost      bool // more than max bytes were read while recording
}

func (t *tee) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if t.recording {
		if len(t.buf)+n > t.max {
			t.lost, t.buf = true, nil
		} else {
			t.buf = append(t.buf, p[:n]...)
		}
	}
	return n, err
}

// feed is the pipe that carries an object from the server to a worker.
type feed struct {
	r, w     *os.File // the worker's end, and the server's
	obj      *object
	done     chan struct{}
	once     sync.Once
	stopping atomic.Bool // stop ends the GET: not a failure
	rerr     error       // the GET failed: the worker was killed, not shown an end
}

// feed starts the copy of the object into a new pipe, from its first
// byte; the server must not read the source after. kill stops the worker:
// the copy calls it if the GET fails. The caller passes f.r to the worker
// and closes it once the worker started, and calls stop once the worker
// exited.
func (o *object) feed(kill func()) (*feed, error) {
	if o.tee.lost {
		return nil, errors.New("the header of the object is too long to hand to a worker") // newSource refused it already
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	f := &feed{r: r, w: w, obj: o, done: make(chan struct{})}
	go func() {
		defer close(f.done)
		io.Copy(w, io.MultiReader(bytes.NewReader(o.tee.buf), o.body))
		if o.body.err != nil && !f.stopping.Load() {
			// Leave the pipe open: the worker must not read a cut
			// object as a whole one.
			f.rerr = o.body.err
			kill()
			return
		}
		// The whole object, or the worker stopped reading (its end is
		// closed). Either way it may see the end now.
		f.closeWriter()
	}()
	return f, nil
}

func (f *feed) closeWriter() { f.once.Do(func() { f.w.Close() }) }

// stop ends the copy (the GET and the write), waits for it and releases
// the pipe. It returns the error of the GET if it failed before the worker
// had the whole object.
func (f *feed) stop() error {
	f.stopping.Store(true)
	f.obj.cancel()
	f.closeWriter()
	<-f.done
	f.r.Close()
	return f.rerr
}
