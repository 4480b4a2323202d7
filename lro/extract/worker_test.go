package extract

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/zircote/lro-go/lro"
	"os/exec"
	"runtime"
	"strings"
	"sync"
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
	if err := AddTools(s, nil); !errors.Is(err, errNoWorker) {
		t.Errorf("AddTools without RunWorker: %v, want errNoWorker", err)
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
			if got := c.died(tt.err, tt.stderr, &job{Tool: ToolExtract}).Error(); !strings.Contains(got, tt.want) {
				t.Errorf("died(%v, %q) = %q, want %q", tt.err, tt.stderr, got, tt.want)
			}
		})
	}
}

// TestWorkerThreadExit runs a query that never ends while the host program's
// goroutines lock their threads and return without unlocking them, so that
// their threads exit, as a host program may do. Linux sends the parent-death
// signal of a child when the thread that started it exits, not the process
// (golang/go#27505): a worker started with it is killed within milliseconds
// as soon as that thread happens to be one that exits. The call must run to
// its time limit and say so, not report a worker killed for its processor
// time.
func TestWorkerThreadExit(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the parent-death signal is Linux's")
	}
	const timeout = 2 * time.Second
	dir := t.TempDir()
	path := smallFile(t, dir, 1)
	c, err := newConfig(&Options{LRO: &lro.Options{OutputDir: dir}, Timeout: timeout})
	if err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]any{argFilePath: path, argQuery: "def f: f; f"})
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: ToolExtract, Arguments: args}}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			var exits sync.WaitGroup
			for range 4 {
				exits.Go(func() {
					runtime.LockOSThread() // never unlocked: the thread exits with the goroutine
				})
			}
			exits.Wait()
		}
	})
	res, err := c.handler(ToolExtract, c.extract)(context.Background(), req)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if want := fmt.Sprintf("stopped after %v, the time limit", timeout); !res.IsError || !strings.Contains(text, want) {
		t.Errorf("%v %q, want a tool error containing %q", res.IsError, text, want)
	}
}

// smallFile writes an offloaded file of n records in dir and returns its
// path.
func smallFile(t testing.TB, dir string, n int) string {
	t.Helper()
	w, err := jsonl.Create("recall", &jsonl.Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if err := w.WriteHeader(jsonl.Header{Operation: "recall", Count: n, SchemaVersion: "1.0", EstimatedTokens: 1, Detail: "light"}); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := w.WriteRecord(valueLine(map[string]any{"id": fmt.Sprint(i), "title": "t", "namespace": "n", "memory_type": "m"})); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	return w.Path()
}

// BenchmarkWorker measures what a worker process costs one call: a small
// recipe (recipe 4 over 20 records) evaluated in process and in a worker,
// side by side. Report the ratio worker/in-process.
func BenchmarkWorker(b *testing.B) {
	dir := b.TempDir()
	path := smallFile(b, dir, 20)
	c, err := newConfig(&Options{LRO: &lro.Options{OutputDir: dir}})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	req := extractRequest{Recipe: 4}
	b.Run("in-process", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			src, err := c.openSource(ctx, ref{argFilePath, path})
			if err != nil {
				b.Fatal(err)
			}
			if _, res, err := c.evaluate(ctx, src, &req); err != nil || len(res.Spans) != 20 {
				b.Fatal(err)
			}
			src.Close()
		}
	})
	b.Run("worker", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var n int
			err := c.withSource(ctx, ref{argFilePath, path}, func(ctx context.Context, src *source) error {
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
