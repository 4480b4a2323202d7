package lro

import (
	"context"

	"github.com/zircote/lro-go/cleanup"
	"github.com/zircote/lro-go/lro/event"
	"github.com/zircote/lro-go/lro/internal/janitor"
)

// StartJanitor starts the specification's offload_cleanup task for the files
// written with opts: it sweeps the output folder (or the Store) at once and
// then every [Options.CleanupInterval] until ctx is canceled or the janitor
// is closed. The first offload starts the automatic janitor anyway:
// StartJanitor is for sweeps before any offload, or stopped with ctx. It
// fails for options that [Options.Validate] rejects.
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
		Interval: max(c.CleanupInterval, 0), // negative: the automatic janitor is off
		// The Observer receives an event.FileExpired per deleted file.
		OnExpired: janitor.OnExpired(c.observer),
	}
	if c.Store != nil {
		o.Bucket = c.Store.Bucket() // nil for a folder
	}
	return o
}

// sweepOnOffload is the pipeline's Observer: it passes every event on to
// the options' Observer, and starts the automatic janitor of c's files on an
// offload.
type sweepOnOffload struct{ c *config }

func (s sweepOnOffload) Observe(ctx context.Context, e event.Event) {
	if _, ok := e.(event.Offloaded); ok {
		s.c.startJanitor()
	}
	if s.c.observer != nil {
		s.c.observer.Observe(ctx, e)
	}
}

// startJanitor notes an offload with c, starting its automatic janitor if it
// does not run.
func (c *config) startJanitor() {
	if c.CleanupInterval < 0 {
		return
	}
	janitor.Offloaded(c.janitorOptions())
}
