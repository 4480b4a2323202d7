package testhook_test

import (
	"runtime"
	"testing"
	"time"

	"github.com/zircote/lro-go/internal/testhook"
)

type options struct{ name string }

// TestSetGet checks that hooks belong to the pointer they were set on: not
// to a copy, not to nil.
func TestSetGet(t *testing.T) {
	now := func() time.Time { return time.Unix(0, 0) }
	a := &options{name: "a"}
	testhook.Set(a, testhook.Hooks{Now: now})
	if testhook.Get(a).Now == nil {
		t.Error("Get(a) has no Now, want the one set")
	}
	b := *a
	if testhook.Get(&b).Now != nil {
		t.Error("Get of a copy has a Now, want none")
	}
	if testhook.Get[options](nil).Now != nil {
		t.Error("Get(nil) has a Now, want none")
	}
	runtime.KeepAlive(a)
}
