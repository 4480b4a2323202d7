package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// benchResult is one line of `go test -bench` output: a benchmark's name
// (without the -GOMAXPROCS suffix), its iteration count and its metrics by
// unit, such as "ns/op", "wrapped-median-ns" or "wrapped/bare".
type benchResult struct {
	Pkg     string
	Name    string
	Iters   int64
	Metrics map[string]float64
}

// errNoBenchmarks is returned when go test ran but printed no result line.
var errNoBenchmarks = errors.New("benchreport: no benchmark results")

// benchLine matches a result line: name, optional -procs, iterations, then
// value-unit pairs.
var benchLine = regexp.MustCompile(`^(Benchmark\S*?)(?:-\d+)?\s+(\d+)\s+(.*)$`)

// parseBench parses the output of `go test -bench`. It fails on a line
// that starts like a result but does not parse, and on output with a FAIL
// or panic line, naming the line.
func parseBench(r io.Reader) ([]benchResult, error) {
	var out []benchResult
	pkg := ""
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for lineNo := 1; sc.Scan(); lineNo++ {
		line := strings.TrimRight(sc.Text(), " \t\r")
		switch {
		case strings.HasPrefix(line, "pkg: "):
			pkg = strings.TrimPrefix(line, "pkg: ")
			continue
		case strings.HasPrefix(line, "--- FAIL"), strings.HasPrefix(line, "FAIL"), strings.HasPrefix(line, "panic:"):
			return nil, fmt.Errorf("line %d: benchmark failed: %s", lineNo, line)
		case !strings.HasPrefix(line, "Benchmark"):
			continue
		}
		m := benchLine.FindStringSubmatch(line)
		if m == nil {
			// A benchmark's own log line ("BenchmarkX \n" while it runs) has
			// no iteration count; anything else that starts so is not ours.
			if !strings.ContainsAny(line, " \t") {
				continue
			}
			return nil, fmt.Errorf("line %d: not a benchmark result: %q", lineNo, line)
		}
		iters, err := strconv.ParseInt(m[2], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: iterations %q: %w", lineNo, m[2], err)
		}
		fields := strings.Fields(m[3])
		if len(fields)%2 != 0 {
			return nil, fmt.Errorf("line %d: odd number of value and unit fields: %q", lineNo, line)
		}
		res := benchResult{Pkg: pkg, Name: m[1], Iters: iters, Metrics: map[string]float64{}}
		for i := 0; i < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: value %q of %s: %w", lineNo, fields[i], fields[i+1], err)
			}
			res.Metrics[fields[i+1]] = v
		}
		out = append(out, res)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errNoBenchmarks
	}
	return out, nil
}

// benchRun is one `go test -bench` invocation.
type benchRun struct {
	Pkg       string   // package path relative to the module root, "./lro"
	Benches   []string // benchmark names, matched exactly
	Benchtime string   // -benchtime value, "1s" or "100x"
}

// args returns the go test arguments of r.
func (r benchRun) args() []string {
	pattern := "^(" + strings.Join(r.Benches, "|") + ")$"
	return []string{"test", "-run", "^$", "-bench", pattern, "-benchtime", r.Benchtime, "-count", "1", r.Pkg}
}

// exists reports whether r's package is in the module rooted at root.
func (r benchRun) exists(root string) bool {
	fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(r.Pkg)))
	return err == nil && fi.IsDir()
}

// runBench runs r with the go tool in root and parses its output. Standard
// error and output are both kept for the error message.
func runBench(ctx context.Context, goTool, root string, r benchRun) ([]benchResult, error) {
	cmd := exec.CommandContext(ctx, goTool, r.args()...)
	cmd.Dir = root
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	err := cmd.Run()
	if err != nil {
		return nil, fmt.Errorf("go %s: %w\n%s", strings.Join(r.args(), " "), err, out.String())
	}
	res, err := parseBench(bytes.NewReader(out.Bytes()))
	if err != nil {
		return nil, fmt.Errorf("go %s: %w\n%s", strings.Join(r.args(), " "), err, out.String())
	}
	return res, nil
}
