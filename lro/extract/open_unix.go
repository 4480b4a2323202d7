//go:build unix

package extract

import (
	"io/fs"
	"syscall"
)

// openFlags make opening a FIFO return at once instead of waiting for a
// writer. O_NOFOLLOW refuses a link only where os.Root honours it: it
// follows a link that stays in the folder (Go 1.26), which openFile
// refuses by comparing the file opened with the file checked.
const openFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// links returns the number of hard links to the file fi describes.
func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
