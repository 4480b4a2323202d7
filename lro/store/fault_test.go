package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"gocloud.dev/blob/memblob"

	"github.com/zircote/lro-go/internal/testing/s3test"
	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/event"
	"github.com/zircote/lro-go/lro/store"
	"github.com/zircote/lro-go/lro/store/blobstore"
)

// events records the events of a Store.
type events struct {
	mu  sync.Mutex
	all []event.Event
}

func (e *events) Observe(_ context.Context, ev event.Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.all = append(e.all, ev)
}

func (e *events) snapshot() []event.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]event.Event(nil), e.all...)
}

// unavailable returns the Failures and Until of the StoreUnavailable
// events so far.
func (e *events) unavailable() []event.StoreUnavailable {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []event.StoreUnavailable
	for _, ev := range e.all {
		if u, ok := ev.(event.StoreUnavailable); ok {
			out = append(out, event.StoreUnavailable{Failures: u.Failures, Until: u.Until})
		}
	}
	return out
}

// tryWrite writes a file of n records of about size bytes to s with ctx
// and returns the error of Create or Commit.
func tryWrite(ctx context.Context, s *store.Store, n, size int) error {
	w, err := s.Create(ctx, "recall")
	if err != nil {
		return err
	}
	defer w.Abort()
	if err := w.WriteHeader(jsonl.Header{Count: n, SchemaVersion: "1.0"}); err != nil {
		return err
	}
	for i := range n {
		if err := w.WriteRecord(record(i, size)); err != nil {
			return err
		}
	}
	return w.Commit()
}

// flaky is a bucket whose writes fail while down is set; tries counts the
// writes that reached it.
type flaky struct {
	store.Bucket
	down  atomic.Bool
	tries atomic.Int64
}

func (f *flaky) NewWriter(ctx context.Context, key, contentType string, expires time.Time) (io.WriteCloser, error) {
	f.tries.Add(1)
	w, err := f.Bucket.NewWriter(ctx, key, contentType, expires)
	if err != nil || !f.down.Load() {
		return w, err
	}
	return failingClose{w}, nil
}

// failingClose is a writer whose Close fails as a dead server's would.
type failingClose struct{ io.WriteCloser }

func (w failingClose) Close() error {
	w.WriteCloser.Close()
	return errors.New("dial tcp 127.0.0.1:1: connect: connection refused")
}

// TestBreaker runs the circuit breaker of a bucket's writes on the Store's
// clock, without sleeping: after three failed writes in a row, writes fail
// at once without reaching the bucket, and one StoreUnavailable says until
// when; then one write probes the bucket (the others still fail at once),
// a failed probe opens the breaker twice as long, a probe that succeeds
// closes it. A write canceled by its caller says nothing of the bucket.
func TestBreaker(t *testing.T) {
	b := memblob.OpenBucket(nil)
	t.Cleanup(func() { b.Close() })
	f := &flaky{Bucket: blobstore.New(b)}
	clk := newClock(t0)
	rec := &events{}
	s, err := store.NewBucket(f, &store.Options{Observer: rec})
	if err != nil {
		t.Fatal(err)
	}
	store.WithClock(s, clk.now)
	t.Cleanup(func() { s.Close() })
	ctx := context.Background()
	canceled, cancel := context.WithCancel(ctx)
	cancel()

	type step struct {
		reason    string
		advance   time.Duration
		down      bool
		ctx       context.Context
		wantErr   string // "" for a success
		wantTries int64  // writes that reached the bucket so far
	}
	steps := []step{
		{reason: "a write to a bucket that answers", wantTries: 1},
		{reason: "first failure", down: true, wantErr: "connection refused", wantTries: 2},
		{reason: "a canceled call is not a failure of the bucket", down: true, ctx: canceled, wantErr: "connection refused", wantTries: 3},
		{reason: "second failure", down: true, wantErr: "connection refused", wantTries: 4},
		{reason: "third failure opens the breaker", down: true, wantErr: "connection refused", wantTries: 5},
		{reason: "open: fails at once, the bucket is not tried", down: true, wantErr: "unavailable after 3 failed writes", wantTries: 5},
		{reason: "still open a moment before the backoff ends", advance: 5*time.Second - time.Millisecond, down: true, wantErr: "unavailable", wantTries: 5},
		{reason: "the probe fails: open twice as long", advance: time.Millisecond, down: true, wantErr: "connection refused", wantTries: 6},
		{reason: "open again", advance: 9 * time.Second, down: true, wantErr: "unavailable after 4 failed writes", wantTries: 6},
		{reason: "the probe succeeds: closed", advance: time.Second, wantTries: 7},
		{reason: "closed: a failure alone does not open it", down: true, wantErr: "connection refused", wantTries: 8},
		{reason: "closed: writes go on", wantTries: 9},
	}
	for i, st := range steps {
		clk.set(clk.now().Add(st.advance))
		f.down.Store(st.down)
		c := st.ctx
		if c == nil {
			c = ctx
		}
		err := tryWrite(c, s, 3, 100)
		if st.wantErr == "" && err != nil || st.wantErr != "" && (err == nil || !strings.Contains(err.Error(), st.wantErr)) {
			t.Errorf("step %d (%s): error %v, want one with %q", i, st.reason, err, st.wantErr)
		}
		if got := f.tries.Load(); got != st.wantTries {
			t.Errorf("step %d (%s): %d writes reached the bucket, want %d", i, st.reason, got, st.wantTries)
		}
	}
	want := []event.StoreUnavailable{
		{Failures: 3, Until: t0.Add(5 * time.Second)},
		{Failures: 4, Until: t0.Add(5*time.Second + 10*time.Second)},
	}
	if diff := cmp.Diff(want, rec.unavailable()); diff != "" {
		t.Errorf("StoreUnavailable events (-want +got):\n%s", diff)
	}
}

