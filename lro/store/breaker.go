package store

import (
	"fmt"
	"sync"
	"time"
)

// The circuit breaker of a bucket's writes: after breakerFailures failed
// writes in a row, writes fail at once for breakerBackoff; then one write
// (the probe) tries the bucket while the others still fail at once. A
// probe that succeeds closes the breaker; one that fails opens it again
// for twice as long, up to breakerMaxBackoff.
const (
	breakerFailures   = 3
	breakerBackoff    = 5 * time.Second
	breakerMaxBackoff = 2 * time.Minute
)

// breaker is the state of a Store's circuit breaker; its methods take the
// time, so that tests choose it. Safe for concurrent use.
type breaker struct {
	mu       sync.Mutex
	failures int           // failed writes in a row
	until    time.Time     // open until then; zero when closed
	backoff  time.Duration // how long it was opened for last
	probing  bool          // a probe is in flight
	err      error         // the last failure
}

// allow reports whether a write may try the bucket at now, and whether it
// is the probe, or returns the error that the write fails with at once.
func (b *breaker) allow(now time.Time) (probe bool, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.until.IsZero():
		return false, nil
	case !b.probing && !now.Before(b.until):
		b.probing = true
		return true, nil
	}
	return false, fmt.Errorf("store: the bucket is unavailable after %d failed writes in a row, not tried again before %s: %w",
		b.failures, b.until.UTC().Format(time.RFC3339), b.err)
}

// done records the outcome of a write that allow let through, err nil for
// a success, at now. It reports whether the breaker opened, and how.
func (b *breaker) done(now time.Time, probe bool, err error) (opened bool, failures int, until time.Time) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if probe {
		b.probing = false
	}
	if err == nil {
		b.failures, b.until, b.backoff, b.err = 0, time.Time{}, 0, nil
		return false, 0, time.Time{}
	}
	b.failures++
	b.err = err
	switch {
	case probe && !b.until.IsZero(): // not closed meanwhile by another write
		b.backoff = min(2*b.backoff, breakerMaxBackoff)
	case b.until.IsZero() && b.failures >= breakerFailures:
		b.backoff = breakerBackoff
	default:
		return false, b.failures, b.until // closed, or already open
	}
	b.until = now.Add(b.backoff)
	return true, b.failures, b.until
}

// release ends a probe that gave no verdict (a write abandoned by its
// caller): the next write probes instead.
func (b *breaker) release(probe bool) {
	if !probe {
		return
	}
	b.mu.Lock()
	b.probing = false
	b.mu.Unlock()
}
