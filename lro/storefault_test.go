package lro_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	_ "gocloud.dev/blob/s3blob"

	"github.com/zircote/lro-go/internal/s3test"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/event"
	"github.com/zircote/lro-go/lro/store"
)

// TestStalledStore offloads to versitygw stopped by SIGSTOP, a stalled
// store, with a short write deadline: each call returns the fallback, with
// a WriteFailed event whose error is the deadline; after three, the store
// stops trying (one StoreUnavailable event) and calls fall back without
// waiting. Once the server runs again and the breaker's backoff has passed
// on the store's clock, the next call offloads again.
func TestStalledStore(t *testing.T) {
	s3test.Setenv()
	srv := s3test.Start(t)
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	rec := &recorder{}
	st, err := store.Open(context.Background(), s3test.URL(srv.Endpoint(), srv.NewBucket(t)),
		&store.Options{WriteTimeout: 300 * time.Millisecond, Now: clock, Observer: rec})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h := lro.Wrap(textHandler(200), &lro.Options{Store: st, Observer: rec})
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

	srv.Pause(t)
	for i := range 4 {
		if res := call(); !fellBack(res) {
			t.Fatalf("call %d to a stalled store: %v, want the fallback", i, res.Content)
		}
	}
	var failed, unavailable int
	for _, e := range rec.all() {
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

	srv.Resume(t)
	now.Add(int64(time.Minute))
	if res := call(); fellBack(res) {
		t.Errorf("the call after the store came back fell back: %v", res.Content[0])
	}
}
