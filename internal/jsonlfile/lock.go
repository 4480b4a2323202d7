package jsonlfile

import (
	"errors"
	"os"

	"github.com/zircote/lro-go/internal/tempname"
)

// locks reports that this system has flock(2): a Writer holds an exclusive
// lock on its temporary file until Commit or Abort. Without it, a Writer's
// temporary file is protected from janitors only by its age (see package
// cleanup), and it is closed before it is renamed or removed, as Windows
// requires.
const locks = tempname.Locks

// lockTemp takes an exclusive flock(2) lock on f, a temporary file Create has
// just made, waiting for a janitor that holds it (a janitor holds it only to
// remove the file). It reports whether the file was removed before the lock
// was taken, in which case the caller must give it up and start again under
// a new name. It does nothing where there is no flock(2).
//
// A lock that cannot be taken at all (a file system without locks, such as
// some network ones) is no reason to fail a write: the file is then left
// unlocked, and a janitor that cannot lock it either keeps it for a long
// grace period instead (see package cleanup).
func lockTemp(f *os.File) (removed bool, err error) {
	if !locks {
		return false, nil
	}
	if err := tempname.Lock(f, true); err != nil && !errors.Is(err, tempname.ErrNoLock) {
		return false, err
	}
	// A lock error leaves the file unlocked; see above. Whether it is still
	// linked matters either way.
	return tempname.Unlinked(f)
}
