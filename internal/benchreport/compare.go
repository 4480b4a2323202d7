package main

import (
	"fmt"
	"slices"
)

// comparison is one side-by-side benchmark the report shows: the benchmark
// runs arms A and B alternately in one run and reports each arm's median
// ("A-median-ns", "B-median-ns") and the ratio of the medians ("A/B").
type comparison struct {
	Key       string  // identifies the comparison in the report's prose
	Short     string  // the chart's label, "A / B" in a few words
	Label     string  // what arm A is
	Versus    string  // what arm B is
	Pkg       string  // package, "./lro"
	Bench     string  // full benchmark name, "BenchmarkInlineOverhead"
	A, B      string  // arm names in the metrics
	Benchtime string  // -benchtime
	Target    float64 // the project's target for A/B, 0 when none
	Paper     string  // the paper's figure to set beside A, if any
}

// comparisons are the side-by-side benchmarks of the report, in its order.
var comparisons = []comparison{
	{
		Key: "inline", Short: "wrapped, inline / bare handler", Label: "wrapped handler, result below the threshold (8 records, inline)", Versus: "the bare handler",
		Pkg: "./lro", Bench: "BenchmarkInlineOverhead", A: "wrapped", B: "bare", Benchtime: "1s", Target: 1.05,
	},
	{
		Key: "offload", Short: "offload 500 / marshal + write", Label: "offload of 500 full-detail records (handler's marshal, JSONL file, descriptor)", Versus: "`json.Marshal` + `os.WriteFile` of the same records",
		Pkg: "./lro", Bench: "BenchmarkOffload500", A: "offload", B: "marshal_write", Benchtime: "1s", Target: 1.5,
		Paper: fmt.Sprintf("%.1f ms file write (E1 median)", paperFileWriteMs),
	},
	{
		Key: "extract", Short: "extract in process / jq binary", Label: "extraction in process (`lro/extract`)", Versus: "the `jq` binary",
		Pkg: "./lro/extract", Bench: "BenchmarkExtractVsJQ", A: "extract", B: "jq", Benchtime: "1s",
		Paper: "shell start-up " + paperShellStartup + " per command",
	},
	{
		Key: "proxy", Short: "through the proxy / direct", Label: "small call through the local proxy (3 items, inline)", Versus: "the same call direct to the upstream",
		Pkg: "./lro/proxy", Bench: "BenchmarkProxySmallCall", A: "proxy", B: "direct", Benchtime: "1s", Target: 1.2,
	},
	{
		Key: "forwarder", Short: "bare go-sdk forwarder / direct", Label: "the same call through a bare go-sdk forwarder (the second hop alone)", Versus: "the same call direct",
		Pkg: "./lro/proxy", Bench: "BenchmarkProxySmallCall", A: "forwarder", B: "direct", Benchtime: "1s",
	},
	{
		Key: "sweep", Short: "sweep, none expired / ReadDir", Label: "janitor sweep of 10,000 offload files, none expired", Versus: "`os.ReadDir` of the folder",
		Pkg: "./cleanup", Bench: "BenchmarkSweepNoneExpired", A: "sweep", B: "readdir", Benchtime: "1s",
	},
	{
		Key: "sweep_all", Short: "sweep, all expired / ReadDir", Label: "janitor sweep of 10,000 offload files, all expired (removed)", Versus: "`os.ReadDir` of the folder",
		Pkg: "./cleanup", Bench: "BenchmarkSweepAllExpired", A: "sweep", B: "readdir", Benchtime: "1s",
	},
}

// flatRun is lro's benchmark of the heap an offload allocates per record,
// run once per size.
var flatRun = benchRun{Pkg: "./lro", Benches: []string{"BenchmarkOffloadMemoryFlat"}, Benchtime: "1x"}

// planRuns groups the comparisons into go test invocations, one per package
// and benchtime, each benchmark once, in the comparisons' order.
func planRuns(cs []comparison) []benchRun {
	var runs []benchRun
	for _, c := range cs {
		i := slices.IndexFunc(runs, func(r benchRun) bool { return r.Pkg == c.Pkg && r.Benchtime == c.Benchtime })
		if i < 0 {
			runs = append(runs, benchRun{Pkg: c.Pkg, Benchtime: c.Benchtime})
			i = len(runs) - 1
		}
		if !slices.Contains(runs[i].Benches, c.Bench) {
			runs[i].Benches = append(runs[i].Benches, c.Bench)
		}
	}
	return runs
}

// status says whether a comparison was measured.
type status int

const (
	measured status = iota // the figures are from this run
	pending                // the package is not in this tree yet
)

// compared is a comparison with its figures.
type compared struct {
	comparison
	Status status
	Iters  int64   // timed iterations of each arm
	ANs    float64 // median of arm A, ns
	BNs    float64 // median of arm B, ns
	Ratio  float64 // A/B as the benchmark reported it
}

// fill takes the figures of c from results. It fails when the benchmark did
// not run or did not report one of the three metrics, naming it.
func fill(c comparison, results []benchResult) (compared, error) {
	i := slices.IndexFunc(results, func(r benchResult) bool { return r.Name == c.Bench })
	if i < 0 {
		return compared{}, fmt.Errorf("%s %s: no result", c.Pkg, c.Bench)
	}
	r := results[i]
	out := compared{comparison: c, Status: measured, Iters: r.Iters}
	for _, m := range []struct {
		unit string
		dst  *float64
	}{{c.A + "-median-ns", &out.ANs}, {c.B + "-median-ns", &out.BNs}, {c.A + "/" + c.B, &out.Ratio}} {
		v, ok := r.Metrics[m.unit]
		if !ok {
			return compared{}, fmt.Errorf("%s %s: no metric %q (have %v)", c.Pkg, c.Bench, m.unit, keys(r.Metrics))
		}
		*m.dst = v
	}
	return out, nil
}

func keys(m map[string]float64) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
