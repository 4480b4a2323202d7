//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd

package cleanup_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zircote/lro-go/cleanup"
	"github.com/zircote/lro-go/jsonl"
)

// gate is a writer in front of a file whose first write waits until the
// test opens the gate: a write as slow as the test wants.
type gate struct {
	w       io.Writer
	once    sync.Once
	entered chan struct{} // closed when the first write starts waiting
	open    chan struct{} // closed by the test to let it go on
}

func newGate() *gate { return &gate{entered: make(chan struct{}), open: make(chan struct{})} }

func (g *gate) Write(p []byte) (int, error) {
	g.once.Do(func() {
		close(g.entered)
		<-g.open
	})
	return g.w.Write(p)
}

// TestSweepSlowWrite sweeps, with a TTL of one second, while a write that
// started an hour before the sweep is still under way: the temporary file
// belongs to its live Writer, which holds its lock, so the sweep must leave
// it alone and the write must commit. Once the write has ended, the
// committed file expires like any other.
func TestSweepSlowWrite(t *testing.T) {
	dir := t.TempDir()
	start := t0.Add(-time.Hour)
	g := newGate()
	w, err := createAt(dir, "", "recall", start, func(w io.Writer) io.Writer { g.w = w; return g })
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	committed := make(chan error, 1)
	go func() {
		if err := w.WriteHeader(jsonl.Header{Count: 1}); err != nil {
			committed <- err
			return
		}
		if err := w.WriteRecord([]byte(`{"id":"m1"}`)); err != nil {
			committed <- err
			return
		}
		committed <- w.Commit() // its flush waits at the gate
	}()
	<-g.entered

	rec := &recorder{}
	j, err := cleanup.New(&cleanup.Options{Dir: dir, TTL: time.Second, OnExpired: rec.OnExpired})
	if err != nil {
		t.Fatal(err)
	}
	res, err := j.Sweep(context.Background(), t0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(cleanup.Counts{Scanned: 1, Kept: 1, InUse: 1}, cleanup.CountsOf(res)); diff != "" {
		t.Errorf("Result during the write (-want +got):\n%s", diff)
	}
	if names := dirNames(t, dir); len(names) != 1 || !strings.HasSuffix(names[0], ".tmp") {
		t.Fatalf("during the write the folder holds %q, want the temporary file", names)
	}

	close(g.open)
	if err := <-committed; err != nil {
		t.Fatalf("Commit after a sweep during the write = %v, want success", err)
	}
	if h, recs, err := jsonl.ReadFile(w.Path()); err != nil || h.Count != 1 || len(recs) != 1 {
		t.Fatalf("committed file: %+v, %d records, %v", h, len(recs), err)
	}
	if n := len(rec.got()); n != 0 {
		t.Errorf("%d events during the write, want none", n)
	}

	res, err = j.Sweep(context.Background(), t0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(cleanup.Counts{Scanned: 1, Expired: 1}, cleanup.CountsOf(res)); diff != "" {
		t.Errorf("Result after the write (-want +got):\n%s", diff)
	}
	want := []expired{{Path: w.Path(), CreatedAt: start}}
	if diff := cmp.Diff(want, rec.got()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// The environment variable that makes TestDeadWriterHelper a writer process.
const helperDirEnv = "LRO_CLEANUP_TEST_WRITER_DIR"

// TestDeadWriterHelper is not a test: run by TestSweepDeadWriter as a child
// process, it starts an offload file two hours before t0, prints its path
// and waits, in the middle of its write, to be killed.
func TestDeadWriterHelper(t *testing.T) {
	dir := os.Getenv(helperDirEnv)
	if dir == "" {
		t.Skip("the writer process of TestSweepDeadWriter")
	}
	w, err := createAt(dir, "", "recall", t0.Add(-2*time.Hour), nil)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Println(w.Path())
	io.Copy(io.Discard, os.Stdin) // until killed
	os.Exit(1)
}

// TestSweepDeadWriter sweeps the temporary file of a write under way in
// another process: kept while that process lives, however old the file,
// and removed, with its event, once the process has died without a Commit
// or Abort and the system has released its lock.
func TestSweepDeadWriter(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestDeadWriterHelper$")
	cmd.Env = append(os.Environ(), helperDirEnv+"="+dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	path := strings.TrimSpace(line)
	if err != nil || !filepath.IsAbs(path) {
		t.Fatalf("writer process said %q, %v; want the path of its file", line, err)
	}
	tmp := filepath.Join(dir, "."+filepath.Base(path)+".tmp")

	rec := &recorder{}
	j, err := cleanup.New(&cleanup.Options{Dir: dir, TTL: time.Second, OnExpired: rec.OnExpired})
	if err != nil {
		t.Fatal(err)
	}
	res, err := j.Sweep(context.Background(), t0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(cleanup.Counts{Scanned: 1, Kept: 1, InUse: 1}, cleanup.CountsOf(res)); diff != "" || !exists(t, tmp) {
		t.Fatalf("while the writer lives: temporary file exists %v, Result (-want +got):\n%s", exists(t, tmp), diff)
	}

	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait() // the process is gone, and its lock with it
	res, err = j.Sweep(context.Background(), t0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(cleanup.Counts{Scanned: 1, Expired: 1, TempRemoved: 1}, cleanup.CountsOf(res)); diff != "" || exists(t, tmp) {
		t.Errorf("after the writer died: temporary file exists %v, Result (-want +got):\n%s", exists(t, tmp), diff)
	}
	want := []expired{{Path: tmp, CreatedAt: t0.Add(-2 * time.Hour), Temporary: true}}
	if diff := cmp.Diff(want, rec.got()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// dirNames returns the names in dir, hidden ones included.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
