//go:build !linux

package extract

import (
	"os"
	"syscall"
)

// limitMemory does nothing on this system, where the limits on address
// space and data are not known to hold the Go runtime: memory is bounded by
// GOMEMLIMIT (a soft limit) and the time limit only.
func limitMemory(int64) error { return nil }

// sysProcAttr sets nothing: the worker does not die with the server here.
func sysProcAttr() *syscall.SysProcAttr { return nil }

func executable() (string, error) { return os.Executable() }
