package recipes_test

import (
	"bytes"
	"os/exec"
	"testing"
	"time"

	"github.com/zircote/lro-go/recipes"
)

// costFiles are large files of real shapes on which a recipe can cost much
// more than reading the file: long lines, large nested records, many keys,
// deep nesting, floats.
var costFiles = []struct {
	name, reason string
	records      func() []any
}{
	{"long lines", "20 lines of 20 KB: words counted one by one (the 664 s case, on more lines)", func() []any { return longLines(20, 20<<10) }},
	{"long log lines", "20 lines of 20 KB that start with a time and a level", func() []any { return longLogLines(20, 20<<10) }},
	{"log lines", "5,000 short lines that start with a time and a level", func() []any { return longLogLines(5000, 80) }},
	{"pull requests", "80 pull requests of about 20 KB, nested users, repositories and labels: paths of every leaf", func() []any { return pullRequests(80) }},
	{"issues", "1,000 issues of about 3 KB", func() []any { return ghIssues(1000) }},
	{"many keys", "50 records of 2,000 keys", func() []any { return manyKeys(50, 2000) }},
	{"deep nesting", "200 records nested 120 levels deep", func() []any { return deepRecords(200, 60) }},
	{"floats", "300 records with 512 floats each", func() []any { return embeddings(300, 512) }},
}

// maxCostRatio and costStartup bound the CPU time of a recipe: at most
// maxCostRatio times that of jq -c . on the same records, plus costStartup
// for jq's start-up and the compilation of the filter.
const (
	maxCostRatio = 10
	costStartup  = 100 * time.Millisecond
)

// TestRecipeCost runs every recipe handed out for large files of real
// shapes, and those made without a sample, under jq 1.6 and bounds its CPU time (user and system time of the
// jq process, which load does not inflate as it does wall time) by
// maxCostRatio times that of jq -c . on the same records, measured in the
// same run, plus costStartup. A recipe over the bound is run again once, so
// that one slow run does not fail the test.
func TestRecipeCost(t *testing.T) {
	needJQ(t)
	for _, tc := range costFiles {
		t.Run(tc.name, func(t *testing.T) {
			records := tc.records()
			smp := sample(t, records)
			var in bytes.Buffer
			for _, raw := range smp {
				in.Write(raw)
				in.WriteByte('\n')
			}
			base := jqCPU(t, []string{"-c", "."}, in.Bytes())
			for range 2 {
				base = min(base, jqCPU(t, []string{"-c", "."}, in.Bytes()))
			}
			bound := maxCostRatio*base + costStartup
			// The recipes for these records, and those made without a
			// sample, which any records may get.
			rs := recipes.Generic(smp)
			seen := map[string]bool{}
			for _, r := range rs {
				seen[r.Filter] = true
			}
			for _, r := range recipes.Generic(nil) {
				if !seen[r.Filter] {
					rs = append(rs, r)
				}
			}
			for _, r := range rs {
				cost := jqCPU(t, r.Args(), in.Bytes())
				if cost > bound {
					cost = min(cost, jqCPU(t, r.Args(), in.Bytes()))
				}
				t.Logf("recipe %2d %-60q %6.1fx", r.Number, r.Description, float64(cost)/float64(base))
				if cost > bound {
					t.Errorf("%s: recipe %d %q takes %v of CPU, %.0f times jq -c . (%v): bound %v\nfilter: %s",
						tc.reason, r.Number, r.Description, cost, float64(cost)/float64(base), base, bound, r.Filter)
				}
			}
		})
	}
}

// jqCPU runs jq with args on input and returns the CPU time it took.
func jqCPU(t *testing.T, args []string, input []byte) time.Duration {
	t.Helper()
	cmd := exec.Command("jq", args...)
	cmd.Stdin = bytes.NewReader(input)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("jq %q: %v\n%s", args, err, stderr.Bytes())
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}
