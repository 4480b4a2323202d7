package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"maps"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// comparison is one side-by-side benchmark the report shows, and its figures:
// the benchmark runs arms A and B alternately and reports "A-median-ns",
// "B-median-ns" and "A/B", the ratio of the medians.
type comparison struct {
	Key       string  // names the comparison in the report's prose
	Label     string  // what arm A is
	Versus    string  // what arm B is
	Pkg       string  // package, "./lro"
	Bench     string  // result name without the -GOMAXPROCS suffix, "BenchmarkRecipeVsJQ/3-search-titles"
	A, B      string  // arm names in the metrics
	Benchtime string  // -benchtime
	Count     int     // -count, 0 for 1: the figures are the medians over the runs
	Target    float64 // the project's target for A/B, 0 when none
	Paper     string  // the paper's figure to set beside A, if any

	Runs  int     // runs of the benchmark (-count)
	Iters int64   // timed iterations of each arm, the median over the runs
	ANs   float64 // median of arm A, ns (the median over the runs)
	BNs   float64 // median of arm B, ns (the median over the runs)
	Ratio float64 // A/B as the benchmark reported it (the median over the runs)
}

// offloadRuns is the count of lro's offload and inline benchmarks, whose
// ratio moves most from one run to the next: the report gives the medians.
const offloadRuns = 7

// extractBenchtime is a count: an extraction benchmark's iteration takes up to a second.
const extractBenchtime = "15x"

// comparisons are the side-by-side benchmarks of the report, in its order.
var comparisons = []comparison{
	{
		Key: "inline", Label: "wrapped handler, result below the threshold (8 records, inline)", Versus: "the bare handler",
		Pkg: "./lro", Bench: "BenchmarkInlineOverhead", A: "wrapped", B: "bare", Benchtime: "1s", Count: offloadRuns, Target: 1.03,
	},
	{
		Key: "offload", Label: "offload of 500 full-detail records (handler's marshal, JSONL file, descriptor)", Versus: "`json.Marshal` + `os.WriteFile` of the same records",
		Pkg: "./lro", Bench: "BenchmarkOffload500", A: "offload", B: "marshal_write", Benchtime: "1s", Count: offloadRuns, Target: 1.6,
		Paper: fmt.Sprintf("%.1f ms file write (E1 median)", paperFileWriteMs),
	},
	{
		Key: "offload_typed", Label: "the same offload for a typed tool (`lro.AddTool`: the handler returns the records as Go values)", Versus: "the same",
		Pkg: "./lro", Bench: "BenchmarkOffload500Typed", A: "offload_typed", B: "marshal_write", Benchtime: "1s", Count: offloadRuns, Target: 1.6,
	},
	{
		Key: "recipe 2", Label: "`lro_extract` in process, recipe 2: namespace filter that selects no record, over 10,000 full-detail records", Versus: "the recipe's shell command (`tail -n +2 FILE | jq …`)",
		Pkg: "./lro/extract", Bench: "BenchmarkRecipeVsJQ/2-filter-namespace-selective", A: "lro_extract", B: "jq", Benchtime: extractBenchtime, Target: 0.5,
		Paper: "shell start-up " + paperShellStartup + " per command",
	},
	{
		Key: "recipe 3", Label: "`lro_extract`, recipe 3: title search", Versus: "its shell command",
		Pkg: "./lro/extract", Bench: "BenchmarkRecipeVsJQ/3-search-titles", A: "lro_extract", B: "jq", Benchtime: extractBenchtime, Target: 0.5,
	},
	{
		Key: "recipe 6", Label: "`lro_extract`, recipe 6: count by namespace (slurps the file)", Versus: "its shell command",
		Pkg: "./lro/extract", Bench: "BenchmarkRecipeVsJQ/6-count-by-namespace", A: "lro_extract", B: "jq", Benchtime: extractBenchtime, Target: 0.5,
	},
	{
		Key: "recipe 1", Label: "`lro_extract`, recipe 1: every title (the answer, too large, is offloaded in turn)", Versus: "its shell command",
		Pkg: "./lro/extract", Bench: "BenchmarkRecipeVsJQ/1-titles-offloaded-in-turn", A: "lro_extract", B: "jq", Benchtime: extractBenchtime, Target: 0.5,
	},
	{
		Key: "store500", Label: "500 full-detail records written through `lro/store` to a bucket of versitygw, a local S3-compatible server", Versus: "one `PutObject` of the same bytes",
		Pkg: "./lro/store", Bench: "BenchmarkStore500", A: "store", B: "put", Benchtime: "2s",
	},
	{
		Key: "s3_extract", Label: "`lro_extract` recipe 2 over 10,000 records kept in versitygw, by handle, through a Store other than the one that wrote them (as on another replica)", Versus: "the same call on the file in a local folder",
		Pkg: "./lro/extract", Bench: "BenchmarkS3VsFolder/2-filter-namespace-selective", A: "s3", B: "folder", Benchtime: "5x",
	},
	{
		Key: "proxy", Label: "small call through the local proxy (3 items, inline)", Versus: "the same call direct to the upstream",
		Pkg: "./lro/proxy", Bench: "BenchmarkProxySmallCall", A: "proxy", B: "direct", Benchtime: "2s",
	},
	{
		Key: "forwarder", Label: "the same call through a bare go-sdk forwarder (the second hop alone)", Versus: "the same call direct",
		Pkg: "./lro/proxy", Bench: "BenchmarkProxySmallCall", A: "forwarder", B: "direct", Benchtime: "2s",
	},
	{
		Key: "sweep", Label: "janitor sweep of 10,000 offload files, none expired", Versus: "`os.ReadDir` of the folder",
		Pkg: "./cleanup", Bench: "BenchmarkSweepNoneExpired", A: "sweep", B: "readdir", Benchtime: "2s",
	},
	{
		Key: "sweep_all", Label: "janitor sweep of 10,000 offload files, all expired (removed)", Versus: "`os.ReadDir` of the folder",
		// A count: each iteration re-creates the 10,000 files (untimed).
		Pkg: "./cleanup", Bench: "BenchmarkSweepAllExpired", A: "sweep", B: "readdir", Benchtime: "9x",
	},
}

