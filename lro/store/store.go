package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"gocloud.dev/blob"

	"github.com/zircote/lro-go/jsonl"
)

const (
	// DefaultTTL is how long a handle is valid: the specification's 3600
	// seconds, as cleanup.DefaultTTL.
	DefaultTTL = time.Hour
	// DefaultPartSize is the part size of bucket writes: 5 MiB, the
	// smallest part S3 accepts (but for the last).
	DefaultPartSize = 5 << 20
	// ContentType is the content type of the objects a Store writes.
	ContentType = "application/jsonl"
)

var (
	// ErrUnknownHandle is returned (wrapped, naming the handle and the
	// reason) by [Store.NewReader] and [Store.NewRangeReader] for a handle
	// that is malformed or names no stored file.
	ErrUnknownHandle = errors.New("store: unknown handle")

	// ErrExpiredHandle is returned (wrapped, naming the handle and when it
	// expired) by [Store.NewReader] and [Store.NewRangeReader] for a handle
	// whose created_at + TTL is at or before now, whether or not its file
	// has been deleted yet.
	ErrExpiredHandle = errors.New("store: expired handle")

	// ErrInvalidOption is returned (wrapped, naming the field) by [Open],
	// [NewFolder] and [NewBucket] for invalid [Options], and by Open for a
	// bucket URL whose driver is not registered.
	ErrInvalidOption = errors.New("store: invalid option")
)

// Options configure a [Store]. A nil *Options uses every default. The
// constructors copy the Options.
type Options struct {
	// Prefix is the first part of every name. If empty, defaults to
	// [jsonl.DefaultPrefix]. It must satisfy [jsonl.ValidatePrefix].
	Prefix string

	// TTL is how long a handle is valid after its creation. If zero,
	// defaults to [DefaultTTL]. Negative values are invalid. It should be
	// the janitor's TTL.
	TTL time.Duration

	// Now returns the current time, for the names' ULIDs and the handles'
	// expiry. If nil, defaults to [time.Now].
	Now func() time.Time

	// PartSize is the part size of bucket writes, in bytes: a blob writer
	// holds about two parts in memory (see the package documentation). If
	// zero, defaults to [DefaultPartSize]. Negative values are invalid.
	PartSize int

	// WrapWriter, if not nil, is passed to the jsonl Writers of
	// [Store.Create] (see [jsonl.Options.WrapWriter]): for fault
	// injection.
	WrapWriter func(w io.Writer) io.Writer
}

// Store writes offloaded files to a folder or a bucket and reads them back
// by handle; see the package documentation. It is made by [Open],
// [NewFolder] or [NewBucket] and is safe for concurrent use.
type Store struct {
	dir      string       // absolute; "" for a bucket
	bucket   *blob.Bucket // nil for a folder
	owned    bool         // bucket opened by Open: Close closes it
	prefix   string
	ttl      time.Duration
	now      func() time.Time
	partSize int
	wrap     func(io.Writer) io.Writer
}

// drivers names the package to import for the URL schemes of the drivers
// of gocloud.dev/blob.
var drivers = map[string]string{
	"s3":     "gocloud.dev/blob/s3blob",
	"gs":     "gocloud.dev/blob/gcsblob",
	"azblob": "gocloud.dev/blob/azureblob",
	"file":   "gocloud.dev/blob/fileblob",
	"mem":    "gocloud.dev/blob/memblob",
}

// Open returns a Store at location: a bucket URL (scheme://...) opened with
// [blob.OpenBucket], or else the path of a local folder, as [NewFolder].
// [Store.Close] closes a bucket that Open opened.
//
// Open returns an error wrapping [ErrInvalidOption] for invalid options or
// a URL scheme whose driver the program has not registered (the error names
// the package to import, such as gocloud.dev/blob/s3blob), and the error of
// blob.OpenBucket, which may name a parameter the driver rejects.
func Open(ctx context.Context, location string, opts *Options) (*Store, error) {
	scheme, _, isURL := strings.Cut(location, "://")
	if !isURL {
		return NewFolder(location, opts)
	}
	if !blob.DefaultURLMux().ValidBucketScheme(scheme) {
		hint := "no driver of gocloud.dev/blob has this scheme"
		if pkg, ok := drivers[scheme]; ok {
			hint = fmt.Sprintf("add import _ %q to the program", pkg)
		}
		return nil, fmt.Errorf("store: bucket URL %s: no driver registered for %q (%s): %w", redact(location), scheme, hint, ErrInvalidOption)
	}
	s, err := newStore(opts)
	if err != nil {
		return nil, err
	}
	b, err := blob.OpenBucket(ctx, location)
	if err != nil {
		if safe := redact(location); safe != location {
			// The driver's message quotes the URL: keep its password out.
			return nil, fmt.Errorf("store: bucket URL %s: %s", safe, strings.ReplaceAll(err.Error(), location, safe))
		}
		return nil, fmt.Errorf("store: bucket URL %s: %w", location, err)
	}
	s.bucket, s.owned = b, true
	return s, nil
}

