// Package bucketurl holds the function that opens bucket URLs for
// store.Open, which package lro/store/blobstore registers when imported,
// as database/sql drivers register themselves.
package bucketurl

import (
	"context"
	"sync/atomic"
)

// OpenFunc opens the bucket of url. The bucket it returns is a
// store.Bucket, which this package cannot name without an import cycle.
type OpenFunc func(ctx context.Context, url string) (any, error)

var opener atomic.Pointer[OpenFunc]

// Register makes Opener return open. A later call replaces it; nil removes
// it.
func Register(open OpenFunc) { opener.Store(&open) }

// Opener returns the function given to Register last, or nil.
func Opener() OpenFunc {
	if open := opener.Load(); open != nil {
		return *open
	}
	return nil
}
