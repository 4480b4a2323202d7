package lro

import (
	"context"

	"github.com/zircote/lro-go/cleanup"
	"github.com/zircote/lro-go/lro/event"
	"github.com/zircote/lro-go/lro/internal/janitor"
)

// janitorOptions are the options of a janitor of c's files.
func (c *config) janitorOptions() *cleanup.Options {
	o := &cleanup.Options{
		Dir:    c.dir,
		Prefix: c.Prefix,
		TTL:    c.TTL,
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
// does not run: one that waits at most CleanupInterval between two sweeps.
func (c *config) startJanitor() {
	if c.CleanupInterval < 0 {
		return // the automatic janitor is off
	}
	janitor.Offloaded(c.janitorOptions(), c.CleanupInterval)
}
