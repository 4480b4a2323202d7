//go:build unix && !linux

package extract

import (
	"os"
	"syscall"
)

// limitMemory does nothing on this system, where the limits on address
// space and data are not known to hold the Go runtime: memory is bounded by
// GOMEMLIMIT (a soft limit) and the time limit only.
func limitMemory(int64) error { return nil }

func sysProcAttr() *syscall.SysProcAttr { return nil }

func executable() (string, error) { return os.Executable() }