// TestBreakerOneProbe checks that while the probe is under way, other
// writes still fail at once.
func TestBreakerOneProbe(t *testing.T) {
	b := memblob.OpenBucket(nil)
	t.Cleanup(func() { b.Close() })
	f := &flaky{Bucket: blobstore.New(b)}
	f.down.Store(true)
	clk := newClock(t0)
	s, err := store.NewBucket(f, &store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	store.WithClock(s, clk.now)
	t.Cleanup(func() { s.Close() })
	for range 3 {
		tryWrite(context.Background(), s, 1, 10)
	}
	clk.set(t0.Add(time.Minute))
	probe, err := s.Create(context.Background(), "recall")
	if err != nil {
		t.Fatalf("the probe: %v", err)
	}
	defer probe.Abort()
	if err := tryWrite(context.Background(), s, 1, 10); err == nil || !strings.Contains(err.Error(), "unavailable") {
		t.Errorf("a write beside the probe: error %v, want the breaker's", err)
	}
	probe.Abort() // abandoned: no verdict, the next write probes
	f.down.Store(false)
	if err := tryWrite(context.Background(), s, 1, 10); err != nil {
		t.Errorf("the write after an abandoned probe: %v", err)
	}
}

// TestStalledBucket writes to versitygw stopped by SIGSTOP, as a stalled
// store: the write ends with an error once WriteTimeout has passed
// (instead of waiting for the server), and once the server runs again,
// the object that it completes from the request it had received whole is
// deleted: nothing is left.
func TestStalledBucket(t *testing.T) {
	srv := s3test.Start(t)
	bucket := srv.NewBucket(t)
	s := openURL(t, s3test.URL(srv.Endpoint, bucket), &store.Options{WriteTimeout: 500 * time.Millisecond}) // lists the bucket
	pause(t, srv)
	done := make(chan error, 1)
	go func() { done <- tryWrite(context.Background(), s, 20, 200) }()
	select {
	case err := <-done:
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("write to a stalled bucket: error %v, want one wrapping context.DeadlineExceeded", err)
		}
	case <-time.After(2 * time.Minute): // a guard, far beyond WriteTimeout
		t.Fatal("a write to a stalled bucket has not returned")
	}
	resume(t, srv)
	store.WaitDiscards(s)
	// The server completes the stalled upload soon after it runs again:
	// look a while.
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		if k := objects(t, srv, bucket); len(k) != 0 {
			t.Fatalf("the bucket holds %v after a failed upload", k)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// itemsHandler returns a tool handler whose result is the JSON text of n
// items, well above the threshold.
func itemsHandler(n int) mcp.ToolHandler {
	return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		items := make([]map[string]any, n)
		for i := range items {
			items[i] = map[string]any{"id": i, "title": fmt.Sprintf("item %d of the list", i)}
		}
		data, err := json.Marshal(items)
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(data)}}}, nil
	}
}

