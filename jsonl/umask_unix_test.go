//go:build unix

package jsonl_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/zircote/lro-go/jsonl"
)

// TestModesIgnoreUmask checks that the modes are set exactly, not reduced by
// the umask: a umask of 0277 would make 0700 directories 0500 and 0600 files
// 0400. The umask is process-wide, so this test must not run in parallel.
func TestModesIgnoreUmask(t *testing.T) {
	old := syscall.Umask(0o277)
	defer syscall.Umask(old)

	dir := filepath.Join(t.TempDir(), "a", "b")
	w, err := jsonl.Create("recall", &jsonl.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := w.WriteHeader(jsonl.Header{Count: 1}); err != nil {
		t.Fatal(err)
	}
	if err := w.WriteRecord([]byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]fs.FileMode{
		w.Path():          0o600,
		dir:               fs.ModeDir | 0o700,
		filepath.Dir(dir): fs.ModeDir | 0o700,
	} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != want {
			t.Errorf("mode of %s under umask 0277 = %v, want %v", path, fi.Mode(), want)
		}
	}
}
