//go:build unix

package disk

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// mkdir makes the folder path with mode perm exactly, whatever the umask.
func mkdir(t *testing.T, path string, perm fs.FileMode) string {
	t.Helper()
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCheckDir(t *testing.T) {
	base := t.TempDir()
	open := mkdir(t, filepath.Join(base, "open"), 0o777)
	group := mkdir(t, filepath.Join(base, "group"), 0o770)
	sticky := mkdir(t, filepath.Join(base, "sticky"), 0o777|fs.ModeSticky)
	inSticky := mkdir(t, filepath.Join(sticky, "mine"), 0o700)
	readable := mkdir(t, filepath.Join(base, "readable"), 0o755)
	below := mkdir(t, filepath.Join(open, "below"), 0o700)
	toOpen := filepath.Join(base, "to-open")
	toSafe := filepath.Join(base, "to-safe")
	up := filepath.Join(readable, "up")
	for _, l := range [][2]string{{open, toOpen}, {readable, toSafe}, {"../open/below", up}} {
		if err := os.Symlink(l[0], l[1]); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		dir    string
		unsafe string // in the error; "" for a safe folder
		reason string
	}{
		{base, "", "a private folder of ours"},
		{readable, "", "others may read and enter, not write"},
		{sticky, "", "sticky and writable by all, as /tmp: nobody can replace another's files"},
		{inSticky, "", "our own folder in a sticky one"},
		{filepath.Join(base, "new", "deeper"), "", "what does not exist yet is made by Create, ours"},
		{os.TempDir(), "", "the default"},
		{toSafe, "", "a symlink of ours to a safe folder"},
		{open, "folder " + open + " is writable by others without the sticky bit", "anyone could swap a file for a symlink"},
		{group, "folder " + group + " is writable by group without the sticky bit", "the group could swap a file for a symlink"},
		{below, "folder " + open + " is writable by others", "anyone could replace the folder itself"},
		{filepath.Join(open, "new"), "folder " + open + " is writable by others", "a folder to be made in an open one could be made by another first"},
		{toOpen, "folder " + open + " is writable by others", "a symlink to an open folder"},
		{up, "folder " + open + " is writable by others", "a relative symlink through .. to below an open folder"},
		{filepath.Join(toSafe, "..", "open"), "folder " + open + " is writable by others", "a .. after a symlink goes up from where it leads"},
	}
	for _, tt := range tests {
		t.Run(strings.TrimPrefix(tt.dir, base), func(t *testing.T) {
			err := CheckDir(tt.dir)
			if tt.unsafe == "" {
				if err != nil {
					t.Errorf("CheckDir(%s) = %v, want nil: %s", tt.dir, err, tt.reason)
				}
				return
			}
			if !errors.Is(err, ErrUnsafeDir) || !strings.Contains(err.Error(), tt.unsafe) {
				t.Errorf("CheckDir(%s) = %v, want ErrUnsafeDir saying %q: %s", tt.dir, err, tt.unsafe, tt.reason)
			}
		})
	}
	if err := CheckDir("relative"); err == nil {
		t.Error("CheckDir(relative) = nil, want an error")
	}
}

// TestCheckDirOwner: a folder or a symlink owned by another user is unsafe,
// whatever its mode; root's are safe. Run as root, which can give a folder
// away (CI runs as root).
func TestCheckDirOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI must run as root to give a folder to another user")
		}
		t.Skip("only root can give a folder to another user")
	}
	const nobody = 65534
	base := t.TempDir()
	theirs := mkdir(t, filepath.Join(base, "theirs"), 0o755)
	if err := os.Chown(theirs, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "their-link")
	if err := os.Symlink(base, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(link, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ dir, want string }{
		{theirs, fmt.Sprintf("folder %s is owned by another user (uid %d)", theirs, nobody)},
		{filepath.Join(theirs, "sub"), fmt.Sprintf("folder %s is owned by another user", theirs)},
		{link, fmt.Sprintf("symlink %s is owned by another user (uid %d)", link, nobody)},
	} {
		if err := CheckDir(tt.dir); !errors.Is(err, ErrUnsafeDir) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("CheckDir(%s) = %v, want ErrUnsafeDir saying %q", tt.dir, err, tt.want)
		}
	}
}