// TestStalledStore offloads to versitygw stopped by SIGSTOP, a stalled
// store, with a short write deadline: each call returns the fallback, with
// a WriteFailed event whose error is the deadline; after three, the store
// stops trying (one StoreUnavailable event) and calls fall back without
// waiting. Once the server runs again and the breaker's backoff has passed
// on the store's clock, the next call offloads again.
func TestStalledStore(t *testing.T) {
	srv := s3test.Start(t)
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	rec := &events{}
	st, err := store.Open(context.Background(), s3test.URL(srv.Endpoint, srv.NewBucket(t)),
		&store.Options{WriteTimeout: 300 * time.Millisecond, Observer: rec})
	if err != nil {
		t.Fatal(err)
	}
	store.WithClock(st, clock)
	t.Cleanup(func() { st.Close() })
	h := lro.Wrap(itemsHandler(200), &lro.Options{Store: st, Observer: rec, CleanupInterval: -1})
	call := func() *mcp.CallToolResult {
		t.Helper()
		done := make(chan *mcp.CallToolResult, 1)
		go func() {
			res, err := h(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "items"}})
			if err != nil {
				t.Error(err)
			}
			done <- res
		}()
		select {
		case res := <-done:
			return res
		case <-time.After(2 * time.Minute): // a guard, far beyond the deadline
			t.Fatal("a call offloading to a stalled store has not returned")
			return nil
		}
	}
	fellBack := func(res *mcp.CallToolResult) bool {
		tc, ok := res.Content[0].(*mcp.TextContent)
		return ok && strings.HasPrefix(tc.Text, "Warning: ")
	}

	pause(t, srv)
	for i := range 4 {
		if res := call(); !fellBack(res) {
			t.Fatalf("call %d to a stalled store: %v, want the fallback", i, res.Content)
		}
	}
	var failed, unavailable int
	for _, e := range rec.snapshot() {
		switch e := e.(type) {
		case event.WriteFailed:
			failed++
			if failed <= 3 && !errors.Is(e.Err, context.DeadlineExceeded) {
				t.Errorf("WriteFailed %d: error %v, want the write deadline", failed, e.Err)
			}
			if failed == 4 && !strings.Contains(e.Err.Error(), "unavailable") {
				t.Errorf("WriteFailed 4: error %v, want the breaker's", e.Err)
			}
		case event.StoreUnavailable:
			unavailable++
			// The third failure opens the breaker, before the call
			// falls back.
			if failed != 2 || e.Failures != 3 {
				t.Errorf("StoreUnavailable after %d WriteFailed, saying %d failures, want after 2, saying 3", failed, e.Failures)
			}
		default:
			t.Errorf("unexpected event %T", e)
		}
	}
	if failed != 4 || unavailable != 1 {
		t.Errorf("%d WriteFailed and %d StoreUnavailable events, want 4 and 1", failed, unavailable)
	}

	resume(t, srv)
	now.Add(int64(time.Minute))
	if res := call(); fellBack(res) {
		t.Errorf("the call after the store came back fell back: %v", res.Content[0])
	}
}

// pause stops srv with SIGSTOP: its port still accepts connections, which
// the kernel queues, but nothing answers, as from a stalled store, until
// resume. The test's end resumes it.
func pause(t testing.TB, srv *s3test.Server) {
	t.Helper()
	if err := srv.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Signal(syscall.SIGCONT) })
	// The signal stops every thread a moment later: wait for it where
	// /proc tells.
	status := fmt.Sprintf("/proc/%d/status", srv.Process.Pid)
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); {
		data, err := os.ReadFile(status)
		if err != nil {
			time.Sleep(500 * time.Millisecond) // no /proc: give it time
			return
		}
		if strings.Contains(string(data), "\nState:\tT") {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("versitygw has not stopped a minute after SIGSTOP")
}

// resume continues a paused server with SIGCONT.
func resume(t testing.TB, srv *s3test.Server) {
	t.Helper()
	if err := srv.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
}

// objects returns the keys of the objects of bucket, as the server's folder
// holds them: what a client would list once the server answers again.
func objects(t testing.TB, srv *s3test.Server, bucket string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(srv.Root, bucket))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, e := range entries {
		if !e.IsDir() {
			keys = append(keys, e.Name())
		}
	}
	return keys
}
