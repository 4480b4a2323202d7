//go:build !(darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd)

package jsonlfile

import "os"

// locks reports that this system has flock(2). Here it has not: a Writer's
// temporary file is protected from janitors only by its age (see package
// cleanup), and it is closed before it is renamed or removed, as Windows
// requires.
const locks = false

// lockTemp does nothing where there is no flock(2).
func lockTemp(*os.File) (removed bool, err error) { return false, nil }