// TestCreateRefusesUnsafeDir: Create writes nothing into a folder another
// user could write to, nor makes a folder below it.
func TestCreateRefusesUnsafeDir(t *testing.T) {
	open := mkdir(t, filepath.Join(t.TempDir(), "open"), 0o777)
	for _, dir := range []string{open, filepath.Join(open, "sub")} {
		f, err := Create(dir, "", "list", time.Now(), false, nil)
		if !errors.Is(err, ErrUnsafeDir) {
			if f != nil {
				f.Abort()
			}
			t.Errorf("Create in %s: error %v, want ErrUnsafeDir", dir, err)
		}
	}
	if entries, _ := os.ReadDir(open); len(entries) != 0 {
		t.Errorf("%s holds %d entries, want none", open, len(entries))
	}
}

// TestExpiryRecordedBeforeName: with a TTL, the file is read-only with its
// expiry as modification time as it appears under its name.
func TestExpiryRecordedBeforeName(t *testing.T) {
	now := time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)
	dir := t.TempDir()
	w, err := Create(dir, "", "list", now, false, func() time.Time { return now.Add(90 * time.Minute) })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("{\"type\":\"lro_header\",\"count\":1}\n{\"a\":1}\n")); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode() != 0o400 || !fi.ModTime().Equal(now.Add(90*time.Minute)) {
		t.Errorf("file %v, modified %v; want -r-------- and the expiry %v", fi.Mode(), fi.ModTime(), now.Add(90*time.Minute))
	}
}

// TestCommitTouchesNoPath: in a folder where another user swaps complete
// files for a symlink to a file of ours (what Create refuses; the
// Sink is made here as Create would), committing with a TTL never changes
// the mode or time of what the name leads to: the expiry is recorded on
// the open file before it is named.
func TestCommitTouchesNoPath(t *testing.T) {
	open := mkdir(t, filepath.Join(t.TempDir(), "open"), 0o777)
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("keep me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	then := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(victim, then, then); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	var swaps atomic.Int64
	wg.Go(func() { // the other user: sees a temporary file, then waits for its name
		for !stop.Load() {
			entries, _ := os.ReadDir(open)
			for _, e := range entries {
				name, ok := strings.CutSuffix(strings.TrimPrefix(e.Name(), "."), ".tmp")
				if !ok {
					continue
				}
				p, tmp := filepath.Join(open, name), filepath.Join(open, e.Name())
				for !stop.Load() {
					if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
						if os.Remove(p) == nil && os.Symlink(victim, p) == nil {
							swaps.Add(1)
						}
						break
					}
					if _, err := os.Lstat(tmp); err != nil {
						if _, err := os.Lstat(p); err != nil {
							break // neither: removed
						}
					}
				}
			}
		}
	})
	expires := func() time.Time { return time.Now().Add(time.Hour) }
	// Until the other user has swapped enough files, each just named.
	for i := 0; i < 5000 && swaps.Load() < 40; i++ {
		name, err := NewName("", "list", time.Now(), false)
		if err != nil {
			t.Fatal(err)
		}
		w, err := createTemp(open, name, expires)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(fmt.Appendf(nil, "{\"type\":\"lro_header\",\"count\":1}\n{\"i\":%d}\n", i)); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	fi, err := os.Stat(victim)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode() != 0o644 || !fi.ModTime().Equal(then) {
		t.Errorf("after %d swaps the victim is %v, modified %v; want -rw-r--r-- and %v", swaps.Load(), fi.Mode(), fi.ModTime(), then)
	}
	if swaps.Load() == 0 {
		t.Error("no file was swapped: the test proves nothing")
	}
}

// TestOpenChecked opens a file only if it is the regular file checked, with
// one hard link.
func TestOpenChecked(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a", "b"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(name), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(dir, "b"), filepath.Join(dir, "b2")); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	lstat := func(name string) fs.FileInfo {
		fi, err := root.Lstat(name)
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	tests := []struct {
		name    string
		checked fs.FileInfo
		want    error
	}{
		{"a", lstat("a"), nil},
		{"a", lstat("sub"), ErrReplaced}, // another file was checked
		{"sub", lstat("sub"), ErrNotRegular},
		{"b2", lstat("b2"), ErrLinked},
	}
	for _, tt := range tests {
		f, fi, err := OpenChecked(root, tt.name, tt.checked)
		if !errors.Is(err, tt.want) {
			t.Errorf("OpenChecked(%s, Lstat(%s)) = %v, want %v", tt.name, tt.checked.Name(), err, tt.want)
		}
		if (f != nil) != (tt.want == nil) {
			t.Errorf("OpenChecked(%s, Lstat(%s)): file %v", tt.name, tt.checked.Name(), f)
		}
		if f != nil {
			f.Close()
		}
		if fi == nil || fi.Name() != tt.name {
			t.Errorf("OpenChecked(%s, Lstat(%s)): information %v, want the file's", tt.name, tt.checked.Name(), fi)
		}
	}
}
