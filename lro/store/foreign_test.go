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
