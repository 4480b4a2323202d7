package cleanup_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/oklog/ulid/v2"
	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"
	"gocloud.dev/gcerrors"

	"github.com/zircote/lro-go/cleanup"
	"github.com/zircote/lro-go/internal/disk"
)

// blobBucket is a [cleanup.Bucket] over a gocloud.dev bucket. lro/store/blobstore
// has the product's; cleanup's tests keep their own, so that no import, test
// ones included, runs from cleanup/ back to lro/.
type blobBucket struct{ b *blob.Bucket }

func (b blobBucket) List(ctx context.Context, prefix string, fn func(key string) error) error {
	it := b.b.List(&blob.ListOptions{Prefix: prefix, Delimiter: "/"})
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if !obj.IsDir {
			if err := fn(obj.Key); err != nil {
				return err
			}
		}
	}
}

func (b blobBucket) Delete(ctx context.Context, key string) error {
	err := b.b.Delete(ctx, key)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return fmt.Errorf("%w (%w)", fs.ErrNotExist, err)
	}
	return err
}

// Expiry returns the zero time: the objects put here record none.
func (b blobBucket) Expiry(ctx context.Context, key string) (time.Time, error) {
	return time.Time{}, nil
}

// put writes an empty object named key into b.
func put(t testing.TB, b *blob.Bucket, key string) string {
	t.Helper()
	if err := b.WriteAll(context.Background(), key, nil, nil); err != nil {
		t.Fatal(err)
	}
	return key
}

// keys returns every key in b.
func keys(t testing.TB, b *blob.Bucket) []string {
	t.Helper()
	var got []string
	it := b.List(nil)
	for {
		obj, err := it.Next(context.Background())
		if err != nil {
			break
		}
		got = append(got, obj.Key)
	}
	return got
}

// idAt returns a new ULID of time at.
func idAt(at time.Time) ulid.ULID { return ulid.MustNew(ulid.Timestamp(at), rand.Reader) }

// TestSweepBucket sweeps a bucket with three janitors at once, as three
// replicas would: every expired object is deleted and reported once, and
// nothing else is touched.
func TestSweepBucket(t *testing.T) {
	const expired, janitors = 60, 3
	b := memblob.OpenBucket(nil)
	defer b.Close()
	ttl := cleanup.DefaultTTL
	var want []string
	for i := range expired {
		want = append(want, put(t, b, nameAt(t0.Add(-ttl-cleanup.SkewMargin-time.Duration(i)*time.Millisecond))))
	}
	kept := []string{
		put(t, b, nameAt(t0)),           // fresh
		put(t, b, nameAt(t0.Add(-ttl))), // expired as a handle, but within the skew margin
		put(t, b, nameAt(t0.Add(-ttl-cleanup.SkewMargin+time.Millisecond))), // one millisecond short of the margin
		put(t, b, disk.Name("other", "recall", idAt(t0.Add(-2*ttl)))),       // another prefix
		put(t, b, "atlatl-x/"+nameAt(t0.Add(-2*ttl))),                       // a "subfolder" of the prefix
		put(t, b, "atlatl-notes.txt"),                                       // not an offload name
	}
	rec := &recorder{}
	results := make([]cleanup.Result, janitors)
	// No sweep deletes before all have listed: each one finds every
	// object it deletes already deleted by the others.
	var listed sync.WaitGroup
	listed.Add(janitors)
	var wg sync.WaitGroup
	for i := range janitors {
		j, err := cleanup.New(&cleanup.Options{Bucket: blobBucket{b}, OnExpired: rec.OnExpired, TTL: ttl})
		if err != nil {
			t.Fatal(err)
		}
		var once sync.Once
		cleanup.SetBeforeRemove(j, func(string) {
			once.Do(func() { listed.Done(); listed.Wait() })
		})
		wg.Go(func() {
			var err error
			if results[i], err = j.Sweep(context.Background(), t0); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()

	var deleted, vanished int
	for _, r := range results {
		deleted += r.Expired
		vanished += cleanup.CountsOf(r).Vanished
		if r.Kept != 3 || !r.NextExpiry.Equal(t0.Add(time.Millisecond)) {
			t.Errorf("a sweep kept %d with next expiry %v; want 3 and %v: %+v", r.Kept, r.NextExpiry, t0.Add(time.Millisecond), r)
		}
	}
	var got []string
	for _, e := range rec.got() {
		got = append(got, e.Path)
		if e.Temporary {
			t.Errorf("expired %+v: want it not temporary", e)
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if diff := cmp.Diff(want, got); diff != "" || deleted != expired || vanished != expired*(janitors-1) {
		t.Errorf("%d deleted, %d vanished (want %d, %d); events (-want +got):\n%s", deleted, vanished, expired, expired*(janitors-1), diff)
	}
	slices.Sort(kept)
	if diff := cmp.Diff(kept, keys(t, b)); diff != "" {
		t.Errorf("bucket after the sweeps (-want +got):\n%s", diff)
	}
}

// TestSweepBucketErrors checks that a canceled sweep deletes nothing and that
// a bucket that cannot be listed is an error.
func TestSweepBucketErrors(t *testing.T) {
	b := memblob.OpenBucket(nil)
	defer b.Close()
	old := put(t, b, nameAt(t0.Add(-3*time.Hour)))
	j, err := cleanup.New(&cleanup.Options{Bucket: blobBucket{b}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if res, err := j.Sweep(ctx, t0); !errors.Is(err, context.Canceled) || res.Expired != 0 {
		t.Errorf("canceled Sweep = %+v, %v; want context.Canceled and nothing deleted", res, err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Sweep(context.Background(), t0); err == nil {
		t.Errorf("Sweep of a closed bucket succeeded; want the listing error (the object %s is still listed)", old)
	}
}

// TestSweepBucketDeletedMeanwhile deletes an object between the listing and
// the janitor's delete, as another replica's sweep would.
func TestSweepBucketDeletedMeanwhile(t *testing.T) {
	b := memblob.OpenBucket(nil)
	defer b.Close()
	key := put(t, b, nameAt(t0.Add(-3*time.Hour)))
	j, err := cleanup.New(&cleanup.Options{Bucket: blobBucket{b}})
	if err != nil {
		t.Fatal(err)
	}
	cleanup.SetBeforeRemove(j, func(name string) {
		if err := b.Delete(context.Background(), name); err != nil {
			t.Error(err)
		}
	})
	res, err := j.Sweep(context.Background(), t0)
	if err != nil || cleanup.CountsOf(res).Vanished != 1 || res.Expired != 0 {
		t.Errorf("Sweep = %+v, %v; want %s vanished, no error", res, err, key)
	}
}
