// Package gobuild runs Go programs for tests: a program built once for all
// the tests of a test binary, and race-built processes that exit at once.
package gobuild

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Binary is the program of package Pkg, built without -race the first time
// a test asks for it. Call Remove from TestMain after the tests.
type Binary struct {
	Pkg string // as go build takes it, from the test's folder: "../memory"

	once sync.Once
	dir  string // the folder of path
	path string
	err  error
}

// Path returns the program, built into a temporary folder on the first call.
// It fails t, then and on every later call, when the build fails.
func (b *Binary) Path(t testing.TB) string {
	t.Helper()
	b.once.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", "gobuild-"); b.err != nil {
			return
		}
		abs, _ := filepath.Abs(b.Pkg) // named as the package's folder
		path := filepath.Join(b.dir, filepath.Base(abs))
		if out, err := exec.Command("go", "build", "-o", path, b.Pkg).CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build %s: %v\n%s", b.Pkg, err, out)
			return
		}
		b.path = path
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// Remove deletes the program's folder, if it was built.
func (b *Binary) Remove() {
	if b.dir != "" {
		os.RemoveAll(b.dir)
	}
}

// NoRaceExitPause makes the race-built processes a test starts (the test
// binary run again, as a server or a worker) exit at once: the race runtime
// sleeps a second as a process exits (GORACE's atexit_sleep_ms, 1000 by
// default, for the reports of other threads to be printed). Their races are
// still found and reported when they happen. A GORACE that sets
// atexit_sleep_ms is kept. Call it from TestMain.
func NoRaceExitPause() {
	if g := os.Getenv("GORACE"); !strings.Contains(g, "atexit_sleep_ms") {
		os.Setenv("GORACE", strings.TrimSpace(g+" atexit_sleep_ms=0"))
	}
}