// The paper's figures set beside ours: "Measured file-write overhead is
// 23.9ms (E1, median across all LRO runs)"; "Shell startup for a jq or grep
// command adds 50—100ms depending on the host."
const (
	paperFileWriteMs  = 23.9
	paperShellStartup = "50–100 ms"
)

// flatRun is lro's benchmark of the heap an offload allocates per record.
var flatRun = benchRun{Pkg: "./lro", Benches: []string{"BenchmarkOffloadMemoryFlat"}, Benchtime: "1x"}

// benchRun is one `go test -bench` invocation.
type benchRun struct {
	Pkg       string   // package path relative to the module root, "./lro"
	Benches   []string // benchmark functions, matched exactly
	Benchtime string   // -benchtime value, "1s" or "100x"
	Count     int      // -count, 0 for 1
}

func (r benchRun) args() []string {
	pattern := "^(" + strings.Join(r.Benches, "|") + ")$"
	return []string{"test", "-run", "^$", "-bench", pattern, "-benchtime", r.Benchtime, "-count", strconv.Itoa(max(r.Count, 1)), r.Pkg}
}

// planRuns groups the comparisons into go test invocations, one per package
// benchtime and count, each benchmark function once, in the comparisons' order.
func planRuns(cs []comparison) []benchRun {
	var runs []benchRun
	for _, c := range cs {
		i := slices.IndexFunc(runs, func(r benchRun) bool { return r.Pkg == c.Pkg && r.Benchtime == c.Benchtime && r.Count == c.Count })
		if i < 0 {
			runs = append(runs, benchRun{Pkg: c.Pkg, Benchtime: c.Benchtime, Count: c.Count})
			i = len(runs) - 1
		}
		if fn, _, _ := strings.Cut(c.Bench, "/"); !slices.Contains(runs[i].Benches, fn) {
			runs[i].Benches = append(runs[i].Benches, fn)
		}
	}
	return runs
}

