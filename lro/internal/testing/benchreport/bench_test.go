package main

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseBench(t *testing.T) {
	tests := []struct {
		name    string
		reason  string
		input   string
		want    []benchResult
		wantErr string
	}{
		{
			name:   "custom metrics",
			reason: "a side-by-side line carries medians and a ratio beside the standard metrics",
			input: "pkg: example.com/p\n" +
				"BenchmarkX-2   \t 100\t 1234 ns/op\t 10 a-median-ns\t 20 b-median-ns\t 0.5 a/b\t 64 B/op\t 2 allocs/op\nPASS\n",
			want: []benchResult{{Name: "BenchmarkX", Iters: 100, Metrics: map[string]float64{
				"ns/op": 1234, "a-median-ns": 10, "b-median-ns": 20, "a/b": 0.5, "B/op": 64, "allocs/op": 2}}},
		},
		{
			name:   "sub-benchmark",
			reason: "the -GOMAXPROCS suffix is cut after the sub-benchmark's own name",
			input:  "BenchmarkY/1000000-2 1 5 ns/op\n",
			want:   []benchResult{{Name: "BenchmarkY/1000000", Iters: 1, Metrics: map[string]float64{"ns/op": 5}}},
		},
		{
			name:   "GOMAXPROCS 1",
			reason: "with one CPU go test prints no suffix",
			input:  "BenchmarkZ 3 7 ns/op\n",
			want:   []benchResult{{Name: "BenchmarkZ", Iters: 3, Metrics: map[string]float64{"ns/op": 7}}},
		},
		{
			name:   "name line before logs",
			reason: "a benchmark that logs prints its name alone first; that line is no result",
			input:  "BenchmarkL-2\n    bench_test.go:10: hello\nBenchmarkL-2 5 9 ns/op\n",
			want:   []benchResult{{Name: "BenchmarkL", Iters: 5, Metrics: map[string]float64{"ns/op": 9}}},
		},
		{
			name:    "failed benchmark",
			reason:  "a failure must stop the report, not leave a hole in it",
			input:   "BenchmarkX-2 1 5 ns/op\n--- FAIL: BenchmarkY\nFAIL\n",
			wantErr: "line 2: benchmark failed",
		},
		{
			name:    "panic",
			reason:  "a panicking benchmark prints no FAIL line before the trace",
			input:   "panic: boom\n",
			wantErr: "line 1: benchmark failed",
		},
		{
			name:    "bad value",
			reason:  "a value that is not a number is named with its unit",
			input:   "BenchmarkX-2 1 abc ns/op\n",
			wantErr: `value "abc" of ns/op`,
		},
		{
			name:    "odd fields",
			reason:  "a value without a unit cannot be attributed",
			input:   "BenchmarkX-2 1 5 ns/op 7\n",
			wantErr: "odd number of value and unit fields",
		},
		{
			name:    "not a result",
			reason:  "a line that starts like a result but has no iteration count is reported",
			input:   "BenchmarkX-2 skipped because\n",
			wantErr: "not a benchmark result",
		},
		{
			name:    "no results",
			reason:  "a pattern that matched nothing gives no line at all",
			input:   "PASS\nok  \texample.com/p\t0.01s\n",
			wantErr: "benchreport: no benchmark results",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseBench(strings.NewReader(tt.input))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("parseBench() error = %v, want one containing %q (%s)", err, tt.wantErr, tt.reason)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseBench() error = %v (%s)", err, tt.reason)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("parseBench() mismatch (-want +got), %s:\n%s", tt.reason, diff)
			}
		})
	}
}

func TestFill(t *testing.T) {
	results := mustParse(t, "testdata/bench-proxy.txt")
	byKey := func(key string) comparison {
		for _, c := range comparisons {
			if c.Key == key {
				return c
			}
		}
		t.Fatalf("no comparison %q", key)
		return comparison{}
	}
	tests := []struct {
		name    string
		reason  string
		c       comparison
		want    [3]float64 // ANs, BNs, Ratio
		wantErr string
	}{
		{name: "proxy", reason: "the first arm against the last of a three-arm benchmark", c: byKey("proxy"), want: [3]float64{685719, 392102, 1.749}},
		{name: "forwarder", reason: "the middle arm of the same benchmark line", c: byKey("forwarder"), want: [3]float64{693450, 392102, 1.769}},
		{name: "missing metric", reason: "a renamed arm is reported with the metrics there are",
			c: comparison{Bench: "BenchmarkProxySmallCall", A: "proxy", B: "upstream"}, wantErr: `no metric "upstream-median-ns"`},
		{name: "missing benchmark", reason: "a renamed benchmark is reported by name",
			c: comparison{Bench: "BenchmarkGone", A: "a", B: "b"}, wantErr: "BenchmarkGone: no result"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.c
			err := got.fill(results)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("fill() error = %v, want one containing %q (%s)", err, tt.wantErr, tt.reason)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, [3]float64{got.ANs, got.BNs, got.Ratio}); diff != "" || got.Iters != 20 {
				t.Errorf("fill() = %+v, mismatch (-want +got), %s:\n%s", got, tt.reason, diff)
			}
		})
	}
}

