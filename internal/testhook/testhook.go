// Package testhook lets the module's tests give the files that package lro
// writes a clock and a writer of their own (for fault injection), which
// lro.Options does not offer its users: a test attaches them to the
// *lro.Options it passes, and lro reads them when it copies the options.
// They belong to that pointer: a copy of the options has none. A
// *store.Store opened with a clock carries it too, so that no automatic
// sweeper runs on the system's clock over its files.
package testhook

import (
	"io"
	"runtime"
	"sync"
	"time"
	"weak"
)

// Hooks are the test hooks of one *lro.Options.
type Hooks struct {
	// Now returns the current time. If nil, lro uses time.Now, and starts
	// the automatic sweeper of the folder it writes to.
	Now func() time.Time
	// WrapWriter, if not nil, wraps the writer of every file written
	// without a Store (see jsonl.Options.WrapWriter).
	WrapWriter func(w io.Writer) io.Writer
}

// hooks maps a weak pointer to options to their Hooks.
var hooks sync.Map

// Set attaches h to opts, for as long as opts lives, and returns opts: a
// test may build its options in a call's argument.
func Set[T any](opts *T, h Hooks) *T {
	k := weak.Make(opts)
	hooks.Store(k, h)
	runtime.AddCleanup(opts, func(k weak.Pointer[T]) { hooks.Delete(k) }, k)
	return opts
}

// Get returns the hooks attached to opts; none for nil.
func Get[T any](opts *T) Hooks {
	if opts == nil {
		return Hooks{}
	}
	h, _ := hooks.Load(weak.Make(opts))
	hh, _ := h.(Hooks)
	return hh
}
