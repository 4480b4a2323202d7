//go:build unix && !linux

package extract

import (
	"os"
	"syscall"
)

// limitMemory does nothing on this system, which does not count the Go
// heap in RLIMIT_DATA: memory is bounded by GOMEMLIMIT (a soft limit) and
// the time limit only.
func limitMemory(int64) error { return nil }

func sysProcAttr() *syscall.SysProcAttr { return nil }

func executable() (string, error) { return os.Executable() }
