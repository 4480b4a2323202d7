//go:build linux

package extract_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	_ "gocloud.dev/blob/fileblob"

	"github.com/zircote/lro-go/internal/testing/proctest"

	"github.com/zircote/lro-go/estimate"
	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro/extract"
	"github.com/zircote/lro-go/lro/store"
)

// The limits the bounded test configures on the server. The bounds it
// asserts follow from them, never from the machine's speed.
const (
	boundTimeout = 2 * time.Second
	boundMemory  = 128 << 20
	// boundThreshold is the size threshold, in tokens: every answer fits
	// in it.
	boundThreshold = 1600
	// boundSlack is the time a call may take past its time limit: the
	// issue's requirement, which BenchmarkTimeLimit measures on the wall
	// clock. The test checks it where load cannot break it: a worker, which
	// the server kills at the time limit, uses at most maxWorkerCPU of
	// processor time (the kernel would only kill it at its RLIMIT_CPU, the
	// time limit plus one second).
	boundSlack = time.Second
	// boundWall is how long, on the wall clock, the test waits for a
	// call: ten times its limit and slack, so that a loaded machine, which
	// stretches every call, never reaches it, and only a call that is not
	// bounded at all does (wallBound).
	boundWall = 10 * (boundTimeout + boundSlack)
	// boundPatient is the time limit of the servers of the rows that must
	// answer (and of the probe of MaxOutputBytes): they are about memory,
	// and a loaded machine must not make them miss a limit of 2 s (a
	// worker got 30 ms of processor time in those 2 s with eight programs
	// running for each core).
	boundPatient = 3 * boundWall
	// boundMargin is the memory a call may add past its limit: what the
	// worker holds when it starts, before its limit is set (about 12 MiB:
	// the Go runtime, the program's text, which the server's RSS counts
	// too), and the server's buffers for the call.
	boundMargin = 48 << 20
	// boundSmall is what the server alone may grow by for calls that hold
	// O(threshold) of their answer (lro_read, lro_search, and lro_extract
	// calls that end in an error), however many run at once: its buffers,
	// and garbage not yet collected.
	boundSmall = 16 << 20
)

// A boundedCall is a row of TestBoundedCalls: a call, or n identical
// calls at once, and what they must end with.
type boundedCall struct {
	name  string
	tool  string
	args  map[string]any // file_path is the 271-record file unless given
	want  []string       // the error names one of these; nil: an answer
	slurp bool
	// n is how many of the call run at once; 0 means 1.
	n int
	// answer marks an lro_extract answer of about MaxOutputBytes: the
	// server may hold up to MaxMemoryBytes for it while it answers.
	answer bool
}

// anyError accepts any tool error: the row is about the bounds, and more
// than one message is right.
var anyError = []string{""}

