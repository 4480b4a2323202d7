package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/zircote/lro-go/cleanup"
	"github.com/zircote/lro-go/internal/bucketurl"
	"github.com/zircote/lro-go/internal/disk"
	"github.com/zircote/lro-go/internal/redact"
	"github.com/zircote/lro-go/internal/spec"
	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro/event"
)

// Defaults of [Options], each documented on its field.
const (
	defaultTTL          = spec.DefaultTTL
	defaultWriteTimeout = 30 * time.Second
)

var (
	// ErrUnknownHandle is returned (wrapped) by [Store.NewRangeReader] for
	// a handle that is malformed or names no stored file.
	ErrUnknownHandle = errors.New("store: unknown handle")

	// ErrExpiredHandle is returned (wrapped) by [Store.NewRangeReader] for
	// a handle that has expired, deleted or not.
	ErrExpiredHandle = errors.New("store: expired handle")
)

// Options configure a [Store]. A nil *Options uses every default. The
// constructors copy the Options.
type Options struct {
	// Prefix is the first part of every name, as [jsonl.Options] says. If
	// empty, defaults to "atlatl".
	Prefix string

	// TTL is how long a handle is valid; it should be the janitor's TTL. If
	// zero, defaults to one hour. Negative values are invalid.
	TTL time.Duration

	// WriteTimeout bounds each write to a bucket, from [Store.Create] to
	// the end of Commit: a write not complete by then is aborted, and the
	// offload falls back. If zero, defaults to 30 seconds. Negative values
	// are invalid.
	WriteTimeout time.Duration

	// Observer receives an [event.StoreUnavailable] each time a bucket's
	// writes fail so often that the Store stops trying it for a while.
	Observer event.Observer
}

// Bucket is a bucket of objects, such as one of gocloud.dev/blob that
// package [github.com/zircote/lro-go/lro/store/blobstore] adapts: what a
// [Store] writes to and reads from, and what a janitor sweeps. Its methods
// must be safe for concurrent use. Besides those below, it has the three
// methods of [cleanup.Bucket] (List, Delete, Expiry), which the janitor of
// package cleanup uses. It has no Close: the caller of [NewBucket] closes
// its bucket, and [Store.Close] the one that [Open] opened.
type Bucket interface {
	cleanup.Bucket
	// NewWriter starts the object of key, recording its expiry with it
	// (for Expiry). The object must become visible, whole, only when Close
	// returns nil, and not at all if ctx is canceled before Close.
	NewWriter(ctx context.Context, key, contentType string, expires time.Time) (io.WriteCloser, error)
	// NewRangeReader reads length bytes of the object of key from offset,
	// to its end if length is negative, and returns the size of the whole
	// object. It returns an error wrapping [io/fs.ErrNotExist] if there is no
	// such object.
	NewRangeReader(ctx context.Context, key string, offset, length int64) (r io.ReadCloser, size int64, err error)
}

// Store writes offloaded files to a folder or a bucket and reads them back
// by handle. It is safe for concurrent use.
type Store struct {
	dir    string    // absolute; "" for a bucket
	bucket Bucket    // nil for a folder
	closer io.Closer // the bucket opened by Open, which Close closes; or nil
	prefix string
	ttl    time.Duration
	now    func() time.Time          // time.Now, or a test's clock (export_test.go)
	wrap   func(io.Writer) io.Writer // a test's writer wrapper (export_test.go), or nil

	writeTimeout time.Duration
	observer     event.Observer
	breaker      breaker
	stopCtx      context.Context // canceled by Close: stops the removals of failed uploads
	stop         context.CancelFunc
	wg           sync.WaitGroup // counts those removals
}

// Open returns a Store at location: a bucket URL (scheme://...), opened by
// package [github.com/zircote/lro-go/lro/store/blobstore] if the program
// imports it, or else the path of a local folder, into which the Store
// writes files with [jsonl.Create]. The path is made absolute, and is
// [os.TempDir] if empty; the folder is created with mode 0700 on the first
// write. A folder that another user could write to or own is refused, as by
// jsonl.Create.
//
// Open lists a bucket once, within [Options.WriteTimeout], so that a
// bucket that cannot be reached (a wrong endpoint, credentials or name)
// fails here with the reason, rather than making every offload fall back.
// [Store.Close] closes a bucket that Open opened. Open fails, naming the
// field or the problem, for invalid [Options] and for a bucket URL that the
// program cannot open; no error message holds the password of a URL.
func Open(ctx context.Context, location string, opts *Options) (*Store, error) {
	s, err := newStore(opts)
	if err != nil {
		return nil, err
	}
	if !strings.Contains(location, "://") {
		dir := cmp.Or(location, os.TempDir())
		if s.dir, err = filepath.Abs(dir); err != nil {
			return nil, fmt.Errorf("store: folder %q: %w", dir, err)
		}
		if err := disk.CheckDir(s.dir); err != nil {
			return nil, fmt.Errorf("store: folder %q: %w", dir, err)
		}
		return s, nil
	}
	open := bucketurl.Opener()
	safe := redact.URL(location)
	if open == nil {
		return nil, fmt.Errorf("store: bucket URL %s: no bucket support in this program (add import _ \"github.com/zircote/lro-go/lro/store/blobstore\" and the driver's, such as import _ \"gocloud.dev/blob/s3blob\")", safe)
	}
	opened, err := open(ctx, location)
	if err != nil {
		return nil, redacted(err, location, safe)
	}
	b, ok := opened.(Bucket)
	if !ok {
		return nil, fmt.Errorf("store: bucket URL %s: the opener returned a %T, not a Bucket", safe, opened)
	}
	s.bucket = b
	s.closer, _ = opened.(io.Closer)
	if err := s.listOnce(ctx); err != nil {
		s.Close()
		return nil, redacted(err, location, safe)
	}
	return s, nil
}

