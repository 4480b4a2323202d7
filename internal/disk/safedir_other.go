//go:build !unix

package disk

import (
	"io/fs"
	"os"
)

// readFlags are none where O_NOFOLLOW and O_NONBLOCK do not exist; os.Root
// still keeps every open inside the folder.
const readFlags = 0

// Links returns 1: this system does not report hard links here.
func Links(fs.FileInfo) uint64 { return 1 }

// CheckDir checks nothing on this system, whose folders have no Unix
// owner and mode bits.
func CheckDir(dir string) error { return nil }

func checkDir(dir string) (whole bool, err error) { return true, nil }

// Foreign reports false: files have no Unix owner here.
func Foreign(*os.Root, fs.FileInfo) bool { return false }