// TestBoundedCalls is the test of issue 13: it builds the example memory
// server, serves the extraction tools with a time limit of 2 s and a memory
// limit of 128 MiB, and sends it queries that, unbounded, take minutes or
// gigabytes in single steps of gojq or of a regular expression, in a
// worker or in the server. While each call runs it samples the resident
// memory of the server and its workers (/proc), and it wants every call to
// end with a tool error naming the limit hit, what every answer shows to
// fit in the threshold, each worker to have used at most its time limit of
// processor time (the server killed it then), the server alone to have
// grown by what the call may hold in it, the process tree by at most the
// memory limit plus a fixed margin, and no worker left running after the
// answer. Then the same calls several at once, a mix of them 16 at once,
// and an ordinary call after them.
//
// Time is checked as processor time, which load does not stretch: the
// wall clock only bounds how long the test waits for a call (boundWall),
// and BenchmarkTimeLimit measures how long past its limit a call ends.
//
// Each row has a server of its own: memory one row left to the server's
// heap neither hides nor counts against another's, and a server that
// breaks its bound by far is killed without taking the rest of the test
// (or the machine) with it.
func TestBoundedCalls(t *testing.T) {
	bin := buildServer(t)
	dir := t.TempDir()
	file := offload(t, dir, "full", memories(271, "full"))
	// A record holding a 15 MB string, for lro_search and lro_read.
	huge := offload(t, dir, "full", []any{map[string]any{"id": "h", "text": strings.Repeat("x", 15_000_000)}})
	// A record whose key is 1 MB long: lro_search names the path of a
	// match.
	longKey := offload(t, dir, "full", []any{map[string]any{"id": "k", strings.Repeat("k", 1<<20): "needle"}})
	maxOutput := probeMaxOutput(t, startBounded(t, bin, dir, file, boundPatient), file)
	// A record longer than MaxOutputBytes: lro_read shows a line in
	// pieces, whatever max_chars says.
	long := offload(t, dir, "full", []any{map[string]any{"id": "l", "text": strings.Repeat("x", maxOutput+1<<20)}})
	// Just under MaxOutputBytes, with room for quotes and a newline.
	under := maxOutput - 1024

	memory, timed := "MaxMemoryBytes", "time limit"
	hugeRegexp := strings.Repeat(`\pL{1000}`, 3000)
	tests := []boundedCall{
		// The rows of the issue.
		{name: "repeat and split", tool: extract.ToolExtract, args: map[string]any{"query": `("x" * 200000000) | split("") | length`}, want: []string{memory, timed}, slurp: true},
		{name: "repeat and explode", tool: extract.ToolExtract, args: map[string]any{"query": `("x" * 200000000) | explode | length`}, want: []string{memory, timed}, slurp: true},
		{name: "match of the empty string", tool: extract.ToolExtract, args: map[string]any{"query": `[("x" * 100000000) | match(""; "g")] | length`}, want: []string{memory, timed}, slurp: true},
		{name: "string doubled 31 times", tool: extract.ToolExtract, args: map[string]any{"query": `reduce range(31) as $i ("x"; . + .)`}, want: []string{memory, timed}, slurp: true},
		{name: "backtracking-prone regular expression", tool: extract.ToolExtract, args: map[string]any{"query": `("a" * 1e8) | test("(a|aa)*b")`}, want: []string{memory, timed}, slurp: true},
		{name: "del on a shared value", tool: extract.ToolExtract, args: map[string]any{"query": `reduce range(40) as $i (0; [., .]) | del(.[0]) | length`}, want: []string{memory, timed}, slurp: true},
		{name: "recursion that builds a value", tool: extract.ToolExtract, args: map[string]any{"query": `def f: [f]; f`}, want: []string{memory, timed}, slurp: true},
		{name: "search with a huge regular expression", tool: extract.ToolSearch, args: map[string]any{"file_path": huge, "pattern": `[a-z]{1000}[a-z]{1000}b`}, want: []string{memory, timed}},
		// More.
		{name: "loop in constant memory", tool: extract.ToolExtract, args: map[string]any{"query": `def f: f; f`}, want: []string{timed}},
		{name: "2 GB string in one step", tool: extract.ToolExtract, args: map[string]any{"query": `"xx" * 1e9`}, want: []string{memory, timed}},
		{name: "8.6 GB array in one step", tool: extract.ToolExtract, args: map[string]any{"query": `null | .[536870911] = 1`}, want: []string{memory, timed}},
		{name: "deep value encoded", tool: extract.ToolExtract, args: map[string]any{"query": `reduce range(1e7) as $i (null; [.]) | tojson`}, want: []string{memory, timed}},
		{name: "a billion-element array grouped", tool: extract.ToolExtract, args: map[string]any{"query": `[limit(1e9; repeat(1))] | group_by(.)`}, want: []string{memory, timed}},
		{name: "2^64-node shared value encoded", tool: extract.ToolExtract, args: map[string]any{"query": `reduce range(64) as $i (0; [., .]) | tostring`}, want: []string{memory, timed}},
		{name: "gsub doubling", tool: extract.ToolExtract, args: map[string]any{"query": `"x" * 1e8 | gsub("x"; "yy") | length`}, want: []string{memory, timed}},
		{name: "scan of every character", tool: extract.ToolExtract, args: map[string]any{"query": `"x" * 1e8 | [scan("x")] | length`}, want: []string{memory, timed}},
		{name: "all records held forever", tool: extract.ToolExtract, args: map[string]any{"query": `. as $all | repeat($all) | empty`}, want: []string{timed}, slurp: true},
		{name: "huge record slurped and copied", tool: extract.ToolExtract, args: map[string]any{"file_path": huge, "query": `[.[0].text * 100] | length`}, want: []string{memory, timed}, slurp: true},
		{name: "read of a 15 MB line", tool: extract.ToolRead, args: map[string]any{"file_path": huge, "line": 2, "char_offset": 14_000_000, "max_chars": 100_000_000}},
		// Work the server does itself: reading lines, checking where
		// filters, answering.
		{name: "read of a line longer than MaxOutputBytes", tool: extract.ToolRead, args: map[string]any{"file_path": long, "line": 2, "char_offset": 0, "max_chars": 1_000_000_000}},
		{name: "read of a line longer than MaxOutputBytes, 16 at once", tool: extract.ToolRead, args: map[string]any{"file_path": long, "line": 2, "char_offset": 0, "max_chars": 1_000_000_000}, n: 16},
		{name: "where with a huge regular expression", tool: extract.ToolExtract, args: map[string]any{"where": map[string]any{"title": map[string]any{"matches": hugeRegexp}}}, want: anyError},
		{name: "where with a huge regular expression, 16 at once", tool: extract.ToolExtract, args: map[string]any{"where": map[string]any{"title": map[string]any{"matches": hugeRegexp}}}, want: anyError, n: 16},
		{name: "search of a record with a 1 MB key", tool: extract.ToolSearch, args: map[string]any{"file_path": longKey, "pattern": "needle"}},
		// Raw strings are quoted again when the answer is offloaded, and
		// json.Marshal writes < as \u003c: six bytes for one.
		{name: "raw answer of MaxOutputBytes", tool: extract.ToolExtract, args: map[string]any{"query": fmt.Sprintf(`"<" * %d`, under), "raw": true}, slurp: true, answer: true},
		{name: "raw answer of MaxOutputBytes, 8 at once", tool: extract.ToolExtract, args: map[string]any{"query": fmt.Sprintf(`"<" * %d`, under), "raw": true}, slurp: true, answer: true, n: 8},
		{name: "JSON answer of MaxOutputBytes", tool: extract.ToolExtract, args: map[string]any{"query": fmt.Sprintf(`"<" * %d`, under)}, slurp: true, answer: true},
		{name: "JSON answer of MaxOutputBytes, 8 at once", tool: extract.ToolExtract, args: map[string]any{"query": fmt.Sprintf(`"<" * %d`, under)}, slurp: true, answer: true, n: 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := make([]boundedCall, max(tt.n, 1))
			for i := range calls {
				calls[i] = tt
			}
			timeout := boundTimeout
			if tt.want == nil {
				timeout = boundPatient
			}
			runBounded(t, startBounded(t, bin, dir, file, timeout), file, calls, timeout)
		})
	}

	t.Run("cancelled call", func(t *testing.T) {
		// A time limit the test never reaches: only the cancellation
		// can end the worker.
		const limit = 3 * boundWall
		srv := startBounded(t, bin, dir, file, limit)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := make(chan error, 1)
		go func() {
			_, err := srv.cs.CallTool(ctx, &mcp.CallToolParams{Name: extract.ToolExtract, Arguments: map[string]any{"file_path": file, "query": `def f: f; f`}})
			done <- err
		}()
		// Cancel once the worker runs.
		deadline := time.Now().Add(boundWall)
		for len(workers(srv.pid)) == 0 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if len(workers(srv.pid)) == 0 {
			t.Fatalf("no worker started within %v", boundWall)
		}
		cancel()
		if err := <-done; err == nil {
			t.Fatal("the cancelled call answered")
		}
		// The server kills the worker when it hears of the cancellation,
		// long before its time limit.
		deadline = time.Now().Add(boundWall)
		for len(proctest.Children(srv.pid)) > 0 && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if kids := proctest.Children(srv.pid); len(kids) > 0 {
			t.Errorf("workers %v still running %v after the call was cancelled (its time limit is %v)", kids, boundWall, limit)
		}
	})

	t.Run("16 at once, mixed", func(t *testing.T) {
		mix := []string{"recursion that builds a value", "repeat and split", "loop in constant memory", "string doubled 31 times",
			"read of a line longer than MaxOutputBytes", "search with a huge regular expression", "search of a record with a 1 MB key", "where with a huge regular expression"}
		byName := map[string]boundedCall{}
		for _, tt := range tests {
			byName[tt.name] = tt
		}
		var calls []boundedCall
		for i := range 16 {
			c, ok := byName[mix[i%len(mix)]]
			if !ok {
				t.Fatalf("no row %q", mix[i%len(mix)])
			}
			calls = append(calls, c)
		}
		runBounded(t, startBounded(t, bin, dir, file, boundTimeout), file, calls, boundTimeout)
	})
}