// redacted returns err, or if the URL location has a password (safe is
// location redacted), err with safe in place of location in its message.
// Of a location with a user that does not parse, the message says only
// that: the error of url.Parse quotes the URL with escapes, or a part of it,
// so that the password it may hold would not be replaced.
func redacted(err error, location, safe string) error {
	if safe == location {
		return err
	}
	msg := strings.ReplaceAll(err.Error(), location, safe)
	if _, perr := url.Parse(location); perr != nil && strings.Contains(location, "@") {
		msg = fmt.Sprintf("store: bucket URL %s: not a valid URL (percent-encode the characters of its user name and password other than letters, digits and -._~)", safe)
	}
	return &redactedError{msg: msg, err: err}
}

// redactedError is an opener's error without the URL's password: it
// matches what err matches with errors.Is, but does not unwrap to err.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string        { return e.msg }
func (e *redactedError) Is(target error) bool { return errors.Is(e.err, target) }

// NewBucket returns a Store that writes objects into b, such as
// blobstore.New(bucket). The caller closes b after the Store's last use:
// [Store.Close] does not. It fails for a nil b, and for invalid [Options],
// naming the field.
func NewBucket(b Bucket, opts *Options) (*Store, error) {
	if b == nil {
		return nil, errors.New("store: NewBucket: nil Bucket")
	}
	s, err := newStore(opts)
	if err != nil {
		return nil, err
	}
	if !reflect.ValueOf(b).Comparable() {
		// The automatic janitors of the process are told apart by their
		// bucket, a map key: one whose value cannot be (a struct holding
		// a func, a map or a slice) is told apart by its Store's copy.
		b = &uncomparable{b}
	}
	s.bucket = b
	return s, nil
}

// uncomparable is a bucket whose value is not comparable, by its address.
type uncomparable struct{ Bucket }

// newStore returns a Store configured by opts, with no folder or bucket.
func newStore(opts *Options) (*Store, error) {
	o := *cmp.Or(opts, &Options{})
	o.Prefix = cmp.Or(o.Prefix, spec.DefaultPrefix)
	if err := disk.ValidatePrefix(o.Prefix); err != nil {
		return nil, fmt.Errorf("store: Options.Prefix: %w", err)
	}
	if o.TTL < 0 {
		return nil, fmt.Errorf("store: Options.TTL is %v, negative: invalid option", o.TTL)
	}
	o.TTL = cmp.Or(o.TTL, defaultTTL)
	if o.WriteTimeout < 0 {
		return nil, fmt.Errorf("store: Options.WriteTimeout is %v, negative: invalid option", o.WriteTimeout)
	}
	o.WriteTimeout = cmp.Or(o.WriteTimeout, defaultWriteTimeout)
	s := &Store{prefix: o.Prefix, ttl: o.TTL, now: time.Now, writeTimeout: o.WriteTimeout, observer: o.Observer}
	s.stopCtx, s.stop = context.WithCancel(context.Background())
	return s, nil
}

// Dir returns the absolute path of the Store's folder, or "" for a bucket.
func (s *Store) Dir() string { return s.dir }

// Bucket returns the Store's bucket, or nil for a folder: the bucket a
// janitor sweeps ([github.com/zircote/lro-go/cleanup.Options.Bucket]). A
// bucket whose value is not comparable (a struct holding a func, a map or a
// slice) is returned inside a comparable one of the Store's, which calls it.
func (s *Store) Bucket() Bucket { return s.bucket }

// Prefix returns the prefix of the Store's names.
func (s *Store) Prefix() string { return s.prefix }

// TTL returns how long the Store's handles are valid.
func (s *Store) TTL() time.Duration { return s.ttl }

// listOnce lists the bucket of s once, within the write timeout.
func (s *Store) listOnce(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.writeTimeout)
	defer cancel()
	errSeen := errors.New("seen")
	err := s.bucket.List(ctx, s.prefix+"-", func(string) error { return errSeen })
	if err != nil && !errors.Is(err, errSeen) {
		return fmt.Errorf("store: cannot list the bucket: %w", err)
	}
	return nil
}

// Close stops the removals of failed uploads still under way and waits for
// them, then closes the bucket that [Open] opened. It must not be called
// while the Store is in use.
func (s *Store) Close() error {
	s.stop()
	s.wg.Wait()
	if s.closer != nil {
		return s.closer.Close()
	}
	return nil
}

