package janitor

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/oklog/ulid/v2"

	"github.com/zircote/lro-go/cleanup"
	"github.com/zircote/lro-go/internal/disk"
	"github.com/zircote/lro-go/internal/spec"
	"github.com/zircote/lro-go/lro/event"
)

// flakyBucket is a bucket of objects in memory whose first failDeletes
// deletes fail.
type flakyBucket struct {
	mu          sync.Mutex
	keys        map[string]bool
	failDeletes int
}

func (b *flakyBucket) List(_ context.Context, _ string, fn func(key string) error) error {
	b.mu.Lock()
	var keys []string
	for k := range b.keys {
		keys = append(keys, k)
	}
	b.mu.Unlock()
	for _, k := range keys {
		if err := fn(k); err != nil {
			return err
		}
	}
	return nil
}

func (b *flakyBucket) Delete(_ context.Context, key string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.failDeletes > 0 {
		b.failDeletes--
		return errors.New("the bucket is unavailable")
	}
	delete(b.keys, key)
	return nil
}

func (b *flakyBucket) Expiry(context.Context, string) (time.Time, error) { return time.Time{}, nil }

func (b *flakyBucket) has(key string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.keys[key]
}

// TestJanitorRetriesAFailedSweep checks that an automatic janitor whose sweep could not
// delete an expired file does not stop, as it does when nothing is left, but
// sweeps again and deletes the file.
func TestJanitorRetriesAFailedSweep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const ttl, interval = time.Minute, 10 * time.Minute
		name := disk.Name("sweeptest", "op", ulid.MustNew(ulid.Timestamp(time.Now()), ulid.DefaultEntropy()))
		b := &flakyBucket{keys: map[string]bool{name: true}, failDeletes: 1}
		Offloaded(&cleanup.Options{Bucket: b, Prefix: "sweeptest", TTL: ttl}, interval)

		// The first sweeps keep the file until its TTL and the bucket's skew
		// margin have passed; the first delete then fails.
		time.Sleep(ttl + 3*time.Minute)
		synctest.Wait()
		if !b.has(name) {
			t.Fatal("the file was deleted although its delete failed")
		}
		time.Sleep(interval)
		synctest.Wait()
		if b.has(name) {
			t.Errorf("%s is still in the bucket one interval after a failed delete: the janitor stopped", name)
		}
		janitors.Lock()
		running := janitors.m[key{bucket: b, prefix: "sweeptest"}].running
		janitors.Unlock()
		if running {
			t.Error("the janitor still runs with nothing left to delete")
		}
	})
}

// stallingBucket is a flakyBucket whose first List waits until its context
// is done, as a call to an unreachable bucket does.
type stallingBucket struct {
	flakyBucket
	stalled bool
}

func (b *stallingBucket) List(ctx context.Context, prefix string, fn func(key string) error) error {
	b.mu.Lock()
	stall := !b.stalled
	b.stalled = true
	b.mu.Unlock()
	if stall {
		<-ctx.Done()
		return ctx.Err()
	}
	return b.flakyBucket.List(ctx, prefix, fn)
}

// TestJanitorStopsAStalledSweep checks that a sweep whose bucket does not
// answer is stopped after the interval, and the janitor sweeps again and
// deletes the expired object, instead of waiting for the bucket for good.
func TestJanitorStopsAStalledSweep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const ttl, interval = time.Minute, 10 * time.Minute
		name := disk.Name("sweepstall", "op", ulid.MustNew(ulid.Timestamp(time.Now()), ulid.DefaultEntropy()))
		b := &stallingBucket{flakyBucket: flakyBucket{keys: map[string]bool{name: true}}}
		Offloaded(&cleanup.Options{Bucket: b, Prefix: "sweepstall", TTL: ttl}, interval)
		time.Sleep(3 * interval)
		synctest.Wait()
		if b.has(name) {
			t.Errorf("%s is still in the bucket three intervals after a sweep stalled: the janitor waits for the bucket for good", name)
		}
	})
}

// TestJanitorWaitsForTheNextExpiry checks that an automatic janitor deletes a bucket's
// object when the sweep that kept it said it would be due (its TTL plus the
// skew margin, which NextExpiry includes), not a margin later.
func TestJanitorWaitsForTheNextExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const ttl, interval = time.Minute, time.Hour
		name := disk.Name("sweepwait", "op", ulid.MustNew(ulid.Timestamp(time.Now()), ulid.DefaultEntropy()))
		b := &flakyBucket{keys: map[string]bool{name: true}}
		Offloaded(&cleanup.Options{Bucket: b, Prefix: "sweepwait", TTL: ttl}, interval)
		time.Sleep(ttl + disk.SkewMargin - time.Second)
		synctest.Wait()
		if !b.has(name) {
			t.Fatal("the object was deleted before its TTL and the skew margin passed")
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if b.has(name) {
			t.Errorf("%s is still in the bucket a second after its TTL and the skew margin passed", name)
		}
		time.Sleep(interval) // until the janitor stops
	})
}

// TestDefaultInterval checks the longest wait between two sweeps of an
// automatic janitor whose server sets no CleanupInterval.
func TestDefaultInterval(t *testing.T) {
	if spec.DefaultInterval != time.Hour {
		t.Errorf("spec.DefaultInterval = %v; the specification says every hour", spec.DefaultInterval)
	}
}

// TestOnExpired checks the adapter of cleanup's OnExpired to an Observer:
// none without an Observer, else one event.FileExpired per call.
func TestOnExpired(t *testing.T) {
	if f := OnExpired(nil); f != nil {
		t.Error("OnExpired(nil) is not nil")
	}
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	var got events
	f := OnExpired(&got)
	f(context.Background(), "/a.jsonl", t0, false)
	f(context.Background(), "b.jsonl", t0.Add(time.Second), true)
	want := []event.Event{
		event.FileExpired{Path: "/a.jsonl", CreatedAt: t0},
		event.FileExpired{Path: "b.jsonl", CreatedAt: t0.Add(time.Second), Temporary: true},
	}
	if diff := cmp.Diff(want, []event.Event(got)); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// events is an Observer that keeps every event (not safe for concurrent use).
type events []event.Event

func (es *events) Observe(_ context.Context, e event.Event) { *es = append(*es, e) }