// maxWorkerCPU is the processor time a worker may use under the time limit
// timeout: the limit, which it cannot use more than on one processor
// (GOMAXPROCS=1), plus a tenth for the runtime's other threads.
func maxWorkerCPU(timeout time.Duration) time.Duration { return timeout + timeout/10 }

// boundedServer is a server of TestBoundedCalls and its client.
type boundedServer struct {
	cs  *mcp.ClientSession
	pid int
}

// startBounded starts the example server with the limits of the test and
// the time limit timeout, over stdio, and warms it up with an ordinary call
// on file.
func startBounded(t *testing.T, bin, dir, file string, timeout time.Duration) *boundedServer {
	t.Helper()
	cmd := exec.Command(bin, "-extract", "-records", "10", "-output-dir", dir, "-threshold", strconv.Itoa(boundThreshold),
		"-extract-timeout", timeout.String(), "-extract-max-memory", strconv.Itoa(boundMemory>>20))
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bounded", Version: "1.0"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	srv := &boundedServer{cs, cmd.Process.Pid}
	srv.ordinary(t, file)
	return srv
}

// ordinary makes an ordinary call, which must answer normally.
func (srv *boundedServer) ordinary(t *testing.T, file string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), boundWall)
	defer cancel()
	texts, isErr := callCtx(t, ctx, srv.cs, extract.ToolExtract, map[string]any{"file_path": file, "recipe": 6})
	if isErr || len(texts) == 0 || !strings.Contains(texts[0], `"namespace":"_semantic"`) {
		t.Fatalf("ordinary call: %v %.300q", isErr, texts)
	}
}

