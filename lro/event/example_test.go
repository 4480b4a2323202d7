package event_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"syscall"
	"time"

	"github.com/zircote/lro-go/lro/event"
)

// ExampleSlog logs one event of each kind with a text handler. Dropping the
// time attribute makes the output reproducible.
func ExampleSlog() {
	logger := slog.New(slog.NewTextHandler(os.Stdout, &slog.HandlerOptions{
		ReplaceAttr: func(groups []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey && len(groups) == 0 {
				return slog.Attr{}
			}
			return a
		},
	}))
	obs := event.Slog(logger)
	ctx := context.Background()
	obs.Observe(ctx, event.Offloaded{
		Tool: "recall_memories", Operation: "recall", Path: "/tmp/lro/atlatl-recall-01KAKZ0000000000000000000.jsonl",
		Count: 200, EstimatedTokens: 31000, Bytes: 124000, Duration: 3 * time.Millisecond,
	})
	obs.Observe(ctx, event.WriteFailed{
		Tool: "recall_memories", Operation: "recall", Count: 200,
		EstimatedTokens: 31000, Err: fmt.Errorf("jsonl: %w", syscall.ENOSPC),
	})
	obs.Observe(ctx, event.FileExpired{
		Path: "/tmp/lro/atlatl-recall-01KAKZ0000000000000000000.jsonl", CreatedAt: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC),
	})
	// Output:
	// level=INFO msg=OffloadCompleted tool=recall_memories operation=recall path=/tmp/lro/atlatl-recall-01KAKZ0000000000000000000.jsonl count=200 estimated_tokens=31000 bytes=124000 duration=3ms
	// level=WARN msg=OffloadWriteFailed tool=recall_memories operation=recall count=200 estimated_tokens=31000 error="jsonl: no space left on device"
	// level=INFO msg=OffloadFileExpired path=/tmp/lro/atlatl-recall-01KAKZ0000000000000000000.jsonl created_at=2026-11-21T12:00:00.000Z temporary=false
}

// offloadCounter is an Observer of its own: it switches on the type of each
// event, here to count the offloads and the bytes written. It must be safe
// for concurrent use.
type offloadCounter struct {
	mu       sync.Mutex
	offloads int
	written  int64
}

func (c *offloadCounter) Observe(_ context.Context, e event.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch e := e.(type) {
	case event.Offloaded:
		c.offloads++
		c.written += e.Bytes
	case event.WriteFailed:
		fmt.Println("offload failed:", e.Err)
	}
}

// An Observer of one's own is any type with an Observe method. A nil
// Observer, accepted wherever one is, discards every event.
func ExampleObserver() {
	obs := &offloadCounter{}
	ctx := context.Background()
	obs.Observe(ctx, event.Offloaded{Tool: "search_memories", Bytes: 2048})
	obs.Observe(ctx, event.Offloaded{Tool: "recall_memories", Bytes: 1024})
	fmt.Println(obs.offloads, "offloads,", obs.written, "bytes")
	// Output:
	// 2 offloads, 3072 bytes
}
