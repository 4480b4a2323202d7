//go:build unix

package extract

import (
	"io/fs"
	"syscall"
)

// openFlags make opening a symbolic link fail (ELOOP) and opening a FIFO
// return at once instead of waiting for a writer.
const openFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// links returns the number of hard links to the file fi describes.
func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
