package extract

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/jsonl"
)

// TestNoWorker wants AddTools to refuse to register the tools in a program
// that did not call RunWorker, rather than run queries unbounded.
func TestNoWorker(t *testing.T) {
	installed.Store(false)
	defer installed.Store(true)
	s := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	if err := AddTools(s, nil); !errors.Is(err, ErrNoWorker) {
		t.Errorf("AddTools without RunWorker: %v, want ErrNoWorker", err)
	}
}

// TestDied names the limit a worker that died without an answer hit, from
// its standard error and exit.
func TestDied(t *testing.T) {
	c, err := newConfig(&Options{MaxMemoryBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	killed := exec.Command("sh", "-c", "kill -9 $$").Run()
	failed := exec.Command("sh", "-c", "exit 3").Run()
	// A process that reaches the processor time of a worker of c (two
	// seconds, for any Timeout under a second): the kernel kills it.
	c.Timeout = time.Millisecond
	limit := int(cpuLimit(c.Timeout).Seconds())
	spent := exec.Command("sh", "-c", fmt.Sprintf("ulimit -t %d; while :; do :; done", limit)).Run()
	for _, tt := range []struct {
		name   string
		err    error
		stderr string
		want   string
	}{
		{"out of memory", failed, "fatal error: runtime: out of memory\n\ngoroutine 1 [running]:", "more than the 64 MiB of memory one call may use (MaxMemoryBytes)"},
		{"out of memory under the race detector", failed, "==1==ERROR: ThreadSanitizer failed to allocate 0x10000000 (268435456) bytes at address 218018000000 (errno: 12)", "MaxMemoryBytes"},
		{"address space exhausted under the race detector", failed, "fatal error: too many address space collisions for -race mode", "MaxMemoryBytes"},
		{"fault at the memory limit", failed, "SIGSEGV: segmentation violation\nPC=0x4351dd m=0 sigcode=1 addr=0x0\n", "MaxMemoryBytes"},
		{"fault in Go code", failed, "panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x1]", "the worker process failed (exit status 3): panic: runtime error"},
		{"stack overflow", failed, "runtime: goroutine stack exceeds 1000000000-byte limit\n", "recursed too deeply"},
		{"processor time", spent, "", "processor time"},
		{"killed from outside", killed, "", "killed (signal: killed) by something other than this server"},
		{"anything else", failed, "panic: something\n\nmore", "the worker process failed (exit status 3): panic: something"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := c.died(tt.err, tt.stderr).Error(); !strings.Contains(got, tt.want) {
				t.Errorf("died(%v, %q) = %q, want %q", tt.err, tt.stderr, got, tt.want)
			}
		})
	}
}

// BenchmarkWorker measures what a worker process costs one call: a small
// recipe (recipe 4 over 20 records) evaluated in process and in a worker,
// side by side. Report the ratio worker/in-process.
func BenchmarkWorker(b *testing.B) {
	dir := b.TempDir()
	w, err := jsonl.Create("recall", &jsonl.Options{Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	if err := w.WriteHeader(jsonl.Header{Operation: "recall", Count: 20, SchemaVersion: "1.0", EstimatedTokens: 1, Detail: "light"}); err != nil {
		b.Fatal(err)
	}
	for i := range 20 {
		if err := w.WriteValue(map[string]any{"id": fmt.Sprint(i), "title": "t", "namespace": "n", "memory_type": "m"}); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		b.Fatal(err)
	}
	c, err := newConfig(&Options{Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	req := extractRequest{Recipe: 4}
	b.Run("in-process", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			src, err := c.openSource(ctx, ref{argFilePath, w.Path()})
			if err != nil {
				b.Fatal(err)
			}
			if _, res, err := c.evaluate(ctx, src, &req); err != nil || len(res.spans) != 20 {
				b.Fatal(err)
			}
			src.Close()
		}
	})
	b.Run("worker", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var n int
			err := c.withSource(ctx, ref{argFilePath, w.Path()}, func(ctx context.Context, src *source) error {
				return c.inWorker(ctx, src, &job{Tool: ToolExtract, Extract: req}, func(fr *frame) bool {
					n = len(fr.Results.Spans)
					return false
				})
			})
			if err != nil || n != 20 {
				b.Fatal(err, n)
			}
		}
	})
}
