package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/offload"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/extract"
)

// peakRecords is the number of records of the peak-memory measurements.
const peakRecords = 1_000_000

// peakChildFlag is the hidden flag that makes the generator run one
// peak-memory measurement in its own process, where the peak resident size
// is that of the measurement alone.
const peakChildFlag = "-peak-child"

// peakResult is what a child reports, and what the report shows.
type peakResult struct {
	What        string `json:"what"`         // "offload", "extract" or "jq"
	Records     int    `json:"records"`      // records in the input
	InputBytes  int64  `json:"input_bytes"`  // the JSON text handed to the decorator, or the file read
	FileBytes   int64  `json:"file_bytes"`   // the JSONL file written (offload)
	BeforeBytes int64  `json:"before_bytes"` // resident size just before the measured step
	PeakBytes   int64  `json:"peak_bytes"`   // peak resident size during the measured step
	ProcessPeak int64  `json:"process_peak"` // peak resident size of the whole child process
	File        string `json:"file,omitempty"`
	Output      string `json:"output,omitempty"` // what the extraction printed, for checking
	Millis      int64  `json:"millis"`           // wall time of the measured step
}

// smallRecords returns the JSON array text of n records of the shape of
// lro's BenchmarkOffloadMemoryFlat, {"id":i,"k":"key-(i%1000)"}, written
// directly so that no slice of structs inflates the child's peak.
func smallRecords(n int) []byte {
	var b bytes.Buffer
	b.Grow(n * 28)
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"id":`)
		b.WriteString(strconv.Itoa(i))
		b.WriteString(`,"k":"key-`)
		b.WriteString(strconv.Itoa(i % 1000))
		b.WriteString(`"}`)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// procStatus returns a field of /proc/self/status in bytes ("VmRSS",
// "VmHWM").
func procStatus(field string) (int64, error) {
	return statusField("/proc/self/status", field)
}

// statusField returns a size field of a /proc status file in bytes.
func statusField(path, field string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, rest, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != field {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s %s: %w", path, field, err)
		}
		return kb << 10, nil
	}
	return 0, fmt.Errorf("%s has no %s", path, field)
}

// resetPeak frees what the process no longer uses and resets the kernel's
// record of its peak resident size (VmHWM), so that the next reading of
// VmHWM is the peak of what follows. It returns the peak so far and the
// resident size after the reset.
func resetPeak() (peakSoFar, resident int64, err error) {
	if peakSoFar, err = procStatus("VmHWM"); err != nil {
		return 0, 0, err
	}
	runtime.GC()
	debug.FreeOSMemory()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return 0, 0, fmt.Errorf("reset the peak resident size: %w", err)
	}
	resident, err = procStatus("VmRSS")
	return peakSoFar, resident, err
}

// childOffload offloads n small records into dir with lro.Wrap at the
// default threshold and reports the peak resident size of the offload.
func childOffload(dir string, n int) (peakResult, error) {
	data := smallRecords(n)
	text := string(data)
	data = nil
	h := lro.Wrap(func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	}, &lro.Options{OutputDir: dir})
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "big"}}
	buildPeak, before, err := resetPeak()
	if err != nil {
		return peakResult{}, err
	}
	t0 := time.Now()
	res, err := h(context.Background(), req)
	elapsed := time.Since(t0)
	if err != nil {
		return peakResult{}, err
	}
	peak, err := procStatus("VmHWM")
	if err != nil {
		return peakResult{}, err
	}
	var d struct {
		FilePath string `json:"file_path"`
	}
	if len(res.Content) != 1 {
		return peakResult{}, errNotOffloaded
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok || json.Unmarshal([]byte(tc.Text), &d) != nil || d.FilePath == "" {
		return peakResult{}, errNotOffloaded
	}
	fi, err := os.Stat(d.FilePath)
	if err != nil {
		return peakResult{}, err
	}
	runtime.KeepAlive(text)
	return peakResult{What: "offload", Records: n, InputBytes: int64(len(text)), FileBytes: fi.Size(),
		BeforeBytes: before, PeakBytes: peak, ProcessPeak: max(buildPeak, peak), File: d.FilePath, Millis: elapsed.Milliseconds()}, nil
}