// Create starts a new file for operation, as [jsonl.Create] does, and
// returns its Writer, whose Path is the file's in a folder and the object's
// name in a bucket: its base name is the handle. The file becomes readable,
// whole, when Commit returns nil; defer Abort right after Create. In a
// bucket, canceling ctx before Commit aborts the write, and so does
// [Options.WriteTimeout] passing; while the breaker is open (docs/replicas.md),
// Create fails at once.
func (s *Store) Create(ctx context.Context, operation string) (*jsonl.Writer, error) {
	if s.bucket == nil {
		f, err := disk.Create(s.dir, s.prefix, operation, s.now(), true, func() time.Time { return s.now().Add(s.ttl) })
		if err != nil {
			return nil, err
		}
		return jsonl.NewWriter(disk.Wrap(f, s.wrap), f.Path(), operation), nil
	}
	start := s.now()
	probe, err := s.breaker.allow(start)
	if err != nil {
		return nil, err
	}
	// The recorded expiry counts from the deadline: the handle, once handed
	// out, lives at least the TTL.
	deadline := start.Add(s.writeTimeout)
	name, err := disk.NewName(s.prefix, operation, start, true)
	if err != nil {
		s.breaker.release(probe)
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, s.writeTimeout)
	bw, err := s.bucket.NewWriter(wctx, name, spec.ContentType, deadline.Add(s.ttl))
	if err != nil {
		cancel()
		err = fmt.Errorf("store: %s: %w", name, err)
		s.verdict(ctx, probe, err)
		return nil, err
	}
	sk := &sink{s: s, w: bw, ctx: ctx, cancel: cancel, name: name, probe: probe, deadline: deadline}
	return jsonl.NewWriter(disk.Wrap(sk, s.wrap), name, operation), nil
}

// verdict records the outcome of a write to the bucket, err nil for a
// success, and emits the event of a breaker that opened. A write whose
// caller gave up says nothing of the bucket.
func (s *Store) verdict(ctx context.Context, probe bool, err error) {
	if err != nil && ctx.Err() != nil {
		s.breaker.release(probe)
		return
	}
	if opened, failures, until := s.breaker.done(s.now(), probe, err); opened && s.observer != nil {
		s.observer.Observe(ctx, event.StoreUnavailable{Failures: failures, Until: until, Err: err})
	}
}

// The removal of an upload that failed, which a stalled server may still
// complete: the key is deleted again, with growing pauses, until a delete
// finds the object or discardWithin has passed.
const (
	discardWithin   = 2 * time.Minute
	discardAttempt  = 10 * time.Second
	discardFirstGap = time.Second
	discardMaxGap   = 30 * time.Second
)

// discard removes the object of key in the background (see above), unless
// Close stops it first.
func (s *Store) discard(key string) {
	s.wg.Go(func() {
		ctx, cancel := context.WithTimeout(s.stopCtx, discardWithin)
		defer cancel()
		for gap := discardFirstGap; ; gap = min(2*gap, discardMaxGap) {
			actx, acancel := context.WithTimeout(ctx, discardAttempt)
			err := s.bucket.Delete(actx, key)
			acancel()
			if err == nil {
				return // the object was there, and is gone
			}
			// Not there (yet), or the bucket did not answer.
			select {
			case <-ctx.Done():
				return
			case <-time.After(gap):
			}
		}
	})
}

// sink is the destination of a Writer on a bucket's writer: it commits
// or aborts the upload.
type sink struct {
	s        *Store
	w        io.WriteCloser
	ctx      context.Context // the caller's
	cancel   context.CancelFunc
	name     string
	probe    bool      // the breaker's probe
	wrote    bool      // bytes went to the bucket's writer
	failed   error     // the first error of a Write
	deadline time.Time // by the Store's clock, as the recorded expiry assumes
}

func (s *sink) Write(p []byte) (int, error) {
	s.wrote = true
	n, err := s.w.Write(p)
	if err != nil && s.failed == nil {
		s.failed = fmt.Errorf("store: %s: %w", s.name, err)
	}
	return n, err
}

func (s *sink) Commit() error {
	defer s.cancel()
	if now := s.s.now(); now.After(s.deadline) { // late by the Store's clock
		s.wrote = true
		s.failed = fmt.Errorf("store: %s: written for %v, over the write deadline %v: %w", s.name, now.Sub(s.deadline)+s.s.writeTimeout, s.s.writeTimeout, context.DeadlineExceeded)
		s.Abort()
		return s.failed
	}
	if err := s.w.Close(); err != nil {
		err = fmt.Errorf("store: %s: %w", s.name, err)
		s.s.verdict(s.ctx, s.probe, err)
		s.s.discard(s.name)
		return err
	}
	s.s.verdict(s.ctx, s.probe, nil)
	return nil
}

func (s *sink) Abort() error {
	s.cancel()
	s.w.Close() // fails with the cancellation: nothing is written
	if s.failed != nil {
		s.s.verdict(s.ctx, s.probe, s.failed)
	} else {
		s.s.breaker.release(s.probe) // given up before the bucket said anything
	}
	if s.wrote {
		s.s.discard(s.name)
	}
	return nil
}
