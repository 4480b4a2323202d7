//go:build !unix

package extract

import (
	"errors"
	"io/fs"
)

// On this system a worker cannot limit itself: it refuses to run its job,
// and so every call that needs one fails.
func limitWorker(limits) error { return errors.New("this system cannot bound a worker") }

const openFlags = 0

// links returns 1: this system does not report hard links here.
func links(fs.FileInfo) uint64 { return 1 }
