//go:build !unix

package extract

import "time"

// On this system a worker cannot be given the server's open file (or
// resource limits): starting one fails, and so does every call that needs
// one.

func limitWorker(limits) error { return nil }

func cpuKilled(error, time.Duration) bool { return false }

func signaled(error) bool { return false }
