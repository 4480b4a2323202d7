package extract

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/metrics"
	"time"
)

// errMemoryLimit is the cancellation cause of a call whose heap growth
// passed MaxMemoryBytes.
var errMemoryLimit = errors.New("memory limit")

// watchInterval is how often the watchdog samples the heap.
const watchInterval = 5 * time.Millisecond

const heapMetric = "/memory/classes/heap/objects:bytes"

func heapBytes() int64 {
	s := [1]metrics.Sample{{Name: heapMetric}}
	metrics.Read(s[:])
	return int64(s[0].Value.Uint64())
}

// watchMemory cancels ctx with errMemoryLimit when the heap grows by more
// than limit bytes while the call runs. gojq checks the context at every
// step, so a query that keeps allocating stops within a few milliseconds
// of passing the limit.
//
// The heap counts objects not yet collected, so when the growth first
// passes the limit the watchdog runs a collection and measures again: only
// memory still in use stops the call. Measured without it: `[limit(1e9;
// repeat(1))]` grows the heap by 183 MB in 3 s and `def f: [f]; f` by
// 1.26 GB in 3 s, which a time limit alone would let through.
//
// The returned function stops the watchdog and waits for it.
func watchMemory(ctx context.Context, cancel context.CancelCauseFunc, limit int64) (stop func()) {
	base := heapBytes()
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		t := time.NewTicker(watchInterval)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				if heapBytes()-base <= limit {
					continue
				}
				runtime.GC()
				if grown := heapBytes() - base; grown > limit {
					cancel(fmt.Errorf("%w: the heap grew by %d MiB", errMemoryLimit, grown>>20))
					return
				}
			}
		}
	}()
	return func() {
		close(done)
		<-exited
	}
}