// runBenchmarks runs runs and parses all their output at once: benchmark
// names are unique across packages (TestComparisonsExist checks it).
func runBenchmarks(ctx context.Context, runs []benchRun) ([]benchResult, error) {
	var out bytes.Buffer
	for _, r := range runs {
		log.Printf("go %s", shellJoin(r.args()))
		b, err := exec.CommandContext(ctx, "go", r.args()...).CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("go %s: %w\n%s", shellJoin(r.args()), err, b)
		}
		out.Write(b)
	}
	return parseBench(&out)
}

// fill takes c's figures from results: of a benchmark run several times
// (-count), the median of each over the runs. It fails when the benchmark did
// not run or did not report one of the three metrics, naming it.
func (c *comparison) fill(results []benchResult) error {
	var runs []benchResult
	for _, r := range results {
		if r.Name == c.Bench {
			runs = append(runs, r)
		}
	}
	if len(runs) == 0 {
		return fmt.Errorf("%s %s: no result", c.Pkg, c.Bench)
	}
	c.Runs = len(runs)
	iters := make([]float64, len(runs))
	for i, r := range runs {
		iters[i] = float64(r.Iters)
	}
	c.Iters = int64(median(iters))
	for _, m := range []struct {
		unit string
		dst  *float64
	}{{c.A + "-median-ns", &c.ANs}, {c.B + "-median-ns", &c.BNs}, {c.A + "/" + c.B, &c.Ratio}} {
		vs := make([]float64, len(runs))
		for i, r := range runs {
			v, ok := r.Metrics[m.unit]
			if !ok {
				return fmt.Errorf("%s %s: no metric %q (have %v)", c.Pkg, c.Bench, m.unit, slices.Sorted(maps.Keys(r.Metrics)))
			}
			vs[i] = v
		}
		*m.dst = median(vs)
	}
	return nil
}

// median is the median of vs, the mean of the middle two for an even count;
// it sorts vs.
func median(vs []float64) float64 {
	slices.Sort(vs)
	n := len(vs)
	return (vs[(n-1)/2] + vs[n/2]) / 2
}

// benchResult is one result line of `go test -bench`: the name without the
// -GOMAXPROCS suffix, the iterations and the metrics by unit.
type benchResult struct {
	Name    string
	Iters   int64
	Metrics map[string]float64
}

var procsSuffix = regexp.MustCompile(`-\d+$`)

// parseBench parses the output of `go test -bench`, whose result lines are a
// name, the iterations, then value and unit pairs. It fails, naming the line,
// on a line that starts like a result but does not parse, FAIL or panic.
func parseBench(r io.Reader) ([]benchResult, error) {
	var out []benchResult
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 4<<20)
	for lineNo := 1; sc.Scan(); lineNo++ {
		line := sc.Text()
		f := strings.Fields(line)
		switch {
		case strings.HasPrefix(line, "--- FAIL"), strings.HasPrefix(line, "FAIL"), strings.HasPrefix(line, "panic:"):
			return nil, fmt.Errorf("line %d: benchmark failed: %s", lineNo, line)
		case strings.HasPrefix(line, "Benchmark") && len(f) > 1: // alone, the name is a benchmark's log header
			iters, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: not a benchmark result: %q", lineNo, line)
			}
			if len(f)%2 != 0 {
				return nil, fmt.Errorf("line %d: odd number of value and unit fields: %q", lineNo, line)
			}
			res := benchResult{Name: procsSuffix.ReplaceAllString(f[0], ""), Iters: iters, Metrics: map[string]float64{}}
			for i := 2; i < len(f); i += 2 {
				if res.Metrics[f[i+1]], err = strconv.ParseFloat(f[i], 64); err != nil {
					return nil, fmt.Errorf("line %d: value %q of %s: %w", lineNo, f[i], f[i+1], err)
				}
			}
			out = append(out, res)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errors.New("benchreport: no benchmark results")
	}
	return out, nil
}
