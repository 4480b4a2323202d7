package cleanup

import (
	"io/fs"
	"os"

	"github.com/zircote/lro-go/internal/disk"
)

// lockTemp opens the temporary file name of root, which an lstat found to be
// the regular file fi, and tries to take its exclusive flock(2) lock without
// waiting: a live jsonl.Writer holds it until it has renamed or removed the
// file. It returns the file, still locked and still at name, for the caller
// to remove by name and then close; or an error: [disk.ErrBusy] for a
// live Writer, one wrapping [disk.ErrNoLock] where no lock can tell, or
// [fs.ErrNotExist] for a file removed or replaced since the lstat. The open
// never blocks (on a FIFO put there meanwhile).
func lockTemp(root *os.Root, name string, fi fs.FileInfo) (*os.File, error) {
	if !disk.Locks {
		return nil, disk.ErrNoLock
	}
	f, err := disk.OpenForLock(root, name)
	if err != nil {
		return nil, err
	}
	ofi, err := f.Stat()
	if err == nil && !os.SameFile(fi, ofi) {
		err = fs.ErrNotExist
	}
	if err == nil {
		err = disk.Lock(f, false)
	}
	if err == nil {
		// Another janitor may have removed the name, or someone replaced it.
		if nfi, err2 := root.Lstat(name); err2 != nil || !os.SameFile(fi, nfi) {
			err = fs.ErrNotExist
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
