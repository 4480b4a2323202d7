package lro_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/cleanup"
	"github.com/zircote/lro-go/internal/disk"
	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/event"
)

// TestJanitorOf offloads two results at different times with the same
// options, then sweeps with the janitor of those options: the sweep deletes
// the file whose TTL has passed, with an event, and keeps the other. The
// janitor sweeps the files of the options' prefix, not the default's.
func TestJanitorOf(t *testing.T) {
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	now := t0
	rec := &recorder{}
	opts := hooked(&lro.Options{
		OutputDir: t.TempDir(),
		Prefix:    "p",
		TTL:       10 * time.Minute,
		Observer:  rec,
	}, lro.Hooks{Now: func() time.Time { return now }})
	offload := func() string {
		res, err := wrap(textHandler(200), opts)(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "items"}})
		if err != nil {
			t.Fatal(err)
		}
		return descriptorOf(t, res).FilePath
	}
	old := offload()
	now = t0.Add(5 * time.Minute)
	fresh := offload()
	now = t0.Add(10 * time.Minute) // old's TTL has just passed; fresh's has not

	j, err := lro.JanitorOf(opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Sweep(context.Background(), now); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("expired file %s: stat error %v, want it deleted", old, err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("fresh file %s: %v, want it kept", fresh, err)
	}
	var expired []event.FileExpired
	for _, e := range rec.all() {
		if fe, ok := e.(event.FileExpired); ok {
			expired = append(expired, fe)
		}
	}
	want := []event.FileExpired{{Path: old, CreatedAt: t0}}
	if diff := cmp.Diff(want, expired); diff != "" {
		t.Errorf("FileExpired events (-want +got):\n%s", diff)
	}
}

// gate is a writer in front of an offloaded file whose first write waits
// until the test opens the gate: a write as slow as the test wants.
type gate struct {
	w       io.Writer
	once    sync.Once
	entered chan struct{} // closed when the first write starts waiting
	open    chan struct{} // closed by the test to let it go on
}

func (g *gate) Write(p []byte) (int, error) {
	g.once.Do(func() {
		close(g.entered)
		<-g.open
	})
	return g.w.Write(p)
}

// TestJanitorSparesSlowWrite is the case: a TTL of one second and a
// write that takes longer. The janitor of the same options sweeps, an hour
// after the write began, while the write is still under way: the write must
// still be offloaded, not fall back to an inline result.
func TestJanitorSparesSlowWrite(t *testing.T) {
	switch runtime.GOOS {
	case "darwin", "dragonfly", "freebsd", "illumos", "linux", "netbsd", "openbsd":
	default:
		t.Skip("no flock(2): temporary files are protected by age alone")
	}
	t0 := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	g := &gate{entered: make(chan struct{}), open: make(chan struct{})}
	rec := &recorder{}
	opts := hooked(&lro.Options{
		OutputDir: t.TempDir(),
		TTL:       time.Second,
		Observer:  rec,
	}, lro.Hooks{
		Now: func() time.Time { return t0 },
		WrapWriter: func(w io.Writer) io.Writer {
			g.w = w
			return g
		},
	})
	type result struct {
		res *mcp.CallToolResult
		err error
	}
	done := make(chan result, 1)
	go func() {
		res, err := wrap(textHandler(200), opts)(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "items"}})
		done <- result{res, err}
	}()
	<-g.entered // the file is being written, and waits

	// A janitor of the same folder and TTL that sweeps when told to.
	j, err := cleanup.New(&cleanup.Options{Dir: opts.OutputDir, TTL: opts.TTL})
	if err != nil {
		t.Fatal(err)
	}
	sweep, err := j.Sweep(context.Background(), t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	close(g.open)
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if sweep.Kept != 1 || !sweep.NextExpiry.IsZero() || sweep.Expired != 0 { // in use: kept, but not for its expiry
		t.Errorf("sweep during the write = %+v, want the temporary file in use and kept", sweep)
	}
	d := descriptorOf(t, r.res)
	if _, err := os.Stat(d.FilePath); err != nil {
		t.Errorf("offloaded file: %v", err)
	}
	for _, e := range rec.all() {
		if _, ok := e.(event.WriteFailed); ok {
			t.Errorf("event %+v: the write must not fail", e)
		}
	}
}

// TestWrapSweepsByItself wraps a handler with nil options, as the Quick
// start does, and starts no janitor: the file it offloads to the system's
// temporary folder is still there just before its TTL has passed and gone
// just after, and the automatic janitor that the offload started has stopped (else
// synctest.Test would not return).
func TestWrapSweepsByItself(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir) // os.TempDir, the default OutputDir
	synctest.Test(t, func(t *testing.T) {
		h := lro.Wrap(textHandler(200), nil)
		res, err := h(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "items"}})
		if err != nil {
			t.Fatal(err)
		}
		path := descriptorOf(t, res).FilePath
		if filepath.Dir(path) != dir {
			t.Fatalf("offloaded to %s, want a file in %s", path, dir)
		}
		time.Sleep(time.Hour - time.Second)
		synctest.Wait()
		if _, err := os.Stat(path); err != nil {
			t.Fatalf("a second before its TTL: %v, want the file kept", err)
		}
		time.Sleep(2 * time.Second)
		synctest.Wait()
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("a second after its TTL: stat error %v, want the file deleted", err)
		}
	})
}

// TestWrapSweepsAtStart: the files that a stopped process left in the
// folder are deleted by the next one soon after it starts, with nil
// options as in the Quick start, before it offloads anything: the expired
// one at once, the other at its expiry; then the automatic janitor stops.
func TestWrapSweepsAtStart(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir) // os.TempDir, the default OutputDir
	synctest.Test(t, func(t *testing.T) {
		leave := func(age time.Duration) string { // a file of the process before
			w, err := createAt("", "", "list", time.Now().Add(-age), nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.WriteHeader(jsonl.Header{}); err != nil {
				t.Fatal(err)
			}
			if err := w.Commit(); err != nil {
				t.Fatal(err)
			}
			return w.Path()
		}
		expired, fresh := leave(2*time.Hour), leave(30*time.Minute)
		lro.Wrap(textHandler(200), nil)
		synctest.Wait()
		if _, err := os.Stat(expired); !os.IsNotExist(err) {
			t.Errorf("the expired file at start: stat error %v, want it deleted", err)
		}
		if _, err := os.Stat(fresh); err != nil {
			t.Fatalf("the file with half an hour to live: %v, want it kept", err)
		}
		time.Sleep(31 * time.Minute)
		synctest.Wait()
		if _, err := os.Stat(fresh); !os.IsNotExist(err) {
			t.Errorf("after its TTL: stat error %v, want the file deleted", err)
		}
	})
}

// createAt starts the file of operation in dir, as jsonl.Create does, under
// a name of time at, writing through wrap if not nil.
func createAt(dir, prefix, operation string, at time.Time, wrap func(io.Writer) io.Writer) (*jsonl.Writer, error) {
	f, err := disk.Create(dir, prefix, operation, at, false, nil)
	if err != nil {
		return nil, err
	}
	return jsonl.NewWriter(disk.Wrap(f, wrap), f.Path(), operation), nil
}
