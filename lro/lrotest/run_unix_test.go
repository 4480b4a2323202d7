//go:build unix

package lrotest

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRunnersRefuseFilesThatAreNotRegular checks that a recipe naming a
// FIFO or a device in place of file_path fails at once, in both runners,
// before its timeout: the kit reads such a file itself, and a hostile
// server could otherwise make it wait for ever or read without end.
func TestRunnersRefuseFilesThatAreNotRegular(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	runners := []runner{gojqRunner}
	if sr, ok := jqRunner(); ok {
		runners = append(runners, sr)
	}
	for _, path := range []string{fifo, "/dev/zero"} {
		for _, r := range runners {
			ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
			done := make(chan recipeRun, 1)
			go func() { done <- r.run(ctx, "tail -n +2 "+path+" | jq .", &offloadFile{Path: "/elsewhere"}) }()
			select {
			case res := <-done:
				if res.err == nil || !strings.Contains(res.err.Error(), "not a regular file") {
					t.Errorf("%v on %s: err %v, want it refused as not a regular file", r, path, res.err)
				}
			case <-time.After(time.Minute):
				t.Errorf("%v on %s: still reading after a minute", r, path)
			}
			cancel()
		}
	}
}
