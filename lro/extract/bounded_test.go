package extract_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro/extract"
)

// The limits the bounded test configures on the server. The bounds it
// asserts follow from them, never from the machine's speed.
const (
	boundTimeout = 2 * time.Second
	boundMemory  = 128 << 20
	// boundSlack is the time a call may take past its time limit: the
	// issue's requirement.
	boundSlack = time.Second
	// boundMargin is the memory a call may add past its limit: what the
	// worker holds when it starts, before its limit is set (about 12 MiB:
	// the Go runtime, the program's text, which the server's RSS counts
	// too), and the server's buffers for the call.
	boundMargin = 48 << 20
)

// TestBoundedCalls is the test of issue 13: it builds the example memory
// server, serves the extraction tools with a time limit of 2 s and a memory
// limit of 128 MiB, and sends it queries that, unbounded, take minutes or
// gigabytes in single steps of gojq or of a regular expression. While each
// call runs it samples the resident memory of the server and its workers
// (/proc), and it wants every call to end within its time limit plus one
// second, with a tool error naming the limit hit, the process tree to have
// grown by at most the memory limit plus a fixed margin, and no worker
// left running after the answer. Then 16 such calls at once, and an
// ordinary call after them.
func TestBoundedCalls(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the memory bound is enforced, and /proc read, on Linux")
	}
	bin := buildServer(t)
	dir := t.TempDir()
	file := offload(t, dir, "full", memories(271, "full"))
	// A record holding a 15 MB string, for lro_search and lro_read.
	huge := offload(t, dir, "full", []any{map[string]any{"id": "h", "text": strings.Repeat("x", 15_000_000)}})

	cmd := exec.Command(bin, "-extract", "-records", "10", "-output-dir", dir,
		"-extract-timeout", boundTimeout.String(), "-extract-max-memory", strconv.Itoa(boundMemory>>20))
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bounded", Version: "1.0"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	server := cmd.Process.Pid
	ordinary := func(t *testing.T) {
		t.Helper()
		start := time.Now()
		texts, isErr := callCtx(t, context.Background(), cs, extract.ToolExtract, map[string]any{"file_path": file, "recipe": 6})
		if isErr || !strings.Contains(texts[0], `"namespace":"_semantic"`) {
			t.Fatalf("ordinary call: %v %q", isErr, texts)
		}
		if d := time.Since(start); d > boundTimeout {
			t.Errorf("ordinary call took %v", d)
		}
	}
	// Warm up (the server's own memory settles), then measure the server
	// alone: no worker runs between calls.
	ordinary(t)
	base := status(server, "VmRSS:")

	memory, timed := "MaxMemoryBytes", "time limit"
	tests := []struct {
		name  string
		tool  string
		args  map[string]any
		want  []string // the error names one of these; nil: an answer
		slurp bool
	}{
		// The rows of the issue.
		{"repeat and split", extract.ToolExtract, map[string]any{"query": `("x" * 200000000) | split("") | length`}, []string{memory, timed}, true},
		{"repeat and explode", extract.ToolExtract, map[string]any{"query": `("x" * 200000000) | explode | length`}, []string{memory, timed}, true},
		{"match of the empty string", extract.ToolExtract, map[string]any{"query": `[("x" * 100000000) | match(""; "g")] | length`}, []string{memory, timed}, true},
		{"string doubled 31 times", extract.ToolExtract, map[string]any{"query": `reduce range(31) as $i ("x"; . + .)`}, []string{memory, timed}, true},
		{"backtracking-prone regular expression", extract.ToolExtract, map[string]any{"query": `("a" * 1e8) | test("(a|aa)*b")`}, []string{memory, timed}, true},
		{"del on a shared value", extract.ToolExtract, map[string]any{"query": `reduce range(40) as $i (0; [., .]) | del(.[0]) | length`}, []string{memory, timed}, true},
		{"recursion that builds a value", extract.ToolExtract, map[string]any{"query": `def f: [f]; f`}, []string{memory, timed}, true},
		{"search with a huge regular expression", extract.ToolSearch, map[string]any{"file_path": huge, "pattern": `[a-z]{1000}[a-z]{1000}b`}, []string{memory, timed}, false},
		// More.
		{"loop in constant memory", extract.ToolExtract, map[string]any{"query": `def f: f; f`}, []string{timed}, false},
		{"2 GB string in one step", extract.ToolExtract, map[string]any{"query": `"xx" * 1e9`}, []string{memory, timed}, false},
		{"8.6 GB array in one step", extract.ToolExtract, map[string]any{"query": `null | .[536870911] = 1`}, []string{memory, timed}, false},
		{"deep value encoded", extract.ToolExtract, map[string]any{"query": `reduce range(1e7) as $i (null; [.]) | tojson`}, []string{memory, timed}, false},
		{"a billion-element array grouped", extract.ToolExtract, map[string]any{"query": `[limit(1e9; repeat(1))] | group_by(.)`}, []string{memory, timed}, false},
		{"2^64-node shared value encoded", extract.ToolExtract, map[string]any{"query": `reduce range(64) as $i (0; [., .]) | tostring`}, []string{memory, timed}, false},
		{"gsub doubling", extract.ToolExtract, map[string]any{"query": `"x" * 1e8 | gsub("x"; "yy") | length`}, []string{memory, timed}, false},
		{"scan of every character", extract.ToolExtract, map[string]any{"query": `"x" * 1e8 | [scan("x")] | length`}, []string{memory, timed}, false},
		{"all records held forever", extract.ToolExtract, map[string]any{"query": `. as $all | repeat($all) | empty`}, []string{timed}, true},
		{"huge record slurped and copied", extract.ToolExtract, map[string]any{"file_path": huge, "query": `[.[0].text * 100] | length`}, []string{memory, timed}, true},
		{"read of a 15 MB line", extract.ToolRead, map[string]any{"file_path": huge, "line": 2, "char_offset": 14_000_000, "max_chars": 100_000_000}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := map[string]any{"file_path": file}
			for k, v := range tt.args {
				args[k] = v
			}
			if tt.slurp {
				args["slurp"] = true
			}
			var texts []string
			var isErr bool
			elapsed, peak := measure(server, func() { texts, isErr = callCtx(t, context.Background(), cs, tt.tool, args) })
			text := strings.Join(texts, "\n")
			t.Logf("%v, +%d MiB: %.150q", elapsed.Round(time.Millisecond), (peak-base)>>20, text)
			if tt.want == nil && isErr {
				t.Errorf("%s: error %q", tt.tool, truncated(text))
			}
			if tt.want != nil && (!isErr || !containsAny(text, tt.want)) {
				t.Errorf("%s: %v %q, want a tool error naming one of %q", tt.tool, isErr, truncated(text), tt.want)
			}
			if elapsed > boundTimeout+boundSlack {
				t.Errorf("took %v, more than the time limit %v plus %v", elapsed, boundTimeout, boundSlack)
			}
			if grown := peak - base; grown > boundMemory+boundMargin {
				t.Errorf("the server and its workers grew by %d MiB, more than the limit %d MiB plus %d MiB", grown>>20, boundMemory>>20, boundMargin>>20)
			}
			if kids := children(server); len(kids) > 0 {
				t.Errorf("workers %v still running after the answer", kids)
			}
		})
	}

	t.Run("cancelled call", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: extract.ToolExtract, Arguments: map[string]any{"file_path": file, "query": `def f: f; f`}})
		if err == nil {
			t.Fatal("the cancelled call answered")
		}
		// The server kills the worker as soon as it hears of the
		// cancellation.
		deadline := time.Now().Add(boundSlack)
		for len(children(server)) > 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if kids := children(server); len(kids) > 0 {
			t.Errorf("workers %v still running %v after the call was cancelled", kids, boundSlack)
		}
	})

	t.Run("16 at once", func(t *testing.T) {
		queries := []string{`def f: [f]; f`, `("x" * 200000000) | split("") | length`, `def f: f; f`, `reduce range(31) as $i ("x"; . + .)`}
		var mu sync.Mutex
		var failures []string
		elapsed, peak := measure(server, func() {
			var wg sync.WaitGroup
			for i := range 16 {
				wg.Go(func() {
					start := time.Now()
					q := queries[i%len(queries)]
					texts, isErr := callCtx(t, context.Background(), cs, extract.ToolExtract, map[string]any{"file_path": file, "query": q, "slurp": true})
					d := time.Since(start)
					mu.Lock()
					defer mu.Unlock()
					if !isErr || !containsAny(strings.Join(texts, "\n"), []string{memory, timed}) {
						failures = append(failures, fmt.Sprintf("%s: %v %.200q", q, isErr, texts))
					}
					if d > boundTimeout+boundSlack {
						failures = append(failures, fmt.Sprintf("%s took %v", q, d))
					}
				})
			}
			wg.Wait()
		})
		for _, f := range failures {
			t.Error(f)
		}
		// At most DefaultWorkers run at once, each within its limit.
		limit := int64(extract.DefaultWorkers) * (boundMemory + boundMargin)
		t.Logf("%v, +%d MiB", elapsed.Round(time.Millisecond), (peak-base)>>20)
		if grown := peak - base; grown > limit {
			t.Errorf("16 calls at once grew the server and its workers by %d MiB, more than %d MiB", grown>>20, limit>>20)
		}
		ordinary(t)
	})
}

