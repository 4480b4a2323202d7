package lro

import (
	"context"

	"github.com/zircote/lro-go/cleanup"
)

// CleanupOptions returns the options of a [cleanup.Janitor] that deletes the
// files written with opts: the same folder, prefix, TTL, observer and clock,
// and [Options.CleanupInterval]. Use it to set what lro does not know, such
// as [cleanup.Options.OnError]; [StartJanitor] is the one-line form.
// CleanupOptions fails for options that [Options.Validate] rejects.
func (opts *Options) CleanupOptions() (*cleanup.Options, error) {
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	return &cleanup.Options{
		Dir:      c.dir,
		Prefix:   c.Prefix,
		TTL:      c.TTL,
		Interval: c.CleanupInterval,
		Observer: c.Observer,
		Now:      c.Now,
	}, nil
}

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
// One janitor serves every tool that shares the folder and prefix, whatever
// their per-tool overrides. Errors of background sweeps (a file another user
// owns, say) are dropped; to see them, build the janitor from
// [Options.CleanupOptions] with [cleanup.Options.OnError] set.
func StartJanitor(ctx context.Context, opts *Options) (*cleanup.Janitor, error) {
	co, err := opts.CleanupOptions()
	if err != nil {
		return nil, err
	}
	return cleanup.Start(ctx, co)
}