// probeMaxOutput returns the server's MaxOutputBytes, which the example
// server derives from its other limits, from the error of a query whose
// output passes it. A worker must be able to hold that much output within
// its memory limit; if it cannot, the test fails, and the other rows run
// with an eighth of the memory limit, which a worker can hold.
func probeMaxOutput(t *testing.T, srv *boundedServer, file string) int {
	t.Helper()
	texts, isErr := callCtx(t, context.Background(), srv.cs, extract.ToolExtract, map[string]any{"file_path": file, "query": `range(1e9) | "x" * 4000`, "raw": true})
	text := strings.Join(texts, "\n")
	m := regexp.MustCompile(`passed (\d+) bytes .*\(MaxOutputBytes\)`).FindStringSubmatch(text)
	if !isErr || m == nil {
		t.Errorf("probing MaxOutputBytes with an output that passes it: %v %.300q; want the error of MaxOutputBytes, which a worker must reach within its %d MiB", isErr, text, boundMemory>>20)
		return boundMemory / 8
	}
	n, _ := strconv.Atoi(m[1])
	t.Logf("MaxOutputBytes is %d MiB", n>>20)
	return n
}

// runBounded makes calls at once and checks each's answer and time, and
// the memory of srv and its workers while they run; timeout is srv's time
// limit.
func runBounded(t *testing.T, srv *boundedServer, file string, calls []boundedCall, timeout time.Duration) {
	wall := 10 * (timeout + boundSlack)
	t.Helper()
	// A call of lro_extract or lro_search holds one of the Workers slots
	// from its start to its answer, and its worker and its answer in the
	// server share its memory limit: at most Workers of them hold memory
	// at once, the server a limit for each large answer.
	answers, withWorkers := 0, 0
	for _, c := range calls {
		if c.answer {
			answers++
		}
		if c.tool != extract.ToolRead {
			withWorkers++
		}
	}
	serverBound := int64(min(answers, extract.DefaultWorkers))*boundMemory + boundSmall
	totalBound := int64(max(1, min(withWorkers, extract.DefaultWorkers)))*(boundMemory+boundMargin) + boundSmall
	base := procSize(srv.pid, "VmRSS:")
	serverCPU, workerCPU, err := cpuTimes(srv.pid)
	if err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var failures []string
	killAt := base + 2*totalBound
	elapsed, serverPeak, totalPeak := measure(srv.pid, killAt, func() {
		var wg sync.WaitGroup
		for _, c := range calls {
			wg.Go(func() {
				args := map[string]any{"file_path": file}
				for k, v := range c.args {
					args[k] = v
				}
				if c.slurp {
					args["slurp"] = true
				}
				start := time.Now()
				ctx, cancel := context.WithTimeout(context.Background(), wall)
				defer cancel()
				texts, isErr := callCtx(t, ctx, srv.cs, c.tool, args)
				d := time.Since(start)
				text := strings.Join(texts, "\n")
				mu.Lock()
				defer mu.Unlock()
				fail := func(format string, a ...any) {
					failures = append(failures, fmt.Sprintf("%s: ", c.name)+fmt.Sprintf(format, a...))
				}
				want := c.want
				if len(calls) > 1 {
					// A call may wait for a worker in vain.
					want = append(slices.Clip(want), "time limit")
				}
				switch {
				case c.want == nil && !isErr:
				case isErr && containsAny(text, want):
				case c.want == nil:
					fail("%s: error %q", c.tool, truncated(text))
				default:
					fail("%s: %v %q, want a tool error naming one of %q", c.tool, isErr, truncated(text), want)
				}
				// What the answer shows, before its notes, fits in the
				// threshold.
				if len(texts) > 0 && estimate.Tokens(texts[0]) > boundThreshold {
					fail("the answer shows %d tokens, more than the threshold %d", estimate.Tokens(texts[0]), boundThreshold)
				}
				if d >= wall {
					fail("did not end within %v, ten times the time limit %v plus %v", d, timeout, boundSlack)
				}
			})
		}
		wg.Wait()
	})
	for _, f := range failures {
		t.Error(f)
	}
	serverEnd, workerEnd, err := cpuTimes(srv.pid)
	if err != nil {
		t.Fatal(err)
	}
	serverCPU, workerCPU = serverEnd-serverCPU, workerEnd-workerCPU
	t.Logf("%d call(s): %v, server +%d MiB, with its workers +%d MiB; processor time: server %v, workers %v", len(calls), elapsed.Round(time.Millisecond), (serverPeak-base)>>20, (totalPeak-base)>>20, serverCPU, workerCPU)
	// Load stretches a call on the wall, never the processor time it
	// takes: the server's own work for a call stops at its time limit.
	if bound := time.Duration(len(calls)) * (timeout + boundSlack); serverCPU > bound {
		t.Errorf("the server used %v of processor time, more than %v: %d call(s) of at most the time limit %v plus %v each", serverCPU, bound, len(calls), timeout, boundSlack)
	}
	// The workers that ended, the server having waited for them, count.
	if bound := time.Duration(withWorkers) * maxWorkerCPU(timeout); workerCPU > bound {
		t.Errorf("the workers used %v of processor time, more than %v: %d of them at most the time limit %v each, plus a tenth", workerCPU, bound, withWorkers, timeout)
	}
	if grown := serverPeak - base; grown > serverBound {
		t.Errorf("the server grew by %d MiB, more than the %d MiB it may hold for these calls", grown>>20, serverBound>>20)
	}
	if grown := totalPeak - base; grown > totalBound {
		t.Errorf("the server and its workers grew by %d MiB, more than the %d MiB limit of their workers (%d MiB each, plus %d MiB) and what the server may hold", grown>>20, totalBound>>20, boundMemory>>20, boundMargin>>20)
	}
	if totalPeak > killAt {
		t.Fatalf("killed the server at +%d MiB, twice its bound, so as not to exhaust the machine", (totalPeak-base)>>20)
	}
	if kids := proctest.Children(srv.pid); len(kids) > 0 {
		t.Errorf("workers %v still running after the answer", kids)
	}
	srv.ordinary(t, file)
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

// measure runs f and returns how long it took and the peaks of the
// resident memory of the server, alone and with its workers, while it ran,
// sampled every 5 ms. A worker's peak is its high-water mark (VmHWM),
// which the kernel keeps, so a peak between two samples counts. When they
// hold more than kill bytes in all, it kills the server (its workers die with it), so that a server
// that breaks its bound fails the test rather than the machine.
func measure(server int, kill int64, f func()) (elapsed time.Duration, serverPeak, totalPeak int64) {
	done := make(chan struct{})
	peaks := make(chan [2]int64)
	go func() {
		hwm := map[int]int64{}
		var serverPeak, totalPeak int64
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			rss := procSize(server, "VmRSS:")
			// Only the workers running now count: one that ended
			// before a new one started in its slot is not counted
			// with it, however long a loaded machine makes the scan.
			kids := workers(server)
			live := rss
			for _, kid := range kids {
				hwm[kid] = max(hwm[kid], procSize(kid, "VmHWM:"))
				live += hwm[kid]
			}
			for pid := range hwm {
				if !slices.Contains(kids, pid) {
					delete(hwm, pid)
				}
			}
			serverPeak, totalPeak = max(serverPeak, rss), max(totalPeak, live)
			if live > kill {
				syscall.Kill(server, syscall.SIGKILL)
			}
			select {
			case <-done:
				peaks <- [2]int64{serverPeak, totalPeak}
				return
			case <-tick.C:
			}
		}
	}()
	start := time.Now()
	f()
	elapsed = time.Since(start)
	close(done)
	p := <-peaks
	return elapsed, p[0], p[1]
}

