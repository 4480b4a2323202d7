//go:build !unix

package extract

import (
	"os"
	"syscall"
)

// On this system a worker cannot be given the server's open file (or
// resource limits): starting one fails, and so does every call that needs
// one.

func limitWorker(limits) error { return nil }

func cpuKilled(error) bool { return false }

func sysProcAttr() *syscall.SysProcAttr { return nil }

func executable() (string, error) { return os.Executable() }
