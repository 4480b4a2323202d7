package cleanup_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zircote/lro-go/cleanup"
)

// The tests of this file run in a synctest bubble, whose fake clock starts at
// 2000-01-01 00:00 UTC and advances only when every goroutine of the bubble
// is blocked. The janitor's default Now, time.Now, reads that clock.

// sighting is an event and when, since the start of the test, it came.
type sighting struct {
	Base string
	At   time.Duration
}

// clockRecorder records the base name of each expired file and the fake time
// elapsed since start.
type clockRecorder struct {
	start time.Time
	mu    sync.Mutex
	seen  []sighting
}

func (r *clockRecorder) OnExpired(_ context.Context, path string, _ time.Time, _ bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen = append(r.seen, sighting{filepath.Base(path), time.Since(r.start)})
}

func (r *clockRecorder) got() []sighting {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]sighting(nil), r.seen...)
}

// TestStartSchedule checks that Start sweeps at once and then every Interval,
// and stops when its context is canceled.
func TestStartSchedule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		start := time.Now()
		rec := &clockRecorder{start: start}
		a := offload(t, dir, "", start.Add(-time.Hour)) // due at start
		b := offload(t, dir, "", start)                 // due at 1h
		ctx, cancel := context.WithCancel(context.Background())
		j, err := cleanup.Start(ctx, &cleanup.Options{Dir: dir, OnExpired: rec.OnExpired})
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		synctest.Wait()
		time.Sleep(30 * time.Minute)
		c := offload(t, dir, "", time.Now()) // due at 1h30m, deleted by the sweep at 2h
		time.Sleep(2*time.Hour - 30*time.Minute + time.Second)
		want := []sighting{
			{filepath.Base(a), 0},
			{filepath.Base(b), time.Hour},
			{filepath.Base(c), 2 * time.Hour},
		}
		if diff := cmp.Diff(want, rec.got()); diff != "" {
			t.Errorf("events by time (-want +got):\n%s", diff)
		}

		cancel()
		synctest.Wait() // the goroutine has returned
		d := offload(t, dir, "", time.Now().Add(-2*time.Hour))
		time.Sleep(5 * time.Hour)
		if got := rec.got(); len(got) != len(want) {
			t.Errorf("events after cancel: %v", got[len(want):])
		}
		if !exists(t, d) {
			t.Errorf("%s was removed after cancel", d)
		}
		if err := j.Close(); err != nil {
			t.Errorf("Close after cancel = %v", err)
		}
	})
}

// TestStartInterval checks a configured Interval and Now.
func TestStartInterval(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		start := time.Now()
		rec := &clockRecorder{start: start}
		// Now runs one day ahead: files made now are due after 10 minutes
		// of the TTL have passed on that clock.
		ahead := func() time.Time { return time.Now().Add(24 * time.Hour) }
		a := offload(t, dir, "", start)
		j, err := cleanup.StartWith(context.Background(), &cleanup.Options{Dir: dir, OnExpired: rec.OnExpired, TTL: 24*time.Hour + 10*time.Minute, Interval: 15 * time.Minute}, ahead)
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		time.Sleep(time.Hour + time.Second)
		if diff := cmp.Diff([]sighting{{filepath.Base(a), 15 * time.Minute}}, rec.got()); diff != "" {
			t.Errorf("events by time (-want +got):\n%s", diff)
		}
	})
}

// TestCloseStops checks that Close stops the sweeps, is idempotent and may
// be called concurrently.
func TestCloseStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		rec := &clockRecorder{start: time.Now()}
		j, err := cleanup.Start(context.Background(), &cleanup.Options{Dir: dir, OnExpired: rec.OnExpired})
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		var wg sync.WaitGroup
		for range 3 {
			wg.Go(func() {
				if err := j.Close(); err != nil {
					t.Errorf("Close = %v", err)
				}
			})
		}
		wg.Wait()
		path := offload(t, dir, "", time.Now().Add(-2*time.Hour))
		time.Sleep(3 * time.Hour)
		if got := rec.got(); len(got) != 0 || !exists(t, path) {
			t.Errorf("after Close: events %v, file exists %v; want no sweep", got, exists(t, path))
		}
		if err := j.Close(); err != nil {
			t.Errorf("Close again = %v", err)
		}
	})
}

// TestCloseWaits closes the janitor while its OnExpired is busy with the first
// of two expired files: Close returns only after OnExpired has, and the
// sweep stops before removing the second file.
func TestCloseWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dir := t.TempDir()
		start := time.Now()
		first := offload(t, dir, "", start.Add(-3*time.Hour))
		second := offload(t, dir, "", start.Add(-2*time.Hour))
		var busy, finished atomic.Bool
		var errorsReported atomic.Int32
		onExpired := func(context.Context, string, time.Time, bool) {
			busy.Store(true)
			time.Sleep(10 * time.Minute)
			finished.Store(true)
		}
		j, err := cleanup.Start(context.Background(), &cleanup.Options{Dir: dir, OnExpired: onExpired,
			OnError: func(error) { errorsReported.Add(1) }})
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait() // the goroutine sleeps in OnExpired
		if !busy.Load() {
			t.Fatal("the first sweep did not reach OnExpired")
		}
		j.Close()
		if !finished.Load() || time.Since(start) != 10*time.Minute {
			t.Errorf("Close returned after %v with OnExpired finished %v; want it to wait for OnExpired's 10 minutes", time.Since(start), finished.Load())
		}
		if exists(t, first) || !exists(t, second) {
			t.Errorf("first exists %v, second exists %v; want the sweep stopped after the first", exists(t, first), exists(t, second))
		}
		if n := errorsReported.Load(); n != 0 {
			t.Errorf("OnError called %d times; the cancellation of Close is not an error", n)
		}
	})
}

// TestStartOnError makes every sweep fail and counts the sweeps by their
// errors: one at start, one per Interval, none after Close.
func TestStartOnError(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The folder is below a regular file: every sweep fails.
		dir := filepath.Join(writeFile(t, filepath.Join(t.TempDir(), "file"), ""), "dir")
		var mu sync.Mutex
		var errs []error
		j, err := cleanup.Start(context.Background(), &cleanup.Options{Dir: dir, OnError: func(err error) {
			mu.Lock()
			defer mu.Unlock()
			errs = append(errs, err)
		}})
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		count := func() int {
			mu.Lock()
			defer mu.Unlock()
			return len(errs)
		}
		synctest.Wait()
		if n := count(); n != 1 {
			t.Errorf("%d sweeps at start; want 1", n)
		}
		time.Sleep(time.Hour + time.Second)
		if n := count(); n != 2 {
			t.Errorf("after one Interval, %d sweeps; want 2", n)
		}
		j.Close()
		time.Sleep(3 * time.Hour)
		if n := count(); n != 2 {
			t.Errorf("after Close, %d sweeps; want still 2", n)
		}
		mu.Lock()
		defer mu.Unlock()
		var pe *os.PathError
		if !errors.As(errs[0], &pe) || pe.Path != dir {
			t.Errorf("OnError got %v, want an error about %s", errs[0], dir)
		}
	})
}
