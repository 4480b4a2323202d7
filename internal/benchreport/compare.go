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
	Bench     string  // benchmark function, "BenchmarkInlineOverhead"
	Sub       string  // sub-benchmark name, if the figures are a sub-benchmark's
	A, B      string  // arm names in the metrics
	Benchtime string  // -benchtime
	Target    float64 // the project's target for A/B, 0 when none
	Paper     string  // the paper's figure to set beside A, if any
	NeedsJQ   bool    // the benchmark skips itself without the jq binary
	NeedsS3   bool    // the benchmark skips itself without versitygw
}

// extractBenchtime is the -benchtime of the extraction benchmarks, whose
// iterations take from a tenth of a second to over a second: a count, so
// that each median is of that many runs.
const extractBenchtime = "15x"

// comparisons are the side-by-side benchmarks of the report, in its order.
var comparisons = []comparison{
	{
		Key: "inline", Short: "wrapped, inline / bare handler", Label: "wrapped handler, result below the threshold (8 records, inline)", Versus: "the bare handler",
		Pkg: "./lro", Bench: "BenchmarkInlineOverhead", A: "wrapped", B: "bare", Benchtime: "2s", Target: 1.05,
	},
	{
		Key: "offload", Short: "offload 500 / marshal + write", Label: "offload of 500 full-detail records (handler's marshal, JSONL file, descriptor)", Versus: "`json.Marshal` + `os.WriteFile` of the same records",
		Pkg: "./lro", Bench: "BenchmarkOffload500", A: "offload", B: "marshal_write", Benchtime: "2s", Target: 1.5,
		Paper: fmt.Sprintf("%.1f ms file write (E1 median)", paperFileWriteMs),
	},
	{
		Key: "offload_typed", Short: "offload 500, typed tool / marshal + write", Label: "the same offload for a typed tool (`lro.AddTool`: the handler returns the records as Go values)", Versus: "the same",
		Pkg: "./lro", Bench: "BenchmarkOffload500Typed", A: "offload_typed", B: "marshal_write", Benchtime: "2s", Target: 1.5,
	},
	{
		Key: "extract", Short: "lro_extract, recipe 2 / tail | jq", Label: "`lro_extract` in process, recipe 2: namespace filter that selects no record, over 10,000 full-detail records", Versus: "the recipe's shell command (`tail -n +2 FILE | jq …`)",
		Pkg: "./lro/extract", Bench: "BenchmarkRecipeVsJQ", Sub: "2-filter-namespace-selective", A: "lro_extract", B: "jq", Benchtime: extractBenchtime, Target: 0.5, NeedsJQ: true,
		Paper: "shell start-up " + paperShellStartup + " per command",
	},
	{
		Key: "extract3", Short: "lro_extract, recipe 3 / tail | jq", Label: "`lro_extract`, recipe 3: title search", Versus: "its shell command",
		Pkg: "./lro/extract", Bench: "BenchmarkRecipeVsJQ", Sub: "3-search-titles", A: "lro_extract", B: "jq", Benchtime: extractBenchtime, Target: 0.5, NeedsJQ: true,
	},
	{
		Key: "extract6", Short: "lro_extract, recipe 6 / tail | jq", Label: "`lro_extract`, recipe 6: count by namespace (slurps the file)", Versus: "its shell command",
		Pkg: "./lro/extract", Bench: "BenchmarkRecipeVsJQ", Sub: "6-count-by-namespace", A: "lro_extract", B: "jq", Benchtime: extractBenchtime, Target: 0.5, NeedsJQ: true,
	},
	{
		Key: "extract1", Short: "lro_extract, recipe 1 / tail | jq", Label: "`lro_extract`, recipe 1: every title (the answer, too large, is offloaded in turn)", Versus: "its shell command",
		Pkg: "./lro/extract", Bench: "BenchmarkRecipeVsJQ", Sub: "1-titles-offloaded-in-turn", A: "lro_extract", B: "jq", Benchtime: extractBenchtime, Target: 0.5, NeedsJQ: true,
	},
	{
		Key: "store500", Short: "offload 500 to S3 / PutObject", Label: "500 full-detail records written through `lro/store` to a bucket of versitygw, a local S3-compatible server", Versus: "one `PutObject` of the same bytes",
		Pkg: "./lro/store", Bench: "BenchmarkStore500", A: "store", B: "put", Benchtime: "2s", NeedsS3: true,
	},
	{
		Key: "s3_extract", Short: "lro_extract from S3 / from a folder", Label: "`lro_extract` recipe 2 over 10,000 records kept in versitygw, by handle, through a Store other than the one that wrote them (as on another replica)", Versus: "the same call on the file in a local folder",
		Pkg: "./lro/extract", Bench: "BenchmarkS3VsFolder", Sub: "2-filter-namespace-selective", A: "s3", B: "folder", Benchtime: "5x", NeedsS3: true,
	},
	{
		Key: "proxy", Short: "through the proxy / direct", Label: "small call through the local proxy (3 items, inline)", Versus: "the same call direct to the upstream",
		Pkg: "./lro/proxy", Bench: "BenchmarkProxySmallCall", A: "proxy", B: "direct", Benchtime: "2s",
	},
	{
		Key: "forwarder", Short: "bare go-sdk forwarder / direct", Label: "the same call through a bare go-sdk forwarder (the second hop alone)", Versus: "the same call direct",
		Pkg: "./lro/proxy", Bench: "BenchmarkProxySmallCall", A: "forwarder", B: "direct", Benchtime: "2s",
	},
	{
		Key: "sweep", Short: "sweep, none expired / ReadDir", Label: "janitor sweep of 10,000 offload files, none expired", Versus: "`os.ReadDir` of the folder",
		Pkg: "./cleanup", Bench: "BenchmarkSweepNoneExpired", A: "sweep", B: "readdir", Benchtime: "2s",
	},
	{
		Key: "sweep_all", Short: "sweep, all expired / ReadDir", Label: "janitor sweep of 10,000 offload files, all expired (removed)", Versus: "`os.ReadDir` of the folder",
		// Each iteration re-creates the 10,000 files (untimed, but about a
		// second): a count, so that the medians are of that many runs.
		Pkg: "./cleanup", Bench: "BenchmarkSweepAllExpired", A: "sweep", B: "readdir", Benchtime: "9x",
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
	pending                // not measured: see compared.Why
)

// compared is a comparison with its figures.
type compared struct {
	comparison
	Status status
	Why    string  // why it is pending: "`./lro/extract` is not in this tree yet"
	Iters  int64   // timed iterations of each arm
	ANs    float64 // median of arm A, ns
	BNs    float64 // median of arm B, ns
	Ratio  float64 // A/B as the benchmark reported it
}

// name is the name of c's result line, without the -GOMAXPROCS suffix.
func (c comparison) name() string {
	if c.Sub != "" {
		return c.Bench + "/" + c.Sub
	}
	return c.Bench
}

// fill takes the figures of c from results. It fails when the benchmark did
// not run or did not report one of the three metrics, naming it.
func fill(c comparison, results []benchResult) (compared, error) {
	i := slices.IndexFunc(results, func(r benchResult) bool { return r.Name == c.name() })
	if i < 0 {
		return compared{}, fmt.Errorf("%s %s: no result", c.Pkg, c.name())
	}
	r := results[i]
	out := compared{comparison: c, Status: measured, Iters: r.Iters}
	for _, m := range []struct {
		unit string
		dst  *float64
	}{{c.A + "-median-ns", &out.ANs}, {c.B + "-median-ns", &out.BNs}, {c.A + "/" + c.B, &out.Ratio}} {
		v, ok := r.Metrics[m.unit]
		if !ok {
			return compared{}, fmt.Errorf("%s %s: no metric %q (have %v)", c.Pkg, c.name(), m.unit, keys(r.Metrics))
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
