// Command benchreport measures lro-go on the machine it runs on and writes
// BENCHMARKS.md. It takes a few minutes; run it from the module root, with jq
// and versitygw on the PATH (.ci/run installs them):
//
//	go run ./lro/internal/testing/benchreport [-out BENCHMARKS.md] [-benchtime d]
//
// It runs the side-by-side benchmarks (internal/testing/sidebyside) with go test,
// measures the peak memory of offloading and extracting 1,000,000 records in
// child processes of its own, and copies by-hand.md, the figures measured one
// at a time by other tests (go test ./lro/internal/testing/benchreport -update copies it
// alone). -benchtime replaces every benchmark's, for a quick trial run.
package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/zircote/lro-go/lro/extract"
)

const baseCommand = "go run ./lro/internal/testing/benchreport"

func main() {
	extract.RunWorker() // the peak child's lro_extract runs its query in a worker
	log.SetFlags(0)
	log.SetPrefix("benchreport: ")
	if len(os.Args) > 1 && os.Args[1] == peakChildFlag {
		if err := childMain(os.Args[2:]); err != nil {
			log.Fatal(err)
		}
		return
	}
	out := flag.String("out", "BENCHMARKS.md", "the report")
	benchtime := flag.String("benchtime", "", "replace every benchmark's -benchtime (for a quick trial run)")
	flag.Parse()
	if flag.NArg() > 0 {
		log.Printf("unexpected arguments %q", flag.Args())
		os.Exit(2)
	}
	command := strings.Join(append([]string{baseCommand}, os.Args[1:]...), " ")
	if err := run(context.Background(), command, *out, *benchtime); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, command, outPath, benchtime string) error {
	started := time.Now()
	for _, tool := range []string{"jq", "versitygw"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%w: the extraction and store benchmarks need jq and versitygw (.ci/run installs them)", err)
		}
	}
	m, err := readMachine(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("machine: %s, %d logical CPUs, %s, %s\n%s\nload average: %s\n", m.CPU, m.Cores, m.OS, bytesIEC(m.MemBytes), m.Go, loads(m.LoadStart))
	r := &report{
		Started:  started,
		Command:  command,
		Machine:  m,
		Hand:     byHand,
		Compared: slices.Clone(comparisons),
	}
	for i := range r.Compared {
		r.Compared[i].Benchtime = cmp.Or(benchtime, r.Compared[i].Benchtime)
	}
	results, err := runBenchmarks(ctx, append(planRuns(r.Compared), flatRun))
	if err != nil {
		return err
	}
	for i := range r.Compared {
		if err := r.Compared[i].fill(results); err != nil {
			return err
		}
	}
	for _, f := range results {
		if strings.HasPrefix(f.Name, flatRun.Benches[0]+"/") {
			r.Flat = append(r.Flat, f)
		}
	}
	if r.Peaks, err = measurePeaks(ctx); err != nil {
		return err
	}
	r.Machine.LoadEnd = loadAvg()
	r.Elapsed = time.Since(started)
	fmt.Printf("load average at the end: %s\n", loads(r.Machine.LoadEnd))
	if err := os.WriteFile(outPath, []byte(r.markdown()), 0o644); err != nil {
		return err
	}
	fmt.Printf("wrote %s in %s\n", outPath, r.Elapsed.Round(time.Second))
	return nil
}