// redact returns the URL location without its user information (which
// could hold a secret), for error messages.
func redact(location string) string {
	u, err := url.Parse(location)
	if err != nil {
		return "(unparsable)"
	}
	return u.Redacted()
}

// NewFolder returns a Store that writes files into the folder dir with
// [jsonl.Create] (made absolute; [os.TempDir] if empty; created with mode
// 0700 on the first write), as an offloader without a store does.
//
// NewFolder returns an error wrapping [ErrInvalidOption] for invalid
// options, and the error of [filepath.Abs].
func NewFolder(dir string, opts *Options) (*Store, error) {
	s, err := newStore(opts)
	if err != nil {
		return nil, err
	}
	if dir == "" {
		dir = os.TempDir()
	}
	if s.dir, err = filepath.Abs(dir); err != nil {
		return nil, fmt.Errorf("store: folder %q: %w", dir, err)
	}
	return s, nil
}

// NewBucket returns a Store that writes objects into b. The caller keeps b
// and closes it after the Store's last use; [Store.Close] does not.
//
// NewBucket returns an error wrapping [ErrInvalidOption] for invalid
// options.
func NewBucket(b *blob.Bucket, opts *Options) (*Store, error) {
	s, err := newStore(opts)
	if err != nil {
		return nil, err
	}
	s.bucket = b
	return s, nil
}

// newStore returns a Store configured by opts, with no folder or bucket.
func newStore(opts *Options) (*Store, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Prefix == "" {
		o.Prefix = jsonl.DefaultPrefix
	}
	if err := jsonl.ValidatePrefix(o.Prefix); err != nil {
		return nil, fmt.Errorf("store: Options.Prefix: %w: %w", err, ErrInvalidOption)
	}
	if o.TTL < 0 {
		return nil, fmt.Errorf("store: Options.TTL is %v: %w", o.TTL, ErrInvalidOption)
	}
	if o.TTL == 0 {
		o.TTL = DefaultTTL
	}
	if o.PartSize < 0 {
		return nil, fmt.Errorf("store: Options.PartSize is %d: %w", o.PartSize, ErrInvalidOption)
	}
	if o.PartSize == 0 {
		o.PartSize = DefaultPartSize
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return &Store{prefix: o.Prefix, ttl: o.TTL, now: o.Now, partSize: o.PartSize, wrap: o.WrapWriter}, nil
}

// Dir returns the absolute path of the Store's folder, or "" for a bucket.
// The files of a folder are on the server's disk: a descriptor's file_path
// and shell recipes serve a client on the same machine.
func (s *Store) Dir() string { return s.dir }

// Bucket returns the Store's bucket, or nil for a folder: the bucket a
// janitor sweeps (cleanup.Options.Bucket).
func (s *Store) Bucket() *blob.Bucket { return s.bucket }

// Prefix returns the prefix of the Store's names.
func (s *Store) Prefix() string { return s.prefix }

// TTL returns how long the Store's handles are valid.
func (s *Store) TTL() time.Duration { return s.ttl }

// Close closes the bucket that [Open] opened, and otherwise does nothing.
// It must not be called while the Store is in use.
func (s *Store) Close() error {
	if s.owned {
		return s.bucket.Close()
	}
	return nil
}

// Create starts a new file for operation (see [jsonl.SanitizeOperation])
// and returns its Writer. Its handle is [jsonl.Writer.Name]; in a folder,
// [jsonl.Writer.Path] is its path. The file becomes readable, whole, when
// Commit returns nil; defer Abort right after Create, as for
// [jsonl.Create].
//
// In a bucket, ctx governs the upload: canceling it before Commit aborts
// the write. Create returns the errors of [jsonl.Create] and, for a bucket,
// of [blob.Bucket.NewWriter].
func (s *Store) Create(ctx context.Context, operation string) (*jsonl.Writer, error) {
	opts := &jsonl.Options{Dir: s.dir, Prefix: s.prefix, Now: s.now, WrapWriter: s.wrap, Random: true}
	if s.bucket == nil {
		return jsonl.Create(operation, opts)
	}
	return jsonl.NewWriter(operation, func(name string) (jsonl.Sink, error) {
		ctx, cancel := context.WithCancel(ctx)
		w, err := s.bucket.NewWriter(ctx, name, &blob.WriterOptions{
			BufferSize:     s.partSize,
			MaxConcurrency: 1,
			ContentType:    ContentType,
		})
		if err != nil {
			cancel()
			return nil, fmt.Errorf("store: %s: %w", name, err)
		}
		return &blobSink{w: w, cancel: cancel, name: name}, nil
	}, opts)
}

// blobSink is the jsonl.Sink of a blob writer: Close shows the object,
// Close after the context is canceled discards it.
type blobSink struct {
	w      *blob.Writer
	cancel context.CancelFunc
	name   string
}

func (b *blobSink) Write(p []byte) (int, error) { return b.w.Write(p) }

func (b *blobSink) Commit() error {
	defer b.cancel()
	if err := b.w.Close(); err != nil {
		return fmt.Errorf("store: %s: %w", b.name, err)
	}
	return nil
}

func (b *blobSink) Abort() error {
	b.cancel()
	b.w.Close() // fails with the cancellation: nothing is written
	return nil
}
