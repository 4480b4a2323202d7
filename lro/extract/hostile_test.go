package extract_test

import (
	"github.com/zircote/lro-go/lro"
	"runtime"
	"runtime/metrics"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/zircote/lro-go/lro/extract"
)

// TestHostileQueries runs queries that never end, never stop producing,
// or grow without bound, and wants each to end with a tool error that says
// which limit stopped it, and the server to answer the next call normally.
//
// Which limit trips first must not depend on the machine's speed: a query
// that only one limit may stop runs where the others are out of reach (on
// a slow machine under -race, `def f: [f]; f` passed its 3 s time limit
// before its 64 MiB memory limit), and a query that either may stop
// accepts both.
func TestHostileQueries(t *testing.T) {
	dir := t.TempDir()
	path := offload(t, dir, "light", memories(1, "light"))
	// timed: for the queries that run in constant memory, which only the
	// time limit stops, and those that either limit may stop. The call after
	// each, a worker's start and one small recipe, runs under the same
	// limit: on a loaded machine under -race, 1 s was not enough for it.
	const workerMemory = 64 << 20
	timed := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir}, Timeout: 5 * time.Second, MaxMemoryBytes: workerMemory})
	// untimed: for the queries that another limit stops, however slowly
	// they get there (its time limit, ten minutes, is out of their reach
	// even on a loaded machine, where one took more than a minute).
	// Its memory limit is small, so that `def f: [f]; f` reaches it soon;
	// the other queries here stay far below it (they pass with 4 MiB).
	untimed := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir}, Timeout: 10 * time.Minute, MaxMemoryBytes: 16 << 20})
	goroutines := runtime.NumGoroutine()
	// The queries run in workers: the server (this process) holds none of
	// what they build. Its heap must stay below what one worker may use
	// while they run, which any of them evaluated in the server passes.
	peak := heapPeak()
	tests := []struct {
		name, query string
		slurp       bool
		want        []string // the error contains one of these
	}{
		// The results are held until the call ends: on a loaded machine,
		// where the collector lags, the memory limit may stop the worker
		// before the count or size limit does. Either bound is right.
		{"infinite outputs", `repeat(.)`, false, []string{"MaxOutputBytes", "MaxMemoryBytes"}},
		{"a trillion outputs", `range(1e12)`, false, []string{"MaxOutputBytes", "MaxMemoryBytes"}},
		{"infinite recursion in constant space", `def f: f; f`, false, []string{"time limit"}},
		{"a billion-element array grouped", `[limit(1e9; repeat(1))] | group_by(.)`, false, []string{"MaxMemoryBytes", "time limit"}},
		{"recursion that builds a value", `def f: [f]; f`, false, []string{"MaxMemoryBytes"}},
		{"recursion that keeps a stack", `def f: 1 + f; f`, false, []string{"MaxMemoryBytes", "time limit"}},
		{"a hundred-million-element array", `[range(1e8)] | length`, false, []string{"MaxMemoryBytes", "time limit"}},
		{"endless loop without output", `last(range(1e12))`, false, []string{"time limit"}},
		{"slurped input held forever", `. as $all | repeat($all) | empty`, true, []string{"time limit"}},
		{"2 GB string in one step", `"xx" * 1e9`, false, []string{"MaxMemoryBytes"}},
		{"8.6 GB array in one step", `null | .[536870911] = 1`, false, []string{"MaxMemoryBytes"}},
		{"deep value encoded", `reduce range(1e7) as $i (null; [.]) | tojson`, false, []string{"MaxMemoryBytes"}},
		{"2^64-node shared value", `reduce range(64) as $i (0; [., .]) | tostring`, false, []string{"time limit", "MaxMemoryBytes"}},
		{"internal function", `_multiply("x"; 1e9)`, false, []string{"MaxMemoryBytes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := untimed
			if slices.Contains(tt.want, "time limit") {
				cs = timed
			}
			args := map[string]any{"file_path": path, "query": tt.query}
			if tt.slurp {
				args["slurp"] = true
			}
			texts, isErr := call(t, cs, extract.ToolExtract, args)
			text := strings.Join(texts, "\n")
			ok := false
			for _, w := range tt.want {
				ok = ok || strings.Contains(text, w)
			}
			if !isErr || !ok {
				t.Errorf("%s: %v %q, want a tool error containing one of %q", tt.query, isErr, truncated(text), tt.want)
			}
			// The server answers the next call normally.
			texts, isErr = call(t, cs, extract.ToolExtract, map[string]any{"file_path": path, "recipe": 4})
			if isErr || !strings.Contains(texts[0], `"id":"01J00000000000000000000000"`) {
				t.Fatalf("the call after %s failed: %v %q", tt.query, isErr, texts)
			}
		})
	}
	// Nothing keeps running: no goroutine of a call is left. They end
	// soon after the answers, later on a loaded machine; one left behind
	// never does.
	deadline := time.Now().Add(30 * time.Second)
	for runtime.NumGoroutine() > goroutines+2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > goroutines+2 {
		t.Errorf("%d goroutines after the hostile queries, %d before", n, goroutines)
	}
	grown := peak()
	t.Logf("the server's heap grew by at most %d MiB", grown>>20)
	if grown > workerMemory {
		t.Errorf("the server's heap grew by %d MiB while the queries ran, more than the %d MiB one worker may use", grown>>20, workerMemory>>20)
	}
}

// heapPeak samples the heap of this process every millisecond until the
// function it returns is called, which returns the most it grew by.
func heapPeak() func() int64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	heap := func() int64 {
		metrics.Read(sample)
		return int64(sample[0].Value.Uint64())
	}
	base := heap()
	stop, result := make(chan struct{}), make(chan int64)
	go func() {
		var peak int64
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			peak = max(peak, heap()-base)
			select {
			case <-stop:
				result <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return func() int64 {
		close(stop)
		return <-result
	}
}

func truncated(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}