// workers returns the children of the server that run as workers. Between
// fork and exec a child shares the server's memory, and its figures are
// the server's: it counts once it runs as a worker.
func workers(server int) []int {
	var ws []int
	for _, kid := range proctest.Children(server) {
		if env, _ := os.ReadFile(fmt.Sprintf("/proc/%d/environ", kid.PID)); bytes.Contains(env, []byte("LRO_EXTRACT_WORKER=1")) {
			ws = append(ws, kid.PID)
		}
	}
	return ws
}

// cpuTimes returns the processor time process pid has used (user and
// system), and that of its children it has waited for: unlike the time on
// the wall, what a bounded process uses does not grow when other processes
// load the machine.
func cpuTimes(pid int) (self, children time.Duration, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, err
	}
	// The fields after comm, which may hold spaces and parentheses: the
	// state first, then utime, stime, cutime and cstime from the 12th.
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	if len(f) < 15 {
		return 0, 0, fmt.Errorf("malformed /proc/%d/stat", pid)
	}
	var ticks [4]int64
	for j := range ticks {
		if ticks[j], err = strconv.ParseInt(f[11+j], 10, 64); err != nil {
			return 0, 0, err
		}
	}
	// The unit is USER_HZ, 100 on every Linux architecture.
	const tick = time.Second / 100
	return time.Duration(ticks[0]+ticks[1]) * tick, time.Duration(ticks[2]+ticks[3]) * tick, nil
}

