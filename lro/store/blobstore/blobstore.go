// Package blobstore lets package [github.com/zircote/lro-go/lro/store] keep
// offloaded files in a bucket of gocloud.dev/blob: S3 and S3-compatible
// servers, GCS, Azure Blob Storage, a folder (fileblob) or memory (memblob).
//
// Importing it makes [store.Open] (and a server's storage setting) accept
// bucket URLs:
//
//	import (
//		_ "github.com/zircote/lro-go/lro/store/blobstore"
//		_ "gocloud.dev/blob/s3blob" // the driver of each scheme the program opens
//	)
//
//	st, err := store.Open(ctx, "s3://bucket?region=us-east-1", nil)
//
// Each write uploads one part of 5 MiB (the smallest S3 accepts) at a time.
package blobstore

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"

	"github.com/zircote/lro-go/internal/bucketurl"
	"github.com/zircote/lro-go/lro/store"
)

const partSize = 5 << 20

func init() { bucketurl.Register(open) }

// drivers names the package to import for the URL schemes of the drivers
// of gocloud.dev/blob.
var drivers = map[string]string{
	"s3":     "gocloud.dev/blob/s3blob",
	"gs":     "gocloud.dev/blob/gcsblob",
	"azblob": "gocloud.dev/blob/azureblob",
	"file":   "gocloud.dev/blob/fileblob",
	"mem":    "gocloud.dev/blob/memblob",
}

// open is the opener of [store.Open]: it opens the bucket of url with
// [blob.OpenBucket]. For a scheme without a registered driver, it returns
// an error that names the import to add.
func open(ctx context.Context, url string) (any, error) {
	scheme, _, _ := strings.Cut(url, "://")
	if !blob.DefaultURLMux().ValidBucketScheme(scheme) {
		hint := "no driver of gocloud.dev/blob has this scheme"
		if pkg, ok := drivers[scheme]; ok {
			hint = fmt.Sprintf("add import _ %q to the program", pkg)
		}
		return nil, fmt.Errorf("store: bucket URL %s: no driver registered for %q (%s)", url, scheme, hint)
	}
	b, err := blob.OpenBucket(ctx, url)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	return New(b), nil
}

// New returns b as a [store.Bucket]: the caller of [store.NewBucket]
// closes b after the Store's last use.
func New(b *blob.Bucket) store.Bucket { return bucket{b} }

// bucket adapts a *blob.Bucket to store.Bucket.
type bucket struct{ b *blob.Bucket }

// expiresKey is the metadata key of an object's expiry (x-amz-meta-lro-expires
// in S3), RFC 3339 with nanoseconds.
const expiresKey = "lro-expires"

func (b bucket) NewWriter(ctx context.Context, key, contentType string, expires time.Time) (io.WriteCloser, error) {
	opts := &blob.WriterOptions{
		BufferSize:     partSize,
		MaxConcurrency: 1,
		ContentType:    contentType,
	}
	if !expires.IsZero() {
		opts.Metadata = map[string]string{expiresKey: expires.UTC().Format(time.RFC3339Nano)}
	}
	return b.b.NewWriter(ctx, key, opts)
}

func (b bucket) Expiry(ctx context.Context, key string) (time.Time, error) {
	a, err := b.b.Attributes(ctx, key)
	if err != nil {
		return time.Time{}, notExist(err)
	}
	v, ok := a.Metadata[expiresKey]
	if !ok {
		return time.Time{}, nil // written before expiries were recorded
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("store: object %q: metadata %s: %w", key, expiresKey, err)
	}
	return t, nil
}

func (b bucket) NewRangeReader(ctx context.Context, key string, offset, length int64) (io.ReadCloser, int64, error) {
	r, err := b.b.NewRangeReader(ctx, key, offset, length, nil)
	if err != nil {
		return nil, 0, notExist(err)
	}
	return r, r.Size(), nil
}

func (b bucket) List(ctx context.Context, prefix string, fn func(key string) error) error {
	// A listing fails when an object it found goes before it is read
	// (other replicas sweep too): it starts again after the last key seen
	// (blob lists in lexicographical order), a bounded number of times.
	last, seen := "", false
	for attempt := 1; ; attempt++ {
		it := b.b.List(&blob.ListOptions{Prefix: prefix, Delimiter: "/"})
		obj, err := it.Next(ctx)
		for ; err == nil; obj, err = it.Next(ctx) {
			if obj.IsDir || seen && obj.Key <= last {
				continue
			}
			last, seen = obj.Key, true
			if err := fn(obj.Key); err != nil {
				return err
			}
		}
		if err == io.EOF {
			return nil
		}
		if gcerrors.Code(err) != gcerrors.NotFound || attempt > maxListRestarts {
			return err
		}
	}
}

const maxListRestarts = 10

func (b bucket) Delete(ctx context.Context, key string) error {
	return notExist(b.b.Delete(ctx, key))
}

// Close closes the bucket: [store.Store.Close] calls it for a bucket that
// [store.Open] opened.
func (b bucket) Close() error { return b.b.Close() }

// notExist returns err, wrapping fs.ErrNotExist too if it says that an
// object does not exist.
func notExist(err error) error {
	if err != nil && gcerrors.Code(err) == gcerrors.NotFound {
		return fmt.Errorf("%w (%w)", fs.ErrNotExist, err)
	}
	return err
}
