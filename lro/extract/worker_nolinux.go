//go:build !linux

package extract

import (
	"os"
	"syscall"
)

// limitMemory does nothing here: memory is bounded by GOMEMLIMIT only.
func limitMemory(int64) error { return nil }

// sysProcAttr sets nothing: the worker does not die with the server here.
func sysProcAttr() *syscall.SysProcAttr { return nil }

func executable() (string, error) { return os.Executable() }