// childExtract runs peakFilter over the offloaded file in dir with the
// lro_extract tool of package extract, called over an in-memory MCP session
// as a client would call it, and reports the peak resident size of the call.
func childExtract(dir, file string) (peakResult, error) {
	fi, err := os.Stat(file)
	if err != nil {
		return peakResult{}, err
	}
	ctx := context.Background()
	s := mcp.NewServer(&mcp.Implementation{Name: "benchreport", Version: "v0"}, nil)
	// The answer, 1,000 ids, is above the default threshold: shown inline
	// here, so that it can be checked against jq's, rather than offloaded.
	if err := extract.AddTools(s, &extract.Options{LRO: &lro.Options{OutputDir: dir, ThresholdTokens: 1 << 30}}); err != nil {
		return peakResult{}, err
	}
	cs, closeFn, err := session(ctx, s)
	if err != nil {
		return peakResult{}, err
	}
	defer closeFn()
	buildPeak, before, err := resetPeak()
	if err != nil {
		return peakResult{}, err
	}
	t0 := time.Now()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: offload.ToolExtract,
		Arguments: map[string]any{"file_path": file, "query": peakFilter}})
	elapsed := time.Since(t0)
	if err != nil {
		return peakResult{}, err
	}
	peak, err := procStatus("VmHWM")
	if err != nil {
		return peakResult{}, err
	}
	if res.IsError || len(res.Content) != 1 {
		var texts []string
		for _, c := range res.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				texts = append(texts, tc.Text)
			}
		}
		return peakResult{}, fmt.Errorf("%s: error %v, %d contents: %q", offload.ToolExtract, res.IsError, len(res.Content), texts)
	}
	tc, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		return peakResult{}, fmt.Errorf("%s: content is %T, not text", offload.ToolExtract, res.Content[0])
	}
	return peakResult{What: "extract", InputBytes: fi.Size(), BeforeBytes: before, PeakBytes: peak, ProcessPeak: max(buildPeak, peak),
		Output: strings.TrimSpace(tc.Text), Millis: elapsed.Milliseconds()}, nil
}

// runChild runs a peak-memory measurement in a new process of this very
// program and returns its report.
//
// Every peak is read from /proc (VmHWM), never from getrusage: on Linux the
// ru_maxrss of a child is at least its parent's peak at the time of the
// fork, because the kernel carries the high-water mark of the address space
// the child starts in across exec; VmHWM belongs to the child's own.
func runChild(ctx context.Context, args ...string) (peakResult, error) {
	self, err := os.Executable()
	if err != nil {
		return peakResult{}, err
	}
	cmd := exec.CommandContext(ctx, self, append([]string{peakChildFlag}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return peakResult{}, fmt.Errorf("peak child %v: %w\n%s", args, err, stderr.String())
	}
	var r peakResult
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		return peakResult{}, fmt.Errorf("peak child %v: output %q: %w", args, stdout.String(), err)
	}
	return r, nil
}

// jqPeak runs the jq binary with filter over file and returns its peak
// resident size and output. jq is the extraction the paper's recipes use.
// The peak is jq's VmHWM, read every few milliseconds while it runs (see
// runChild for why not getrusage); VmHWM only grows, so the last reading is
// jq's peak up to its last few milliseconds.
func jqPeak(ctx context.Context, jq, filter, file string, records int) (peakResult, error) {
	fi, err := os.Stat(file)
	if err != nil {
		return peakResult{}, err
	}
	cmd := exec.CommandContext(ctx, jq, "-c", filter, file)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return peakResult{}, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	var peak int64
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				return peakResult{}, fmt.Errorf("%s -c %q %s: %w\n%s", jq, filter, file, err, stderr.String())
			}
			if peak == 0 {
				return peakResult{}, fmt.Errorf("%s ended before its peak memory could be read", jq)
			}
			return peakResult{What: "jq", Records: records, InputBytes: fi.Size(), PeakBytes: peak, ProcessPeak: peak,
				Output: strings.TrimSpace(stdout.String()), Millis: time.Since(t0).Milliseconds()}, nil
		case <-tick.C:
			if hwm, err := statusField(status, "VmHWM"); err == nil {
				peak = max(peak, hwm)
			}
		}
	}
}

// peakFilter is the extraction of the peak-memory measurements: the ids of
// the records of one key, 1,000 of the 1,000,000. The header line has no
// "k" and is skipped by the comparison.
const peakFilter = `select(.k == "key-7") | .id`

// errUnknownChild is returned for a -peak-child mode that does not exist.
var errUnknownChild = errors.New("benchreport: unknown peak child mode")

// childMain runs the child mode named by args[0] and prints its result as
// JSON on standard output.
func childMain(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: none given", errUnknownChild)
	}
	var (
		r   peakResult
		err error
	)
	switch args[0] {
	case "offload":
		n := 0
		if len(args) == 3 {
			n, err = strconv.Atoi(args[2])
		}
		if len(args) != 3 || err != nil || n < 1 {
			return fmt.Errorf("usage: %s offload DIR RECORDS", peakChildFlag)
		}
		r, err = childOffload(args[1], n)
	case "extract":
		if len(args) != 3 {
			return fmt.Errorf("usage: %s extract DIR FILE", peakChildFlag)
		}
		r, err = childExtract(args[1], args[2])
	default:
		return fmt.Errorf("%w: %q", errUnknownChild, args[0])
	}
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(r)
}
