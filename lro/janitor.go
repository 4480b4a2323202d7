package lro

import (
	"context"

	"github.com/zircote/lro-go/cleanup"
)

// StartJanitor starts the specification's offload_cleanup task for the files
// that [Wrap], [AddTool] and [Middleware] write with opts: it sweeps the
// output folder at once and then every [Options.CleanupInterval], deleting
// the files whose TTL has passed and emitting an event.FileExpired for each
// through opts.Observer, until ctx is canceled or the janitor is closed. It
// also deletes the temporary files that a process which died while writing
// left behind but, where the system has flock(2), never the file of a write
// still under way, however long it takes and however short the TTL
// (elsewhere, none younger than the TTL plus a day; see package cleanup):
//
//	j, err := lro.StartJanitor(ctx, opts)
//	if err != nil {
//		return err
//	}
//	defer j.Close()
//
// With [Options.Store], it sweeps the Store's folder or bucket, with the
// Store's prefix and TTL. Every replica of a server may sweep a shared
// bucket at once: none deletes an object that is still fresh by the clock
// of another replica within a minute, and an object that
// another replica deleted first is no error (see package cleanup,
// "Buckets", also for the bucket lifecycle rule that can replace the
// sweeps).
//
// It is the one way to start the janitor of a server built with this
// package: the folder, prefix and TTL come from the options the files are
// written with (and that [LoadOptions] reads), so the two cannot disagree.
// One janitor serves every tool that shares the folder and prefix, whatever
// their per-tool overrides. Errors of background sweeps (a file another user
// owns, say) are dropped. A server that wants them, or sweeps on its own
// schedule, uses package cleanup directly with the same OutputDir, Prefix and
// TTL: a zero value means the same default in both packages.
//
// StartJanitor fails for options that [Options.Validate] rejects.
func StartJanitor(ctx context.Context, opts *Options) (*cleanup.Janitor, error) {
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	o := &cleanup.Options{
		Dir:      c.dir,
		Prefix:   c.Prefix,
		TTL:      c.TTL,
		Interval: c.CleanupInterval,
		Observer: c.Observer,
		Now:      c.Now,
	}
	if c.Store != nil && c.Store.Bucket() != nil {
		o.Bucket = c.Store.Bucket()
	}
	return cleanup.Start(ctx, o)
}
