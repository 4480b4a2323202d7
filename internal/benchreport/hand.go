package main

import (
	_ "embed"
	"strings"
)

// byHand is the report's section of figures measured one at a time by the tests
// it names, copied by every run and by go test -update (TestBenchmarksHoldsByHand).
//
//go:embed by-hand.md
var byHand string

// The lines around the section copied from by-hand.md.
const (
	handBegin = "<!-- by-hand: copied from internal/benchreport/by-hand.md; edit it there, then run go test ./internal/benchreport -update -->"
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
