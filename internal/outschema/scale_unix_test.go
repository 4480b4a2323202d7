//go:build unix

package outschema

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime returns the CPU time the process has used.
func cpuTime(t *testing.T) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// TestWidenScalesLinearly: widening a schema nested 2,000 levels deep costs
// the same CPU time per byte as one nested 250 levels. Rebasing once read
// each subschema again at each level above it, so that an upstream's
// tools/list with one output schema of 150 KB nested 4,000 levels deep held
// the proxy's reading of that upstream for 50 seconds, at every tools/list.
// CPU time, not wall time, and a ratio of 3 where the quadratic cost gives 8.
func TestWidenScalesLinearly(t *testing.T) {
	if testing.Short() {
		t.Skip("measures CPU time")
	}
	const total = 2000 * 4 // levels widened at each depth
	perByte := func(depth int) time.Duration {
		schema := []byte(strings.Repeat(`{"type":"object","properties":{"a":`, depth) + `{"$ref":"#/properties/a"}` + strings.Repeat(`}}`, depth))
		start := cpuTime(t)
		for range total / depth {
			if _, err := WidenJSON(schema); err != nil {
				t.Fatal(err)
			}
		}
		return (cpuTime(t) - start) / time.Duration(total/depth*len(schema))
	}
	small, large := perByte(250), perByte(2000)
	t.Logf("CPU time per byte: %v nested 250 levels, %v nested 2,000", small, large)
	if large > 3*max(small, time.Nanosecond) {
		t.Errorf("CPU time per byte grows with the depth: %v nested 250 levels, %v nested 2,000", small, large)
	}
}
