package store_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zircote/lro-go/lro/store"
)

// TestHandlesForeign: in a folder that other users may write to (sticky,
// as the system temp folder), a file named like a handle that another user
// put there is not served: it is no file the Store wrote. In a folder of
// the Store's user alone, such a file (as root-squashed NFS makes) is.
// Run as root, which can give a file away (CI runs as root).
func TestHandlesForeign(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI must run as root to give a file to another user")
		}
		t.Skip("only root can give a file to another user")
	}
	const nobody = 65534
	for _, tt := range []struct {
		mode   os.FileMode
		served bool
	}{{0o700, true}, {os.ModeSticky | 0o777, false}} {
		dir := filepath.Join(t.TempDir(), "out")
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, tt.mode); err != nil {
			t.Fatal(err)
		}
		s, err := store.Open(context.Background(), dir, nil)
		if err != nil {
			t.Fatal(err)
		}
		handle, _ := write(t, s, 1, 10)
		// Another user's file, named as a handle of the Store's.
		theirs := strings.Replace(handle, handle[len(handle)-38:len(handle)-6], strings.Repeat("e", 32), 1)
		data, err := os.ReadFile(filepath.Join(dir, handle))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, theirs), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(filepath.Join(dir, theirs), nobody, nobody); err != nil {
			t.Fatal(err)
		}
		r, err := s.NewReader(context.Background(), theirs)
		switch {
		case tt.served && err != nil:
			t.Errorf("folder %v: NewReader of a file of another user = %v, want it served", tt.mode, err)
		case !tt.served && (!errors.Is(err, store.ErrUnknownHandle) || !strings.Contains(err.Error(), "another user")):
			t.Errorf("folder %v: NewReader of a file of another user = %v, want ErrUnknownHandle naming its owner", tt.mode, err)
		}
		if r != nil {
			r.Close()
		}
		if got := readAll(t, s, handle); len(got) == 0 {
			t.Errorf("folder %v: the Store's own file reads empty", tt.mode)
		}
		s.Close()
	}
}

// TestHandlesOfAnotherUsersFolder: a Store opened on a folder that does
// not exist yet writes nothing into that folder once another user has made
// it (disk.CheckDir refuses it), and reads nothing from it either: a file of
// that user, named as a handle, is no file the Store wrote. It was served,
// as the folder was no longer checked and is not writable by others. The
// same holds for the path made a symbolic link of that user to their own
// folder. Run as root, which can give a file away (CI runs as root).
func TestHandlesOfAnotherUsersFolder(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI must run as root to give a file to another user")
		}
		t.Skip("only root can give a file to another user")
	}
	const nobody = 65534
	// A file named as a handle, as another user could make one.
	src, err := store.Open(context.Background(), t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	handle, data := write(t, src, 1, 10)
	for _, link := range []bool{false, true} {
		base := t.TempDir()
		dir := filepath.Join(base, "out")
		s, err := store.Open(context.Background(), dir, nil) // not there yet: accepted
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
		if err := os.WriteFile(filepath.Join(theirs, handle), data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{theirs, filepath.Join(theirs, handle)} {
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
		if w, err := s.Create(context.Background(), "recall"); err == nil {
			w.Abort()
			t.Errorf("link %v: Create in another user's folder succeeded, want an error", link)
		}
		r, err := s.NewReader(context.Background(), handle)
		if !errors.Is(err, store.ErrUnknownHandle) {
			t.Errorf("link %v: NewReader of another user's file in their folder = %v, want ErrUnknownHandle", link, err)
		}
		if r != nil {
			r.Close()
		}
		s.Close()
	}
}
