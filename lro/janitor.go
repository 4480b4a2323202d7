package lro

import (
	"github.com/zircote/lro-go/cleanup"
	"github.com/zircote/lro-go/lro/internal/janitor"
)

// setJanitor sets the options of the janitor of c's files, whose
// OnExpired gives the Observer an event.FileExpired per deleted file, and
// makes c's Observer the pipeline's: it passes every event on to the
// options' Observer and starts the automatic janitor on an offload, one that
// waits at most CleanupInterval between two sweeps (none if negative).
func (c *config) setJanitor() {
	c.sweep = &cleanup.Options{Dir: c.dir, Prefix: c.Prefix, TTL: c.TTL, OnExpired: janitor.OnExpired(c.Observer)}
	if c.Store != nil {
		c.sweep.Bucket = c.Store.Bucket() // nil for a folder
	}
	c.Observer = janitor.Observer{Options: c.sweep, Interval: c.CleanupInterval, Next: c.Observer}
}