func containsAny(s string, subs []string) bool {
	for _, w := range subs {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// callCtx is call with a context.
func callCtx(t testing.TB, ctx context.Context, cs *mcp.ClientSession, tool string, args map[string]any) ([]string, bool) {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Errorf("%s: protocol error: %v", tool, err)
		return nil, false
	}
	var texts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	return texts, res.IsError
}

// buildServer builds the example memory server (without -race: it is the
// program under test, not the test).
func buildServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "memory")
	cmd := exec.Command("go", "build", "-o", bin, "../../examples/memory")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// measure runs f and returns how long it took and the peak of the resident
// memory of the server and its workers while it ran, sampled every 5 ms. A
// worker's peak is its high-water mark (VmHWM), which the kernel keeps, so
// a peak between two samples counts.
func measure(server int, f func()) (time.Duration, int64) {
	done := make(chan struct{})
	peakc := make(chan int64)
	go func() {
		hwm := map[int]int64{}
		var peak int64
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			rss := status(server, "VmRSS:")
			for _, kid := range children(server) {
				// Between fork and exec a child shares the server's
				// memory, and its figures are the server's: count it
				// once it runs as a worker.
				if env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", kid)); bytes.Contains(env, []byte("LRO_EXTRACT_WORKER=1")) {
					hwm[kid] = max(hwm[kid], status(kid, "VmHWM:"))
				}
			}
			live := rss
			for _, h := range hwm {
				live += h
			}
			peak = max(peak, live)
			select {
			case <-done:
				peakc <- peak
				return
			case <-tick.C:
			}
			// Workers that ended no longer count.
			kids := children(server)
			for pid := range hwm {
				if !containsInt(kids, pid) {
					delete(hwm, pid)
				}
			}
		}
	}()
	start := time.Now()
	f()
	elapsed := time.Since(start)
	close(done)
	return elapsed, <-peakc
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// status reads a size in kB from /proc/pid/status, in bytes; 0 if the
// process is gone.
func status(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, field); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// children returns the processes whose parent is pid.
func children(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var kids []int
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", n))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(b[i+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			kids = append(kids, n)
		}
	}
	return kids
}
