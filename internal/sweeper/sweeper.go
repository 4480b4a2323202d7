// Package sweeper runs the automatic sweepers of offloaded files: one per
// folder (or bucket) and prefix in the process, started by an offload there.
// A sweeper stops once a sweep succeeds, leaves no file and nothing was
// offloaded during it; after a failed sweep it tries again. It runs on the
// system's clock: callers with a test's clock start none.
package sweeper

import (
	"context"
	"sync"
	"time"

	"github.com/zircote/lro-go/cleanup"
)

var sweepers = struct {
	sync.Mutex
	m map[key]*state
}{m: map[key]*state{}}

// key names what a sweeper sweeps.
type key struct {
	dir    string
	bucket any
	prefix string
}

// state is the state of one sweeper; sweepers' mutex guards it.
type state struct {
	running bool // its goroutine runs
	fresh   bool // a file was offloaded since its last sweep began
}

// minWait is the shortest wait between two sweeps of a sweeper, so that a
// file whose expiry is near does not make it spin.
const minWait = time.Second

// Offloaded notes an offload to the folder or bucket of o, starting its
// sweeper, with o, if it does not run.
func Offloaded(o *cleanup.Options) {
	k := key{dir: o.Dir, bucket: o.Bucket, prefix: o.Prefix}
	sweepers.Lock()
	defer sweepers.Unlock()
	s := sweepers.m[k]
	if s == nil {
		s = &state{}
		sweepers.m[k] = s
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
	go s.run(j, o)
}

// run sweeps at once, and again as long as files are left or a sweep
// fails (a file it could not delete is not counted as left).
func (s *state) run(j *cleanup.Janitor, o *cleanup.Options) {
	for wait := time.Duration(0); ; {
		time.Sleep(wait)
		sweepers.Lock()
		s.fresh = false
		sweepers.Unlock()
		now := time.Now()
		res, err := j.Sweep(context.Background(), now)
		sweepers.Lock()
		if err == nil && !s.fresh && res.Kept == 0 && res.InUse == 0 {
			s.running = false
			sweepers.Unlock()
			return
		}
		sweepers.Unlock()
		wait = o.Interval
		if !res.NextExpiry.IsZero() { // a bucket's skew margin included
			wait = min(wait, max(res.NextExpiry.Sub(now), minWait))
		}
	}
}
