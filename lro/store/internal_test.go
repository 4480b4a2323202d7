package store

import (
	"errors"
	"testing"
	"time"
)

// TestBreakerProbeAfterClose checks a probe that fails after the breaker
// closed meanwhile (a write let through before it opened succeeded while
// the probe was under way): the failure is the first of a closed breaker,
// which it does not open; it did open it, with a backoff of zero, so that
// every other write failed at once while one probed, after a single failure.
func TestBreakerProbeAfterClose(t *testing.T) {
	var b breaker
	now := time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC)
	down := errors.New("connection refused")
	for range 4 { // four writes start while the bucket answers
		if _, err := b.allow(now); err != nil {
			t.Fatal(err)
		}
	}
	for range 3 { // three fail: open
		b.done(now, false, down)
	}
	now = now.Add(breakerBackoff)
	probe, err := b.allow(now)
	if err != nil || !probe {
		t.Fatalf("after the backoff: probe %v, error %v; want the probe", probe, err)
	}
	b.done(now, false, nil) // the fourth succeeds: closed
	if opened, failures, _ := b.done(now, true, down); opened {
		t.Errorf("the probe failed after the breaker closed: it opened again after %d failure", failures)
	}
	for i := range 2 {
		if _, err := b.allow(now); err != nil {
			t.Errorf("write %d after one failure of a closed breaker: %v", i, err)
		}
	}
}

// TestNewBucketNil checks that a nil Bucket is refused: NewBucket made of
// it a Store of the folder "", which wrote into the system temp folder and
// read no handle back (os.OpenRoot of "" fails).
func TestNewBucketNil(t *testing.T) {
	if s, err := NewBucket(nil, nil); err == nil {
		t.Errorf("NewBucket(nil, nil) = a Store of folder %q, bucket %v; want an error", s.Dir(), s.Bucket())
	}
}
