//go:build !(darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd)

package cleanup

import (
	"io/fs"
	"os"
)

// tempLocks reports that this system has flock(2). Here it has not: a
// temporary file's age alone decides, with [unlockedGrace] added to the TTL.
const tempLocks = false

// lockTemp returns lockNone: without flock(2), nothing tells whether the
// Writer of a temporary file is alive.
func lockTemp(*os.Root, string, fs.FileInfo) (*os.File, lockState, error) {
	return nil, lockNone, nil
}
