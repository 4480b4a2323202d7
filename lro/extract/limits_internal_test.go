package extract

import (
	"math"
	"testing"
	"time"

	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro"
)

// TestLimitsDoNotOverflow: every limit computed from the options stays
// within its type and above the option it comes from, for the largest
// value of each option that Validate accepts (issue 34, item 10).
func TestLimitsDoNotOverflow(t *testing.T) {
	huge := &Options{
		Timeout:        math.MaxInt64,
		MaxInputBytes:  math.MaxInt64,
		MaxRecordBytes: math.MaxInt,
		MaxMemoryBytes: math.MaxInt64,
		Workers:        math.MaxInt,
		LRO:            &lro.Options{ThresholdTokens: math.MaxInt, OutputDir: t.TempDir()},
	}
	for _, tt := range []struct {
		name string
		opts *Options
	}{
		{"every option at its largest", huge},
		{"the output limit at its largest", func() *Options { o := *huge; o.MaxOutputBytes = math.MaxInt64 / answerShare; return &o }()},
		{"each option at its largest, the others default", &Options{MaxRecordBytes: math.MaxInt}},
		{"the largest timeout alone", &Options{Timeout: math.MaxInt64}},
		{"the largest memory alone", &Options{MaxMemoryBytes: math.MaxInt64}},
		{"the largest threshold alone", &Options{LRO: &lro.Options{ThresholdTokens: math.MaxInt}}},
		{"the smallest output limit", &Options{MaxOutputBytes: 1}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := newConfig(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			// The frames of a worker hold its output and its results' spans.
			if f := c.maxFrames(); f < int64(c.MaxOutputBytes) || f/resultCost < int64(c.maxResults()) {
				t.Errorf("maxFrames() = %d, less than MaxOutputBytes %d and %d bytes for each of the %d results", f, c.MaxOutputBytes, resultCost, c.maxResults())
			}
			if c.maxResults() < 1 {
				t.Errorf("maxResults() = %d", c.maxResults())
			}
			if l := cpuLimit(c.Timeout); l < c.Timeout.Truncate(time.Second) || l < time.Second {
				t.Errorf("cpuLimit(%v) = %v", c.Timeout, l)
			}
			if m := c.limits().workerMemory(); m <= 0 || m > c.MaxMemoryBytes {
				t.Errorf("workerMemory() = %d of %d", m, c.MaxMemoryBytes)
			}
			if m, l := c.limits().workerMemory(), addressLimit(1<<40, c.limits().workerMemory()); l < 1<<40 || l < uint64(m) || l > math.MaxInt64 {
				t.Errorf("addressLimit(1 TiB, %d) = %d", m, l)
			}
			if n := c.defaultMaxChars(); n < 1 {
				t.Errorf("lro_read's default max_chars = %d", n)
			}
			if n := c.maxResourceBytes(); n < 0 {
				t.Errorf("maxResourceBytes() = %d", n)
			}
		})
	}
}

// TestHeaderCountDoesNotOverflow: the lines a file's header announces,
// which lro_read and lro_search compare with the line they stopped at, do
// not wrap for a hostile count.
func TestHeaderCountDoesNotOverflow(t *testing.T) {
	for count, want := range map[int]int{0: 1, 41: 42, math.MaxInt: math.MaxInt, -5: 1} {
		if got := (&source{header: jsonl.Header{Count: count}}).lines(); got != want {
			t.Errorf("lines() of a header of count %d = %d, want %d", count, got, want)
		}
	}
}
