package lro_test

import (
	"github.com/zircote/lro-go/internal/testhook"
	"github.com/zircote/lro-go/lro"
)

// hooked returns opts with the test hooks h attached: a clock, or a writer
// that fails.
func hooked(opts *lro.Options, h testhook.Hooks) *lro.Options {
	testhook.Set(opts, h)
	return opts
}
