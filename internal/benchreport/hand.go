package main

import (
	_ "embed"
	"fmt"
	"strings"
)

// byHand is the report's section of figures measured one at a time by the
// tests and benchmarks it names: kept by hand in by-hand.md and copied into
// the report by every run.
//
//go:embed by-hand.md
var byHand string

// The lines around the section copied from by-hand.md.
const (
	handBegin = "<!-- by-hand: copied from internal/benchreport/by-hand.md; edit it there, then run go run ./internal/benchreport -hand -->"
	handEnd   = "<!-- by-hand: end -->"
)

// handSection returns the section as the report holds it: hand, between its
// two lines.
func handSection(hand string) string {
	if hand != "" && !strings.HasSuffix(hand, "\n") {
		hand += "\n"
	}
	return handBegin + "\n\n" + hand + "\n" + handEnd + "\n\n"
}

// spliceHand returns the report md with its section measured one at a time
// replaced by hand, the rest unchanged (-hand).
func spliceHand(md, hand string) (string, error) {
	i := strings.Index(md, handBegin+"\n")
	if i < 0 {
		return "", fmt.Errorf("the report has no line %q: regenerate it", handBegin)
	}
	j := strings.Index(md[i:], handEnd+"\n")
	if j < 0 {
		return "", fmt.Errorf("the report has no line %q after %q: regenerate it", handEnd, handBegin)
	}
	end := i + j + len(handEnd) + 1
	if strings.HasPrefix(md[end:], "\n") {
		end++
	}
	return md[:i] + handSection(hand) + md[end:], nil
}
