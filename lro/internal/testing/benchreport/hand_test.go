package main

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// spliceHand returns the report md with its section measured one at a time
// replaced by hand, the rest unchanged.
func spliceHand(md, hand string) (string, error) {
	before, rest, ok := strings.Cut(md, handBegin+"\n")
	_, after, ok2 := strings.Cut(rest, handEnd+"\n")
	if !ok || !ok2 {
		return "", errors.New("the report has no section between the lines " + handBegin + " and " + handEnd + ": regenerate it")
	}
	return before + handSection(hand) + strings.TrimPrefix(after, "\n"), nil
}

func TestSpliceHand(t *testing.T) {
	section := handSection("## Measured one at a time\n\nold figure\n")
	tests := []struct {
		name, md, hand string
		want           string // "" when an error is wanted
		why            string
	}{
		{name: "replaced", md: "# Benchmarks\n\n" + section + "## How to regenerate\n", hand: "## Measured one at a time\n\nnew figure\n",
			want: "# Benchmarks\n\n" + handSection("## Measured one at a time\n\nnew figure\n") + "## How to regenerate\n",
			why:  "the section is replaced and what is around it kept"},
		{name: "unchanged", md: "a\n\n" + section + "b\n", hand: "## Measured one at a time\n\nold figure\n",
			want: "a\n\n" + section + "b\n", why: "copying the same file again changes nothing"},
		{name: "no newline", md: section, hand: "x", want: handSection("x\n"), why: "a file without a final newline gets one"},
		{name: "no section", md: "# Benchmarks\n", hand: "x", why: "a report from before the section must be regenerated"},
		{name: "no end", md: handBegin + "\n\nx\n", hand: "x", why: "a section cut short is not guessed at"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := spliceHand(tt.md, tt.hand)
			if tt.want == "" {
				if err == nil {
					t.Fatalf("spliceHand = %q, want an error: %s", got, tt.why)
				}
				return
			}
			if err != nil {
				t.Fatalf("spliceHand: %v (%s)", err, tt.why)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.why, diff)
			}
		})
	}
}

// TestBenchmarksHoldsByHand checks that the module's BENCHMARKS.md holds
// by-hand.md as it is, so that the figures measured one at a time are the
// same in both and a run of benchreport loses none of them. After editing
// by-hand.md, go test -update copies it into BENCHMARKS.md.
func TestBenchmarksHoldsByHand(t *testing.T) {
	const path = "../../../../BENCHMARKS.md"
	md, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := spliceHand(string(md), byHand)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	golden(t, path, []byte(got))
	if !strings.Contains(byHand, "## Measured one at a time\n") {
		t.Errorf("by-hand.md has no heading \"## Measured one at a time\", which the report's first paragraph links to")
	}
}
