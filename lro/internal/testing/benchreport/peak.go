package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/extract"
	"github.com/zircote/lro-go/lro/internal/describe"
)

// peakRecords is the number of records of the peak-memory measurements.
const peakRecords = 1_000_000

// peakChildFlag makes the program run one peak-memory measurement (childMain).
const peakChildFlag = "-peak-child"

// peakFilter is the extraction of the peak-memory measurements: the ids of
// the records of one key, 1,000 of the 1,000,000 (the header line has no "k").
const peakFilter = `select(.k == "key-7") | .id`

// peakResult is what a child reports, and what the report shows.
type peakResult struct {
	What        string `json:"what"`         // the step, as the memory table names it
	InputBytes  int64  `json:"input_bytes"`  // the JSON text handed to the decorator, or the file read
	FileBytes   int64  `json:"file_bytes"`   // the JSONL file written (offload)
	BeforeBytes int64  `json:"before_bytes"` // resident size just before the measured step
	PeakBytes   int64  `json:"peak_bytes"`   // peak resident size during the measured step
	ProcessPeak int64  `json:"process_peak"` // peak resident size of the whole child process
	File        string `json:"file,omitempty"`
	Output      string `json:"output,omitempty"` // what the extraction printed, for checking
	Millis      int64  `json:"millis"`           // wall time of the measured step
}

// smallRecords returns the JSON array of n records {"id":i,"k":"key-(i%1000)"},
// written directly so that no slice of structs inflates the child's peak.
func smallRecords(n int) []byte {
	var b bytes.Buffer
	b.Grow(n * 28)
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"id":` + strconv.Itoa(i) + `,"k":"key-` + strconv.Itoa(i%1000) + `"}`)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// selfSize returns a size of /proc/self/status in bytes: "VmHWM", the
// peak resident size, or "VmRSS", the resident size.
func selfSize(key string) (int64, error) {
	n, err := kB(fileField("/proc/self/status", key, ":"))
	if err != nil {
		return 0, fmt.Errorf("%s: %w", key, err)
	}
	return n, nil
}

// measure runs step and records in r its wall time and this process's resident
// size before it and at its peak during it, the kernel's peak reset first.
func measure(r *peakResult, step func() error) error {
	peakSoFar, err := selfSize("VmHWM")
	if err != nil {
		return err
	}
	runtime.GC()
	debug.FreeOSMemory()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return fmt.Errorf("reset the peak resident size: %w", err)
	}
	if r.BeforeBytes, err = selfSize("VmRSS"); err != nil {
		return err
	}
	t0 := time.Now()
	if err := step(); err != nil {
		return err
	}
	r.Millis = time.Since(t0).Milliseconds()
	r.PeakBytes, err = selfSize("VmHWM")
	r.ProcessPeak = max(peakSoFar, r.PeakBytes)
	return err
}

// childOffload offloads n small records into dir with lro.Wrap at the
// default threshold and reports the peak resident size of the offload.
func childOffload(dir string, n int) (peakResult, error) {
	text := string(smallRecords(n))
	h := lro.Wrap(func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	}, &lro.Options{OutputDir: dir})
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "big"}}
	r := peakResult{What: "offload (`lro.Wrap`, default threshold)", InputBytes: int64(len(text))}
	err := measure(&r, func() error {
		_, err := h(context.Background(), req)
		return err
	})
	if err != nil {
		return r, err
	}
	runtime.KeepAlive(text)
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(files) != 1 {
		return r, fmt.Errorf("the result was not offloaded: files %q in %s", files, dir)
	}
	fi, err := os.Stat(files[0])
	if err != nil {
		return r, err
	}
	r.File, r.FileBytes = files[0], fi.Size()
	return r, nil
}

// childExtract runs peakFilter over file with the lro_extract tool, called
// over an in-memory MCP session, and reports the peak resident size of the call.
func childExtract(dir, file string) (peakResult, error) {
	fi, err := os.Stat(file)
	if err != nil {
		return peakResult{}, err
	}
	ctx := context.Background()
	s := mcp.NewServer(&mcp.Implementation{Name: "benchreport", Version: "v0"}, nil)
	// The answer, 1,000 ids, is shown inline, to be counted.
	if err := extract.AddTools(s, &extract.Options{LRO: &lro.Options{OutputDir: dir, ThresholdTokens: 1 << 30}}); err != nil {
		return peakResult{}, err
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		return peakResult{}, err
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "benchreport-client", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		return peakResult{}, err
	}
	defer cs.Close()
	r := peakResult{What: "extraction in process (`lro_extract`, query)", InputBytes: fi.Size()}
	var res *mcp.CallToolResult
	err = measure(&r, func() (err error) {
		res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: describe.ToolExtract,
			Arguments: map[string]any{"file_path": file, "query": peakFilter}})
		return err
	})
	if err != nil {
		return r, err
	}
	if len(res.Content) == 1 {
		if tc, ok := res.Content[0].(*mcp.TextContent); ok {
			r.Output = strings.TrimSpace(tc.Text)
		}
	}
	if res.IsError || r.Output == "" {
		return r, fmt.Errorf("%s: error %v, content %+v", describe.ToolExtract, res.IsError, res.Content)
	}
	return r, nil
}

// runChild runs a peak-memory measurement in a new process of this program.
// The child reads its peaks from /proc: on Linux a child's ru_maxrss is at
// least its parent's peak at the fork.
func runChild(ctx context.Context, args ...string) (peakResult, error) {
	self, err := os.Executable()
	if err != nil {
		return peakResult{}, err
	}
	cmd := exec.CommandContext(ctx, self, append([]string{peakChildFlag}, args...)...)
	cmd.Stderr = os.Stderr // the child's error, if any
	out, err := cmd.Output()
	if err != nil {
		return peakResult{}, fmt.Errorf("peak child %v: %w", args, err)
	}
	var r peakResult
	if err := json.Unmarshal(out, &r); err != nil {
		return peakResult{}, fmt.Errorf("peak child %v: output %q: %w", args, out, err)
	}
	return r, nil
}

// childMain runs the child mode named by args[0] ("offload DIR" or
// "extract DIR FILE") and prints its result as JSON on standard output.
func childMain(args []string) error {
	var r peakResult
	var err error
	switch {
	case len(args) == 0:
		return errors.New("unknown peak child mode: none given")
	case args[0] == "offload" && len(args) == 2:
		r, err = childOffload(args[1], peakRecords)
	case args[0] == "extract" && len(args) == 3:
		r, err = childExtract(args[1], args[2])
	case args[0] == "offload" || args[0] == "extract":
		return fmt.Errorf("usage: %s offload DIR, or %s extract DIR FILE", peakChildFlag, peakChildFlag)
	default:
		return fmt.Errorf("unknown peak child mode: %q", args[0])
	}
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(r)
}

// measurePeaks measures the peak memory of offloading peakRecords records,
// and of extracting from the file.
func measurePeaks(ctx context.Context) ([]peakResult, error) {
	dir, err := os.MkdirTemp("", "benchreport-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	log.Printf("peak memory: offload of %s records, then lro_extract over the file", thousands(peakRecords))
	off, err := runChild(ctx, "offload", dir)
	if err != nil {
		return nil, err
	}
	ex, err := runChild(ctx, "extract", dir, off.File)
	if err != nil {
		return nil, err
	}
	// The records of one key of 1,000.
	if got, want := strings.Count(ex.Output, "\n")+1, peakRecords/1000; got != want {
		return nil, fmt.Errorf("lro_extract %s printed %d lines, want %d", peakFilter, got, want)
	}
	return []peakResult{off, ex}, nil
}
