//go:build unix

package store

import "syscall"

// openFlags make opening a symbolic link fail (ELOOP) and opening a FIFO
// return at once instead of waiting for a writer.
const openFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
