// Package sidebyside runs the arms of a comparative benchmark in turn in one
// run, so that noise on a shared machine (and the garbage one arm leaves for
// the next) hits all alike, and reports the median of each arm and the
// ratios of the medians.
//
// The metrics are named {A}-median-ns and {A}/{B}; the report generator
// (lro/internal/testing/benchreport) reads them by these names.
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

// Run times the arms in turn b.N times each, rotating which goes first on
// every iteration, and reports the median per-call time of each and the
// ratio of each median to those of the arms after it.
func Run(b *testing.B, arms ...Arm) {
	b.Helper()
	times := make([][]time.Duration, len(arms))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		for k := range arms {
			j := (i + k) % len(arms)
			if arms[j].Prep != nil {
				arms[j].Prep()
			}
			t0 := time.Now()
			arms[j].Run()
			times[j] = append(times[j], time.Since(t0))
		}
	}
	medians := make([]float64, len(arms))
	for j, a := range arms {
		slices.Sort(times[j])
		medians[j] = float64(times[j][len(times[j])/2]) // the upper one for an even count
		b.ReportMetric(medians[j], a.Name+"-median-ns")
	}
	for j := range arms {
		for k := j + 1; k < len(arms); k++ {
			b.ReportMetric(medians[j]/medians[k], arms[j].Name+"/"+arms[k].Name)
		}
	}
}
