//go:build unix

package memory

import (
	"fmt"
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

// TestTermsScaleLinearly: splitting a query costs the same CPU time per word
// at 2,000 and at 16,000 distinct words. It once grew with the words before
// (each was looked for among the earlier ones), so that one tool call whose
// query was 700 KB of distinct words (100,000) held a core for over a minute
// in Terms alone, twice per recall_memories or search_memories call, and
// could not be cancelled. CPU time, not wall time, and a ratio of 3 where a
// quadratic cost gives 8.
func TestTermsScaleLinearly(t *testing.T) {
	if testing.Short() {
		t.Skip("measures CPU time")
	}
	const words = 1 << 17 // split in all, at each size
	perWord := func(n int) time.Duration {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "w%d ", i)
		}
		q := b.String()
		start := cpuTime(t)
		for range words / n {
			if got := len(Terms(q)); got != n {
				t.Fatalf("Terms of %d distinct words: %d terms", n, got)
			}
		}
		return (cpuTime(t) - start) / words
	}
	small, large := perWord(2000), perWord(16000)
	t.Logf("CPU time per word: %v at 2,000 words, %v at 16,000", small, large)
	if large > 3*max(small, time.Nanosecond) {
		t.Errorf("CPU time per word grows with the query: %v at 2,000 words, %v at 16,000", small, large)
	}
}
