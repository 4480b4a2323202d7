//go:build unix

package extract_test

import "syscall"

func mkfifo(path string) error { return syscall.Mkfifo(path, 0o600) }

// fifoRefusal is what the tools say about a FIFO named like a file.
const fifoRefusal = "not a regular file"
