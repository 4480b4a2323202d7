package cleanup_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/zircote/lro-go/cleanup"
)

// TestSweepForeign: in a folder that other users may write to (sticky, as
// the system temp folder), the expired files and leftovers of another
// user (the files of another user's server of the same prefix, or ones put
// there) are not the janitor's: kept without an error, as the tools and a
// Store do not read them, whatever the janitor may remove (root may remove
// any). In a folder of the janitor's user alone, a file of another owner
// (as root-squashed NFS makes) is swept as before. Run as root, which can
// give a file away (CI runs as root).
func TestSweepForeign(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI must run as root to give a file to another user")
		}
		t.Skip("only root can give a file to another user")
	}
	const nobody = 65534
	for _, tt := range []struct {
		mode  os.FileMode
		swept bool
	}{{0o700, true}, {os.ModeSticky | 0o777, false}} {
		dir := filepath.Join(t.TempDir(), "out")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, tt.mode); err != nil {
			t.Fatal(err)
		}
		ours := offload(t, dir, "", t0.Add(-2*time.Hour))
		theirs := []string{offload(t, dir, "", t0.Add(-2*time.Hour)), leftover(t, dir, "", t0.Add(-48*time.Hour))}
		for _, p := range theirs {
			if err := os.Chown(p, nobody, nobody); err != nil {
				t.Fatal(err)
			}
		}
		j, err := cleanup.New(&cleanup.Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		res, err := j.Sweep(context.Background(), t0)
		if err != nil {
			t.Errorf("folder %v: Sweep error %v", tt.mode, err)
		}
		if exists(t, ours) {
			t.Errorf("folder %v: the janitor's own expired file is still there", tt.mode)
		}
		for _, p := range theirs {
			if got := exists(t, p); got == tt.swept {
				t.Errorf("folder %v: another user's %s: there %v, want %v (result %+v)", tt.mode, filepath.Base(p), got, !tt.swept, cleanup.CountsOf(res))
			}
		}
	}
}

// TestSweepAnotherUsersFolder: a janitor made for a folder that does not
// exist yet leaves alone the files of another user who made that folder
// since, or put a symbolic link to a folder of theirs in its place (which
// a Writer refuses to write to): none is the janitor's. Root, which may
// remove any file, removed them. Run as root (CI runs as root).
func TestSweepAnotherUsersFolder(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI must run as root to give a file to another user")
		}
		t.Skip("only root can give a file to another user")
	}
	const nobody = 65534
	for _, link := range []bool{false, true} {
		base := t.TempDir()
		dir := filepath.Join(base, "out")
		j, err := cleanup.New(&cleanup.Options{Dir: dir}) // not there yet: accepted
		if err != nil {
			t.Fatal(err)
		}
		theirs := dir
		if link {
			theirs = filepath.Join(base, "theirs")
		}
		if err := os.Mkdir(theirs, 0o755); err != nil {
			t.Fatal(err)
		}
		files := []string{offload(t, theirs, "", t0.Add(-2*time.Hour)), leftover(t, theirs, "", t0.Add(-48*time.Hour))}
		for _, p := range append(files, theirs) {
			if err := os.Chown(p, nobody, nobody); err != nil {
				t.Fatal(err)
			}
		}
		if link {
			if err := os.Symlink(theirs, dir); err != nil {
				t.Fatal(err)
			}
			if err := os.Lchown(dir, nobody, nobody); err != nil {
				t.Fatal(err)
			}
		}
		res, err := j.Sweep(context.Background(), t0)
		if err != nil {
			t.Errorf("link %v: Sweep error %v", link, err)
		}
		for _, p := range files {
			if !exists(t, p) {
				t.Errorf("link %v: another user's %s in their folder was removed (result %+v)", link, filepath.Base(p), cleanup.CountsOf(res))
			}
		}
	}
}
