package lro

import (
	"context"
	"sync"
	"time"

	"github.com/zircote/lro-go/cleanup"
	"github.com/zircote/lro-go/internal/expiry"
	"github.com/zircote/lro-go/internal/testhook"
	"github.com/zircote/lro-go/lro/event"
)

// StartJanitor starts the specification's offload_cleanup task for the files
// written with opts: it sweeps the output folder (or the Store's folder or
// bucket) at once and then every [Options.CleanupInterval], deleting the
// files whose TTL has passed (see package cleanup) and emitting an
// event.FileExpired for each through opts.Observer, until ctx is canceled
// or the janitor is closed. A server does not need it, since the first
// offload starts a sweeper: StartJanitor is for one that wants the sweeps
// to start before any offload (to delete what an earlier run left) or to
// stop them with ctx. Errors of background sweeps are dropped (package
// cleanup reports them). StartJanitor fails for options that
// [Options.Validate] rejects.
func StartJanitor(ctx context.Context, opts *Options) (*cleanup.Janitor, error) {
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	return cleanup.Start(ctx, c.janitorOptions())
}

// janitorOptions are the options of a janitor of c's files.
func (c *config) janitorOptions() *cleanup.Options {
	o := &cleanup.Options{
		Dir:      c.dir,
		Prefix:   c.Prefix,
		TTL:      c.TTL,
		Interval: max(c.CleanupInterval, 0), // negative: the sweeper is off
		Observer: c.observer,
	}
	if !c.realClock {
		testhook.Set(o, testhook.Hooks{Now: c.now})
	}
	if c.Store != nil {
		o.Bucket = c.Store.Bucket() // nil for a folder
	}
	return o
}

// The automatic sweepers: one per folder (or bucket) and prefix in the
// process, started by the first offload there (see
// [Options.CleanupInterval]). A sweeper stops once a sweep leaves no file
// and nothing was offloaded during it, leaving no goroutine. It runs on the
// system's clock: options with a clock of their own (a test's) start none.
var sweepers = struct {
	sync.Mutex
	m map[sweepKey]*sweeper
}{m: map[sweepKey]*sweeper{}}

// sweepKey names what a sweeper sweeps.
type sweepKey struct {
	dir    string
	bucket any
	prefix string
}

// sweeper is the state of one automatic sweeper; sweepers' mutex guards it.
type sweeper struct {
	running bool // its goroutine runs
	fresh   bool // a file was offloaded since its last sweep began
}

// minSweepWait is the shortest wait between two sweeps of a sweeper, so
// that a file whose expiry is near does not make it spin.
const minSweepWait = time.Second

// sweepOnOffload is the Observer that the pipeline is given: it passes every
// event on to the Observer of the options, and starts the sweeper of c's
// folder or store on an offload.
type sweepOnOffload struct{ c *config }

func (s sweepOnOffload) Observe(ctx context.Context, e event.Event) {
	if _, ok := e.(event.Offloaded); ok {
		s.c.startSweeper()
	}
	if s.c.observer != nil {
		s.c.observer.Observe(ctx, e)
	}
}

// startSweeper notes an offload with c, starting the sweeper of its folder
// or store if it does not run.
func (c *config) startSweeper() {
	if c.CleanupInterval < 0 || !c.realClock {
		return
	}
	o := c.janitorOptions()
	k := sweepKey{dir: o.Dir, bucket: o.Bucket, prefix: o.Prefix}
	sweepers.Lock()
	defer sweepers.Unlock()
	s := sweepers.m[k]
	if s == nil {
		s = &sweeper{}
		sweepers.m[k] = s
	}
	s.fresh = true
	if s.running {
		return
	}
	j, err := cleanup.New(o)
	if err != nil {
		return // options that newConfig accepted: not expected
	}
	s.running = true
	go s.run(j, o)
}

// run sweeps at once, and again as long as files are left.
func (s *sweeper) run(j *cleanup.Janitor, o *cleanup.Options) {
	for wait := time.Duration(0); ; {
		time.Sleep(wait)
		sweepers.Lock()
		s.fresh = false
		sweepers.Unlock()
		now := time.Now()
		res, _ := j.Sweep(context.Background(), now)
		sweepers.Lock()
		if !s.fresh && res.Kept == 0 && res.InUse == 0 {
			s.running = false
			sweepers.Unlock()
			return
		}
		sweepers.Unlock()
		wait = o.Interval
		if !res.NextExpiry.IsZero() {
			next := res.NextExpiry
			if o.Bucket != nil {
				next = next.Add(expiry.SkewMargin)
			}
			wait = min(wait, max(next.Sub(now), minSweepWait))
		}
	}
}
