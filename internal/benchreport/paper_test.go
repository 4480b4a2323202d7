package main

import (
	"math"
	"testing"
)

// TestPaperTable1 checks that the formula and the reconstructed parameters
// (n = 50, 100, 250, 500; t = 155; D = 800) give every cell of the paper's
// Table 1 as printed, so that the recomputed tables rest on the paper's own
// model.
func TestPaperTable1(t *testing.T) {
	for i, r := range paperTable1R {
		for j, n := range paperTable1N {
			got := savings(r, n, paperTokensPerRecord, paperDescriptorTokens) * 100
			if want := paperTable1[i][j]; math.Abs(got-want) > 0.05 {
				t.Errorf("savings(r=%.2f, n=%d) = %.2f%%, paper prints %.1f%%", r, n, got, want)
			}
		}
	}
}

// TestPaperBreakeven checks the paper's breakeven example: "For n = 50,
// breakeven is at (consuming 45 of 50 records)".
func TestPaperBreakeven(t *testing.T) {
	if got := math.Round(breakeven(50, paperTokensPerRecord, paperDescriptorTokens) * 50); got != 45 {
		t.Errorf("breakeven(50) reads %v of 50 records, the paper says 45", got)
	}
	if got := savings(breakeven(50, 155, 800), 50, 155, 800); math.Abs(got) > 1e-12 {
		t.Errorf("savings at breakeven = %v, want 0", got)
	}
}
