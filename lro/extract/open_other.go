//go:build !unix

package extract

import "io/fs"

const openFlags = 0

// links returns 1: this system does not report hard links here.
func links(fs.FileInfo) uint64 { return 1 }
