//go:build !unix

package extract

import (
	"errors"
	"io/fs"
	"time"
)

// On this system a worker cannot be given the server's open file, nor
// limit itself: starting one fails, and so does every call that needs one.
func limitWorker(limits) error { return errors.New("this system cannot bound a worker") }

func cpuKilled(error, time.Duration) bool { return false }

func signaled(error) bool { return false }

const openFlags = 0

// links returns 1: this system does not report hard links here.
func links(fs.FileInfo) uint64 { return 1 }
