//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd

package disk

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// tryLock opens path and tries flock(LOCK_EX|LOCK_NB) on it, as a janitor
// does. It reports whether the lock was free; the file is closed again.
func tryLock(t *testing.T, path string) (free bool) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	return true
}

// TestTempFileLocked checks the Writer's side of the janitor protocol: its
// temporary file is locked from Create until Commit has renamed it, and
// until Abort has removed it, so another open file description (another
// process, or a janitor in this one) cannot take the lock.
func TestTempFileLocked(t *testing.T) {
	for _, end := range []string{"Commit", "Abort"} {
		t.Run(end, func(t *testing.T) {
			dir := t.TempDir()
			w, err := Create(dir, "", "recall", time.Now(), false, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Abort()
			if tryLock(t, w.tmp) {
				t.Fatal("the temporary file is not locked after Create")
			}
			if _, err := w.Write([]byte("{\"type\":\"lro_header\",\"count\":1}\n{}\n")); err != nil {
				t.Fatal(err)
			}
			if tryLock(t, w.tmp) {
				t.Fatal("the temporary file is not locked while being written")
			}
			if end == "Abort" {
				if err := w.Abort(); err != nil {
					t.Fatal(err)
				}
				checkEmpty(t, dir)
				return
			}
			if err := w.Commit(); err != nil {
				t.Fatal(err)
			}
			if !tryLock(t, w.Path()) {
				t.Error("the committed file is still locked after Commit")
			}
		})
	}
}

// TestCreateLockRace plays a janitor that gets between the creation of the
// temporary file and its lock, the one moment the file is not yet locked:
// it removes the file, holding the lock or not. Create must notice (the
// locked file has no link left) and start again under a new name, so the
// write succeeds and leaves exactly its one file.
func TestCreateLockRace(t *testing.T) {
	tests := []struct {
		name string
		// janitor acts on the new temporary file, in Create's goroutine.
		janitor func(t *testing.T, tmp string)
		reason  string
	}{
		{
			name: "removed before the lock",
			janitor: func(t *testing.T, tmp string) {
				if err := os.Remove(tmp); err != nil {
					t.Error(err)
				}
			},
			reason: "the janitor took the lock, removed the file and let go, all before Create's flock",
		},
		{
			name: "removed while Create waits for the lock",
			janitor: func(t *testing.T, tmp string) {
				f, err := os.Open(tmp)
				if err != nil {
					t.Error(err)
					return
				}
				if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
					t.Error(err)
				}
				// Create's flock waits until this goroutine has removed
				// the file and closed it, which releases the lock.
				go func() {
					if err := os.Remove(tmp); err != nil {
						t.Error(err)
					}
					f.Close()
				}()
			},
			reason: "the janitor holds the lock when Create asks for it; it removes the file, then lets go",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			var raced []string
			afterCreate = func(tmp string) {
				if len(raced) == 0 {
					tt.janitor(t, tmp)
				}
				raced = append(raced, tmp)
			}
			defer func() { afterCreate = nil }()
			w, err := Create(dir, "", "recall", time.Now(), false, nil)
			if err != nil {
				t.Fatalf("Create = %v: %s", err, tt.reason)
			}
			defer w.Abort()
			if len(raced) != 2 || w.tmp != raced[1] {
				t.Fatalf("Create made temporary files %q and writes to %s; want a second one after the first was removed: %s", raced, w.tmp, tt.reason)
			}
			if tryLock(t, w.tmp) {
				t.Error("the new temporary file is not locked")
			}
			if _, err := w.Write([]byte("{\"type\":\"lro_header\",\"count\":0}\n")); err != nil {
				t.Fatal(err)
			}
			if err := w.Commit(); err != nil {
				t.Fatal(err)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != 1 || entries[0].Name() != filepath.Base(w.Path()) {
				t.Errorf("directory holds %v, want only %s", entries, filepath.Base(w.Path()))
			}
		})
	}
}