// TestFillMedians checks that a benchmark run several times (-count) is
// reported by the median of each figure over its runs, each figure apart,
// and that a run without one of the metrics fails the report.
func TestFillMedians(t *testing.T) {
	const out = `BenchmarkOffload500-2   10   1 ns/op   300 offload-median-ns   100 marshal_write-median-ns   3.0 offload/marshal_write
BenchmarkOffload500-2   30   1 ns/op   160 offload-median-ns   100 marshal_write-median-ns   1.6 offload/marshal_write
BenchmarkOther-2         5   1 ns/op
BenchmarkOffload500-2   20   1 ns/op   150 offload-median-ns   110 marshal_write-median-ns   1.4 offload/marshal_write
`
	results, err := parseBench(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	c := comparison{Pkg: "./lro", Bench: "BenchmarkOffload500", A: "offload", B: "marshal_write"}
	if err := c.fill(results); err != nil {
		t.Fatal(err)
	}
	got := [5]float64{float64(c.Runs), float64(c.Iters), c.ANs, c.BNs, c.Ratio}
	if diff := cmp.Diff([5]float64{3, 20, 160, 100, 1.6}, got); diff != "" {
		t.Errorf("fill() of three runs: [runs iters A B ratio] mismatch (-want +got), the median of each over the runs:\n%s", diff)
	}

	results[3].Metrics = map[string]float64{"ns/op": 1}
	c = comparison{Pkg: "./lro", Bench: "BenchmarkOffload500", A: "offload", B: "marshal_write"}
	if err := c.fill(results); err == nil || !strings.Contains(err.Error(), `no metric "offload-median-ns"`) {
		t.Errorf("fill() with a run without the metrics: error = %v, want one naming the metric", err)
	}
}

func TestPlanRuns(t *testing.T) {
	cs := []comparison{
		{Pkg: "./a", Bench: "BenchmarkOne", A: "x", B: "y", Benchtime: "1s"},
		{Pkg: "./a", Bench: "BenchmarkOne", A: "z", B: "y", Benchtime: "1s"},
		{Pkg: "./b", Bench: "BenchmarkSub/s1", Benchtime: "5x"},
		{Pkg: "./a", Bench: "BenchmarkTwo", Benchtime: "1s"},
		{Pkg: "./a", Bench: "BenchmarkSlow", Benchtime: "3x"},
		{Pkg: "./b", Bench: "BenchmarkSub/s2", Benchtime: "5x"},
	}
	want := []benchRun{
		{Pkg: "./a", Benches: []string{"BenchmarkOne", "BenchmarkTwo"}, Benchtime: "1s"},
		{Pkg: "./b", Benches: []string{"BenchmarkSub"}, Benchtime: "5x"},
		{Pkg: "./a", Benches: []string{"BenchmarkSlow"}, Benchtime: "3x"},
	}
	got := planRuns(cs)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("planRuns() mismatch (-want +got): one go test per package and benchtime, each benchmark function once (arms and sub-benchmarks share it):\n%s", diff)
	}
	args := strings.Join(got[0].args(), " ")
	if wantArgs := "test -run ^$ -bench ^(BenchmarkOne|BenchmarkTwo)$ -benchtime 1s -count 1 ./a"; args != wantArgs {
		t.Errorf("args() = %q, want %q", args, wantArgs)
	}
}

// TestComparisonsExist checks that every benchmark the report reads exists
// in its package, so that a renamed benchmark fails here rather than in the
// full run, and that no two packages run a benchmark of the same name, as
// the results of every run are told apart by name alone.
func TestComparisonsExist(t *testing.T) {
	pkgOf := map[string]string{} // benchmark function -> package
	for _, r := range append(planRuns(comparisons), flatRun) {
		dir := "../../../../" + strings.TrimPrefix(r.Pkg, "./")
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var src strings.Builder
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), "_test.go") {
				b, err := os.ReadFile(dir + "/" + e.Name())
				if err != nil {
					t.Fatal(err)
				}
				src.Write(b)
			}
		}
		for _, b := range r.Benches {
			if !strings.Contains(src.String(), "func "+b+"(b *testing.B)") {
				t.Errorf("%s has no func %s(b *testing.B)", r.Pkg, b)
			}
			if p, ok := pkgOf[b]; ok && p != r.Pkg {
				t.Errorf("%s and %s both run a benchmark named %s: their results cannot be told apart", p, r.Pkg, b)
			}
			pkgOf[b] = r.Pkg
		}
		for _, c := range comparisons {
			if c.Pkg != r.Pkg {
				continue
			}
			if _, sub, ok := strings.Cut(c.Bench, "/"); ok && !strings.Contains(src.String(), `"`+sub+`"`) {
				t.Errorf("%s: no sub-benchmark named %q (comparison %s)", r.Pkg, sub, c.Key)
			}
			for _, arm := range []string{c.A, c.B} {
				if !strings.Contains(src.String(), `"`+arm+`"`) {
					t.Errorf("%s: no arm named %q in its benchmarks (comparison %s)", r.Pkg, arm, c.Key)
				}
			}
		}
	}
}

func mustParse(t *testing.T, path string) []benchResult {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := parseBench(f)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
