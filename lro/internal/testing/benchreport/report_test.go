package main

import (
	"flag"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// testReport is a report of fixed figures: the benchmark results are
// recorded go test output under testdata.
func testReport(t *testing.T) *report {
	t.Helper()
	r := &report{
		Started: time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC),
		Elapsed: 150 * time.Second,
		Command: baseCommand,
		Machine: machine{CPU: "Test CPU (amd64)", Cores: 2, OS: "linux, Test OS, kernel 6.1.0", MemBytes: 8 << 30,
			Go: "go version go1.25.0 linux/amd64", JQ: "jq-1.6", LoadStart: [3]float64{3.1, 2, 1}, LoadEnd: [3]float64{0.5, 1, 1}},
		Hand: "## Measured one at a time\n\nA figure, with its command.\n",
	}
	var results []benchResult
	for _, f := range []string{"lro", "proxy", "cleanup", "store", "extract"} {
		results = append(results, mustParse(t, "testdata/bench-"+f+".txt")...)
	}
	for _, c := range comparisons {
		if err := c.fill(results); err != nil {
			t.Fatal(err)
		}
		r.Compared = append(r.Compared, c)
	}
	r.Flat = mustParse(t, "testdata/bench-flat.txt")
	r.Peaks = []peakResult{
		{What: "offload (`lro.Wrap`, default threshold)", InputBytes: 27_800_000, FileBytes: 27_900_000,
			BeforeBytes: 40 << 20, PeakBytes: 41 << 20, ProcessPeak: 75 << 20, Millis: 3600},
		{What: "extraction in process (`lro_extract`, query)", InputBytes: 27_900_000, BeforeBytes: 12 << 20, PeakBytes: 20 << 20, ProcessPeak: 20 << 20,
			Output: strings.Repeat("1\n", 999) + "1", Millis: 2100},
	}
	return r
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got); if the change is intended, run go test -update:\n%s", path, diff)
	}
}

func TestMarkdownGolden(t *testing.T) {
	golden(t, "testdata/report.golden.md", []byte(testReport(t).markdown()))
}

// TestMarkdownContents checks what the report must show whatever its
// wording: every comparison, the machine and the paper's figures beside
// ours.
func TestMarkdownContents(t *testing.T) {
	r := testReport(t)
	md := r.markdown()
	for _, want := range []string{
		"go version go1.25.0 linux/amd64", "Test CPU (amd64), 2 logical CPUs", "3.10, 2.00, 1.00 at the start",
		"shared and noisy",
		"23.9 ms", "800", "50–100 ms", "TestDescriptorTokens",
		"`BenchmarkRecipeVsJQ/6-count-by-namespace` (./lro/extract, 1 run of each arm)",
		"| 1,000,000 | 0.16 B | 27.8 B |",
		"## At a glance", "## How to regenerate", "```sh\ngo run ./lro/internal/testing/benchreport\n```",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	for _, c := range r.Compared {
		if !strings.Contains(md, c.Label) {
			t.Errorf("the report lacks comparison %q", c.Label)
		}
	}
	if strings.Index(md, "## At a glance") > strings.Index(md, "## Latency") || strings.Index(md, "## Tokens") > strings.Index(md, "## How to regenerate") {
		t.Error("sections out of order: at a glance first, how to regenerate last")
	}
	r.Machine.LoadStart, r.Machine.LoadEnd = [3]float64{0.2, 0.2, 0.2}, [3]float64{0.9, 0.2, 0.2}
	if strings.Contains(r.markdown(), "shared and noisy") {
		t.Error("a load average below half the CPUs is reported as noisy")
	}
}

func TestFormat(t *testing.T) {
	tests := []struct {
		reason string
		got    string
		want   string
	}{
		{"thousands separators", thousands(1234567), "1,234,567"},
		{"no separator below 1,000", thousands(999), "999"},
		{"negative", thousands(-1234), "-1,234"},
		{"a sub-benchmark name that is not a number stays", thousandsString("big"), "big"},
		{"nanoseconds", duration(950), "950 ns"},
		{"microseconds, 3 significant digits", duration(29210), "29.2 µs"},
		{"milliseconds", duration(7_670_456), "7.67 ms"},
		{"seconds", duration(3.6e9), "3.60 s"},
		{"ratio below 1, three significant digits", times(0.5031), "0.503×"},
		{"ratio below 10", times(1.714), "1.71×"},
		{"ratio above 100", times(123.4), "123×"},
		{"bytes", bytesIEC(27_800_000), "26.5 MiB"},
		{"small bytes", bytesIEC(512), "512 B"},
		{"shell quoting of a pattern", shellJoin([]string{"-bench", "^(A|B)$", "./lro"}), "-bench '^(A|B)$' ./lro"},
		{"shell quoting of an empty argument", shellJoin([]string{"-run", ""}), "-run ''"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.reason, tt.got, tt.want)
		}
	}
}
