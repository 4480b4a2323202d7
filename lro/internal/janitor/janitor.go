// Package janitor runs the automatic janitors of offloaded files: one per
// folder (or bucket) and prefix in the process, started by an offload there,
// each a [cleanup.Janitor] that sweeps when a file may be due. An automatic
// janitor stops once a sweep succeeds, leaves no file and nothing was
// offloaded during it; after a failed sweep (or one stopped after the
// interval, as one of a bucket that does not answer) it tries again. It runs on the
// system's clock (time.Now): a test whose files are written on a clock of
// its own turns it off (a negative CleanupInterval).
package janitor

import (
	"context"
	"sync"
	"time"

	"github.com/zircote/lro-go/cleanup"
	"github.com/zircote/lro-go/lro/event"
)

var janitors = struct {
	sync.Mutex
	m map[key]*state
}{m: map[key]*state{}}

// key names what an automatic janitor sweeps.
type key struct {
	dir    string
	bucket any
	prefix string
}

// state is the state of one automatic janitor; janitors' mutex guards it.
type state struct {
	running bool // its goroutine runs
	fresh   bool // a file was offloaded since its last sweep began
}

// minWait is the shortest wait between two sweeps of a janitor, so that a
// file whose expiry is near does not make it spin.
const minWait = time.Second

// minSweep is the shortest time a sweep may take before it is stopped (it
// may take the interval between two sweeps): a bucket whose List or Delete
// stalls fails that sweep, and the janitor tries again, instead of waiting
// for good.
const minSweep = time.Minute

// Offloaded notes an offload to the folder or bucket of o, starting its
// automatic janitor, with o and interval, if it does not run: interval is
// the longest wait between two sweeps. A nil o or a negative interval means
// the automatic janitor is off: Offloaded does nothing.
func Offloaded(o *cleanup.Options, interval time.Duration) {
	if o == nil || interval < 0 {
		return
	}
	k := key{dir: o.Dir, bucket: o.Bucket, prefix: o.Prefix}
	janitors.Lock()
	defer janitors.Unlock()
	s := janitors.m[k]
	if s == nil {
		s = &state{}
		janitors.m[k] = s
	}
	s.fresh = true
	if s.running {
		return
	}
	j, err := cleanup.New(o)
	if err != nil {
		return // options that the caller's validation accepted: not expected
	}
	s.running = true
	go s.run(j, interval)
}

// run sweeps at once, and again as long as files are left or a sweep
// fails (a file it could not delete is not counted as left), waiting at
// most interval between two sweeps.
func (s *state) run(j *cleanup.Janitor, interval time.Duration) {
	for wait := time.Duration(0); ; {
		time.Sleep(wait)
		janitors.Lock()
		s.fresh = false
		janitors.Unlock()
		now := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), max(interval, minSweep))
		res, err := j.Sweep(ctx, now)
		cancel()
		janitors.Lock()
		if err == nil && !s.fresh && res.Kept == 0 {
			s.running = false
			janitors.Unlock()
			return
		}
		janitors.Unlock()
		wait = interval
		if !res.NextExpiry.IsZero() { // a bucket's skew margin included
			wait = min(wait, max(res.NextExpiry.Sub(now), minWait))
		}
	}
}

// OnExpired returns the [cleanup.Options.OnExpired] that passes each
// deleted file on to obs as an [event.FileExpired]; nil if obs is nil.
func OnExpired(obs event.Observer) func(context.Context, string, time.Time, bool) {
	if obs == nil {
		return nil
	}
	return func(ctx context.Context, path string, created time.Time, temporary bool) {
		obs.Observe(ctx, event.FileExpired{Path: path, CreatedAt: created, Temporary: temporary})
	}
}

// Observer is the Observer of an offload pipeline: it passes every event on
// to Next, if not nil, and on an offload starts the automatic janitor with
// Options and Interval (see [Offloaded]).
type Observer struct {
	Options  *cleanup.Options
	Interval time.Duration
	Next     event.Observer
}

// Observe implements event.Observer.
func (o Observer) Observe(ctx context.Context, e event.Event) {
	if _, ok := e.(event.Offloaded); ok {
		Offloaded(o.Options, o.Interval)
	}
	if o.Next != nil {
		o.Next.Observe(ctx, e)
	}
}