// procSize returns a size in kB from /proc/pid/status (VmRSS:, VmHWM:), in
// bytes; 0 if the process is gone.
func procSize(pid int, field string) int64 {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, field); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// TestBoundedResourceReads: 16 reads at once of lro://results/{handle},
// from the built example server over a bucket (file://), of an object of
// "<", which go-sdk's encoding, after the handler, makes six times larger
// and copies. Each read returns at most a 32nd of the memory limit as
// go-sdk encodes it (a larger object is refused), and keeps its slot until
// go-sdk has dropped the object: the server holds a few of those per slot.
func TestBoundedResourceReads(t *testing.T) {
	bin := buildServer(t)
	bucket := t.TempDir()
	st, err := store.Open(context.Background(), "file://"+bucket, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// An object a go-sdk client can receive (its messages are at most
	// 16 MiB), and one past the server's bound.
	object := func(size int) (string, int) {
		w, err := st.Create(context.Background(), "recall")
		if err != nil {
			t.Fatal(err)
		}
		defer w.Abort()
		n := size / 1000
		if err := w.WriteHeader(jsonl.Header{Operation: "recall", Count: n}); err != nil {
			t.Fatal(err)
		}
		for range n {
			if err := w.WriteRecord(valueLine(strings.Repeat("<", 1000))); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(filepath.Join(bucket, filepath.Base(w.Path())))
		if err != nil {
			t.Fatal(err)
		}
		return filepath.Base(w.Path()), int(fi.Size())
	}
	handle, size := object(boundMemory / 32 / 7) // six times that, encoded
	tooLarge, _ := object(boundMemory/32 + 1000)

	// What the server may grow by: Workers answers, each held a few times
	// over while go-sdk encodes and writes it. It runs with that as its
	// soft memory limit (GOMEMLIMIT), as a server deployed with a memory
	// budget does: the collector then keeps the garbage of the answers
	// written within it however starved of processor time it is (without
	// it, a machine under heavy load grew the server past the bound with
	// the same answers held), while answers held beyond Workers still
	// exceed it.
	bound := int64(extract.DefaultWorkers)*boundMemory/4 + boundSmall
	cmd := exec.Command(bin, "-storage", "file://"+bucket, "-records", "10",
		"-extract-timeout", boundTimeout.String(), "-extract-max-memory", strconv.Itoa(boundMemory>>20))
	cmd.Env = append(os.Environ(), fmt.Sprintf("GOMEMLIMIT=%dMiB", bound>>20))
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bounded", Version: "1.0"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	read := func(h string) (int, error) {
		res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: "lro://results/" + h})
		if err != nil {
			return 0, err
		}
		return len(res.Contents[0].Text), nil
	}
	if _, err := read(tooLarge); err == nil || !strings.Contains(err.Error(), "one read may return") {
		t.Errorf("a read of more than a 32nd of the memory limit: %v", err)
	}
	if n, err := read(handle); err != nil || n != size {
		t.Fatalf("read %d bytes of %d: %v", n, size, err)
	}

	server := cmd.Process.Pid
	base := procSize(server, "VmRSS:")
	var mu sync.Mutex
	var failures []string
	whole := 0
	elapsed, serverPeak, _ := measure(server, base+2*bound, func() {
		var wg sync.WaitGroup
		for range 16 {
			wg.Go(func() {
				n, err := read(handle)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case err == nil && n == size:
					whole++
				case err != nil && strings.Contains(err.Error(), "time limit of one call, while waiting for one of the"):
					// It waited for a slot in vain, as it may.
				default:
					failures = append(failures, fmt.Sprintf("read %d bytes of %d: %v", n, size, err))
				}
			})
		}
		wg.Wait()
	})
	t.Logf("16 reads of %d bytes: %d whole, %v, server +%d MiB", size, whole, elapsed.Round(time.Millisecond), (serverPeak-base)>>20)
	for _, f := range failures {
		t.Error(f)
	}
	if whole < extract.DefaultWorkers {
		t.Errorf("%d reads of 16 answered, want at least one for each of the %d slots", whole, extract.DefaultWorkers)
	}
	if grown := serverPeak - base; grown > bound {
		t.Errorf("16 reads at once grew the server by %d MiB, more than %d MiB", grown>>20, bound>>20)
	}
}
