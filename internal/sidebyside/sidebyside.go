// Package sidebyside runs the two arms of a comparative benchmark
// alternately in one run, so that noise on a shared machine (and the garbage
// one arm leaves for the other) hits both alike, and reports the median of
// each arm and the ratio of the medians.
//
// The metrics are named {A}-median-ns, {B}-median-ns and {A}/{B}; the report
// generator (internal/benchreport) reads them by these names.
package sidebyside

import (
	"slices"
	"testing"
	"time"
)

// Arm is one side of a comparison.
type Arm struct {
	// Name names the arm in the reported metrics.
	Name string
	// Prep, if not nil, runs before each timed call of Run, untimed.
	Prep func()
	// Run is the work that is timed.
	Run func()
}

// Run times a and c alternately b.N times each, swapping which goes first on
// every iteration, and reports the median per-call time of each and the ratio
// of their medians (a over c).
func Run(b *testing.B, a, c Arm) {
	b.Helper()
	var ta, tc []time.Duration
	timed := func(arm Arm) time.Duration {
		if arm.Prep != nil {
			arm.Prep()
		}
		t0 := time.Now()
		arm.Run()
		return time.Since(t0)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			ta = append(ta, timed(a))
			tc = append(tc, timed(c))
		} else {
			tc = append(tc, timed(c))
			ta = append(ta, timed(a))
		}
		i++
	}
	ma, mc := Median(ta), Median(tc)
	b.ReportMetric(float64(ma.Nanoseconds()), a.Name+"-median-ns")
	b.ReportMetric(float64(mc.Nanoseconds()), c.Name+"-median-ns")
	b.ReportMetric(float64(ma)/float64(mc), a.Name+"/"+c.Name)
}

// Median returns the median of d (the upper one for an even count), without
// changing d. It panics on an empty d.
func Median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
