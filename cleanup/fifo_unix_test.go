//go:build unix

package cleanup_test

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zircote/lro-go/cleanup"
)

// TestSweepFIFO puts a FIFO named like an expired offload file in the folder.
// Opening it would block until a writer came, so a sweep that returns at all
// shows the janitor does not open it; it must also leave it in place.
func TestSweepFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, nameAt(t0.Add(-2*time.Hour)))
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	rec := &recorder{}
	j, err := cleanup.New(&cleanup.Options{Dir: dir, OnExpired: rec.OnExpired})
	if err != nil {
		t.Fatal(err)
	}
	res, err := j.Sweep(context.Background(), t0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(cleanup.Counts{Scanned: 1, Skipped: 1}, cleanup.CountsOf(res)); diff != "" {
		t.Errorf("Result (-want +got):\n%s", diff)
	}
	if !exists(t, fifo) || len(rec.got()) != 0 {
		t.Errorf("FIFO exists %v, %d events; want it left alone", exists(t, fifo), len(rec.got()))
	}
}
