package main

// Figures of the LRO paper, "Large Result Offloading: Demand-Driven Context
// Management for Tool-Augmented Language Models", quoted where the report
// sets ours beside them.

// paperFileWriteMs is the paper's measured file-write overhead: "Measured
// file-write overhead is 23.9ms (E1, median across all LRO runs)."
const paperFileWriteMs = 23.9

// paperShellStartup is the paper's shell start-up cost: "Shell startup for a
// jq or grep command adds 50—100ms depending on the host."
const paperShellStartup = "50–100 ms"

// paperDescriptorTokens is the descriptor overhead the paper assumes:
// "a fixed overhead (approximately 800 tokens for the summary, schema, and
// recipe library)".
const paperDescriptorTokens = 800

// paperTokensPerRecord is the paper's t, tokens per full-detail memory
// record, lost in its text: 155 reproduces every cell of Table 1 (and its
// Appendix C: 247 memories, ~38,285 tokens).
const paperTokensPerRecord = 155

// paperTable1N are the result set sizes of Table 1's columns, lost in the
// paper's text: these reproduce every cell.
var paperTable1N = []int{50, 100, 250, 500}

// paperTable1R are the access ratios of Table 1's rows.
var paperTable1R = []float64{0.01, 0.02, 0.05, 0.10, 0.25, 0.50}

// paperTable1 is Table 1, "Context window savings by access ratio and result
// set size", in percent, as printed.
var paperTable1 = [][]float64{
	{88.7, 93.8, 96.9, 98.0},
	{87.7, 92.8, 95.9, 97.0},
	{84.7, 89.8, 92.9, 94.0},
	{79.7, 84.8, 87.9, 89.0},
	{64.7, 69.8, 72.9, 74.0},
	{39.7, 44.8, 47.9, 49.0},
}

// savings is the paper's context window savings of offloading n records of
// t tokens each behind a descriptor of d tokens, when the agent then reads a
// fraction r of the records: 1 − (d + r·n·t)/(n·t).
func savings(r float64, n int, t, d float64) float64 {
	inline := float64(n) * t
	return 1 - (d+r*inline)/inline
}

// breakeven is the access ratio at which offloading n records of t tokens
// behind a descriptor of d tokens saves nothing: 1 − d/(n·t).
func breakeven(n int, t, d float64) float64 {
	return 1 - d/(float64(n)*t)
}
