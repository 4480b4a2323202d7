// Command benchreport measures lro-go on the machine it runs on and writes
// BENCHMARKS.md. Run it from the module root, with jq and versitygw on the
// PATH (.ci/run installs them):
//
//	go run ./internal/benchreport
//
// It runs the side-by-side benchmarks (internal/sidebyside) with go test and
// reads the medians and ratios they report, and measures the peak memory of
// offloading and extracting 1,000,000 records in child processes of its
// own. It takes a few minutes. The figures measured one at a time by other
// tests (descriptor sizes among them) it copies from by-hand.md.
//
// Flags:
//
//	-out path     the report, relative to the module root unless absolute (default BENCHMARKS.md)
//	-benchtime d  replace every benchmark's -benchtime, for a quick trial run
//
// After editing by-hand.md, go test ./internal/benchreport -update copies it
// into BENCHMARKS.md without measuring anything.
package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/zircote/lro-go/lro/extract"
)

const baseCommand = "go run ./internal/benchreport"

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
	out := flag.String("out", "BENCHMARKS.md", "the report, relative to the module root")
	benchtime := flag.String("benchtime", "", "replace every benchmark's -benchtime (for a quick trial run)")
	flag.Parse()
	if flag.NArg() > 0 {
		log.Printf("unexpected arguments %q", flag.Args())
		os.Exit(2)
	}
	err := toModuleRoot()
	if err == nil {
		err = run(context.Background(), strings.Join(append([]string{baseCommand}, os.Args[1:]...), " "), *out, *benchtime)
	}
	if err != nil {
		log.Fatal(err)
	}
}

// toModuleRoot changes the working folder to the main module's root, where
// the benchmarks' package paths and -out are resolved.
func toModuleRoot() error {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return errors.New("not inside a Go module: run from the lro-go module root")
	}
	return os.Chdir(filepath.Dir(gomod))
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
	r := &report{Started: started, Command: command, Machine: m, Hand: byHand, Compared: slices.Clone(comparisons)}
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
