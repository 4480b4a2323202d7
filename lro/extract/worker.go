package extract

import (
	"bufio"
	"bytes"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// A worker is the host program started again with workerEnv set. It reads
// the job on its standard input, then the object of a bucket (object.go),
// or else the file as descriptor 3; it limits itself before it reads a
// record, and writes frames on its standard output. The server kills it at
// the time limit, on cancel, or once it has all it will show.
const (
	workerEnv = "LRO_EXTRACT_WORKER"
	maxStderr = 8 << 10 // how much of a worker's standard error is kept
)

var installed atomic.Bool // the program called RunWorker

// errNoWorker is returned by [AddTools] when the program did not call
// [RunWorker] first in main.
var errNoWorker = errors.New("extract: the program must call extract.RunWorker() first in main, so that queries run in a bounded worker process")

// RunWorker makes the program able to serve as its own extraction worker.
// Call it first in main (or in TestMain of a test binary that registers the
// tools), before anything else the program does. In the program the user
// started it returns at once; in a worker it evaluates the call and exits.
// Package init functions run in the worker too: they should have no effects
// outside the process.
func RunWorker() {
	if os.Getenv(workerEnv) == "" {
		installed.Store(true)
		return
	}
	os.Exit(serveWorker(os.Stdin, os.Stdout))
}

// job is what the server sends a worker.
type job struct {
	Tool    string
	Path    string // the file's absolute path, or its handle, for messages
	Stream  bool   // the object follows the job on standard input; else the file is descriptor 3
	Limits  limits
	Extract extractRequest
	Search  searchRequest
}

// limits are the Options a worker needs.
type limits struct {
	Timeout        time.Duration
	MaxInputBytes  int64
	MaxRecordBytes int
	MaxOutputBytes int
	MaxMemoryBytes int64
}

func (c *config) limits() limits {
	return limits{c.Timeout, c.MaxInputBytes, c.MaxRecordBytes, c.MaxOutputBytes, c.MaxMemoryBytes}
}

// workerMemory is what the worker may allocate (see Options.MaxMemoryBytes).
func (l limits) workerMemory() int64 {
	return l.MaxMemoryBytes - 2*int64(l.MaxOutputBytes)
}

// frame is one message of a worker to the server.
type frame struct {
	Err     string   // the call fails with this tool error; the last frame
	Line    int      // lro_search: the line of Match, or with Done the last line read
	Match   []byte   // lro_search: one matching record, formatted
	Results *results // lro_extract: the results; the last frame
	Label   string   // lro_extract: the filter that ran
	Done    bool     // lro_search: the last frame
}

// workerEnvironment is added to the server's environment for a worker.
// MALLOC_ARENA_MAX=1: with cgo, each thread that allocates in C would
// reserve a 64 MiB arena (glibc) of the limited address space; GOMEMLIMIT,
// three quarters of it, makes the collector work before RLIMIT_AS.
func workerEnvironment(l limits) []string {
	return []string{workerEnv + "=1", "GOMAXPROCS=1", "GOTRACEBACK=single", "MALLOC_ARENA_MAX=1",
		"GOMEMLIMIT=" + strconv.FormatInt(l.workerMemory()/4*3, 10)}
}

// inWorker runs j over the file of src in a worker process and calls each
// with every frame it sends, until each returns false or the worker sends
// its last frame; the worker is then killed. A worker that dies is
// described by the limit it hit. The caller holds a slot (see acquire).
func (c *config) inWorker(ctx context.Context, src *source, j *job, each func(*frame) bool) error {
	exe, err := executable()
	if err != nil {
		return errorf("cannot start a worker: %v", err)
	}
	j.Path, j.Stream, j.Limits = src.path, src.obj != nil, c.limits()
	wctx, kill := context.WithCancel(ctx)
	defer kill()
	var in bytes.Buffer
	if err := gob.NewEncoder(&in).Encode(j); err != nil {
		return err
	}
	stderr := &headBuffer{max: maxStderr}
	cmd := exec.CommandContext(wctx, exe)
	cmd.Env = append(os.Environ(), workerEnvironment(j.Limits)...)
	cmd.Stdin, cmd.Stderr, cmd.WaitDelay, cmd.SysProcAttr = &in, stderr, time.Second, sysProcAttr()
	if j.Stream {
		src.obj.kill = func() { cmd.Process.Kill() }
		cmd.Stdin = io.MultiReader(&in, src.obj)
		defer src.obj.stop() // when the worker failed to start
	} else {
		cmd.ExtraFiles = []*os.File{src.f}
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	// The parent-death signal follows the thread that started the worker
	// (golang/go#27505).
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cmd.Start(); err != nil {
		if ctx.Err() != nil {
			return c.stopped(ctx)
		}
		return errorf("cannot start a worker: %v", err)
	}
	frames := &io.LimitedReader{R: stdout, N: c.maxFrames()}
	br := bufio.NewReader(frames) // gob reads no further than a frame from it
	dec := gob.NewDecoder(br)
	var last *frame
	for last == nil {
		var fr frame
		if !readFrame(dec, br, &fr, c.MaxOutputBytes) {
			break
		}
		if fr.Err != "" || fr.Results != nil || fr.Done || !each(&fr) {
			last = &fr
		}
	}
	if j.Stream {
		src.obj.stop()
	}
	kill()
	switch waitErr := cmd.Wait(); {
	case last != nil && last.Err != "":
		return &toolError{msg: last.Err}
	case last != nil && (last.Results != nil || last.Done):
		each(last)
		return nil
	case last != nil: // the server has what it shows
		return nil
	case ctx.Err() != nil: // which also ends the GET
		return c.stopped(ctx)
	case j.Stream && src.obj.failed.Load() != nil:
		return errorf("reading %s: %v", src.path, *src.obj.failed.Load())
	case frames.N <= 0:
		return errorf("stopped: the worker's answer passed %d bytes, more than the output of one call may take (MaxOutputBytes)", c.maxFrames())
	default:
		return c.died(waitErr, stderr.String(), j)
	}
}

// writeFrame writes fr with enc, which writes to bw, then the output of its
// results; false if it could not.
func writeFrame(enc *gob.Encoder, bw *bufio.Writer, fr *frame) bool {
	if fr.Results != nil {
		fr.Results.buf = fr.Results.bytes()
		fr.Results.Size = len(fr.Results.buf)
	}
	if enc.Encode(fr) != nil {
		return false
	}
	if fr.Results != nil {
		if _, err := bw.Write(fr.Results.buf); err != nil {
			return false
		}
	}
	return bw.Flush() == nil
}

// readFrame reads a frame of writeFrame with dec, which reads from br, and
// at most max bytes of output; false if it could not read it whole.
func readFrame(dec *gob.Decoder, br *bufio.Reader, fr *frame, max int) bool {
	if dec.Decode(fr) != nil {
		return false
	}
	w := fr.Results
	if w == nil {
		return true
	} else if w.Size < 0 || w.Size > max {
		return false
	}
	w.buf = make([]byte, w.Size)
	_, err := io.ReadFull(br, w.buf)
	return err == nil
}

// maxFrames is the most a worker may write: the output, the bookkeeping
// of its results (MaxOutputBytes is an eighth of MaxMemoryBytes at most:
// no overflow) and room for the rest.
func (c *config) maxFrames() int64 {
	return int64(c.MaxOutputBytes) + resultCost*int64(c.maxResults()) + 1<<20
}

// acquire takes one of the Workers slots for a call, within its time
// limit, and returns the function that gives it back.
func (c *config) acquire(ctx context.Context) (release func(), err error) {
	collect := time.NewTicker(collectEvery)
	defer collect.Stop()
	for {
		select {
		case c.slots <- struct{}{}:
			return func() { <-c.slots }, nil
		case <-collect.C:
			// While calls wait, the answers being written (resources/read)
			// leave garbage of several times their object: collected at this
			// pace, the process stays within a few answers.
			if last := lastCollect.Load(); time.Since(time.Unix(0, last)) >= collectEvery && lastCollect.CompareAndSwap(last, time.Now().UnixNano()) {
				runtime.GC()
			}
		case <-ctx.Done():
			if errors.Is(context.Cause(ctx), errTimeout) {
				return nil, errorf("stopped after %v, the time limit of one call, while waiting for one of the %d workers (Workers), all busy with other calls; try again later", c.Timeout, c.Workers)
			}
			return nil, c.stopped(ctx)
		}
	}
}

// collectEvery is how often the calls waiting for a slot, together, run
// the garbage collector; lastCollect is when one last did.
const collectEvery = 100 * time.Millisecond

var lastCollect atomic.Int64

// died explains the end of a worker that sent no last frame for job j.
func (c *config) died(err error, stderr string, j *job) error {
	what := "the query builds too large a value"
	if j.Tool == toolSearch || j.Extract.Where != nil {
		what = "a regular expression may be too large to compile, or a value too large to hold"
	}
	var ee *exec.ExitError
	signaled := errors.As(err, &ee) && ee.ExitCode() == -1 // killed by a signal
	switch {
	case strings.Contains(stderr, "out of memory"), strings.Contains(stderr, "cannot allocate memory"),
		// The race detector's words, in a test binary:
		strings.Contains(stderr, "failed to allocate"), strings.Contains(stderr, "address space collisions"):
		return errorf("stopped: the call needed more than the %d MiB of memory one call may use (MaxMemoryBytes): %s", c.MaxMemoryBytes>>20, what)
	case strings.HasPrefix(stderr, "SIGSEGV"):
		// A fault in the runtime, which does not check every allocation.
		return errorf("stopped: the worker crashed in the Go runtime, as it does when it runs out of the %d MiB of memory one call may use (MaxMemoryBytes): %s", c.MaxMemoryBytes>>20, what)
	case strings.Contains(stderr, "stack exceeds"), strings.Contains(stderr, "stack overflow"):
		return errorf("stopped: the query recursed too deeply, or a value is nested too deeply, for the memory one call may use (MaxMemoryBytes)")
	case signaled && ee.UserTime()+ee.SystemTime() >= cpuLimit(c.Timeout)/2:
		// The kernel killed it at its processor time limit (RLIMIT_CPU).
		return errorf("stopped after using %v of processor time, the time limit of one call: the query is too slow or does not end; narrow it or use a recipe", cpuLimit(c.Timeout))
	case signaled:
		return errorf("the worker process was killed (%v) by something other than this server: the system may be short of memory", err)
	}
	first, _, _ := strings.Cut(strings.TrimSpace(stderr), "\n")
	return errorf("the worker process failed (%v): %s", err, truncate(first, maxMessage))
}

// cpuLimit is the processor time a worker may use, in whole seconds.
func cpuLimit(timeout time.Duration) time.Duration {
	return addSat(timeout, 2*time.Second-1, math.MaxInt64).Truncate(time.Second)
}

// addSat returns a+b, for a and b from 0 to top, or top if that is more:
// the limits computed from options that may be near their type's largest
// value do not overflow.
func addSat[T ~int | ~int64](a, b, top T) T {
	if a > top-b {
		return top
	}
	return a + b
}

// addressLimit is the RLIMIT_AS of a worker that has vm bytes of address
// space and may take n more.
func addressLimit(vm, n int64) uint64 { return uint64(addSat(vm, n, math.MaxInt64)) }

// headBuffer keeps the first max bytes written to it.
type headBuffer struct {
	bytes.Buffer
	max int
}

func (b *headBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// serveWorker is the worker; it returns the exit code.
func serveWorker(in io.Reader, out io.Writer) int {
	var j job
	br := bufio.NewReader(in) // gob reads no further than the job: an object may follow
	if err := gob.NewDecoder(br).Decode(&j); err != nil {
		fmt.Fprintln(os.Stderr, "extract worker: reading the job:", err)
		return 2
	}
	if err := limitWorker(j.Limits); err != nil {
		fmt.Fprintln(os.Stderr, "extract worker: setting limits:", err)
		return 2
	}
	bw := bufio.NewWriter(out)
	enc := gob.NewEncoder(bw)
	send := func(fr *frame) bool { return writeFrame(enc, bw, fr) }
	var r io.Reader = br
	if !j.Stream { // pread: the server reads the file too
		r = io.NewSectionReader(os.NewFile(3, j.Path), 0, math.MaxInt64)
	}
	if err := runJob(&j, r, send); err != nil {
		send(&frame{Err: err.Error()})
	}
	return 0
}

// runJob runs j over the file r reads, in the worker (whose exit closes it).
func runJob(j *job, r io.Reader, send func(*frame) bool) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error: %v", p)
		}
	}()
	l := j.Limits
	c := &config{Options: Options{Timeout: l.Timeout, MaxInputBytes: l.MaxInputBytes, MaxRecordBytes: l.MaxRecordBytes,
		MaxOutputBytes: l.MaxOutputBytes, MaxMemoryBytes: l.MaxMemoryBytes}}
	ctx := context.Background()
	src, err := newSource(ctx, r, io.NopCloser(nil), j.Path, c.MaxInputBytes)
	if err != nil {
		return err
	}
	switch j.Tool {
	case toolExtract:
		label, res, err := c.evaluate(ctx, src, &j.Extract)
		if err != nil {
			return err
		}
		send(&frame{Results: res, Label: label})
		return nil
	case toolSearch:
		return c.searchRecords(src, &j.Search, send)
	}
	return fmt.Errorf("unknown tool %q", j.Tool)
}
