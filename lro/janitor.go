package lro

import (
	"context"

	"github.com/zircote/lro-go/cleanup"
	"github.com/zircote/lro-go/internal/sweeper"
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
// or store if it does not run (package internal/sweeper).
func (c *config) startSweeper() {
	if c.CleanupInterval < 0 || !c.realClock || testhook.Get(c.Store).Now != nil {
		return
	}
	sweeper.Offloaded(c.janitorOptions())
}
