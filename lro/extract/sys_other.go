//go:build !unix

package extract

import "errors"

// On this system a worker cannot limit itself: it refuses to run its job,
// and so every call that needs one fails.
func limitWorker(limits) error { return errors.New("this system cannot bound a worker") }
