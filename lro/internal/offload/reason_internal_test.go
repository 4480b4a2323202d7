package offload

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestReasonHidesHandle: the fallback's warning names no handle of an
// object that a bucket may still complete; the event's error keeps it.
func TestReasonHidesHandle(t *testing.T) {
	const handle = "atlatl-items-01KBX5Z3M2C7Q1T6Y8W0E4R2N9-0123456789abcdef0123456789abcdef.jsonl"
	cause := errors.New("connection reset")
	err := &storeError{err: fmt.Errorf("store: %s: %w", handle, cause), handle: handle}
	if got := reason(err); strings.Contains(got, handle) || !strings.Contains(got, "connection reset") {
		t.Errorf("reason = %q, want the cause without the handle", got)
	}
	if !strings.Contains(err.Error(), handle) || !errors.Is(err, cause) {
		t.Errorf("error = %q, want the handle and the cause kept for the event", err)
	}
	if got := reason(cause); got != "connection reset" {
		t.Errorf("reason of a folder's error = %q, want it unchanged", got)
	}
}
