package event_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
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
		Count: 200, EstimatedTokens: 31000, ThresholdTokens: 1600, Detail: "light", Bytes: 124000, Duration: 3 * time.Millisecond,
	})
	obs.Observe(ctx, event.WriteFailed{
		Tool: "recall_memories", Operation: "recall", Dir: "/tmp/lro", Count: 200, Shown: 9,
		EstimatedTokens: 31000, Err: fmt.Errorf("jsonl: %w", syscall.ENOSPC),
	})
	obs.Observe(ctx, event.FileExpired{
		Path: "/tmp/lro/atlatl-recall-01KAKZ0000000000000000000.jsonl", CreatedAt: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC), TTL: time.Hour,
	})
	// Output:
	// level=INFO msg=OffloadCompleted tool=recall_memories operation=recall path=/tmp/lro/atlatl-recall-01KAKZ0000000000000000000.jsonl handle="" count=200 estimated_tokens=31000 threshold_tokens=1600 detail=light bytes=124000 duration=3ms
	// level=WARN msg=OffloadWriteFailed tool=recall_memories operation=recall dir=/tmp/lro count=200 shown=9 estimated_tokens=31000 error="jsonl: no space left on device"
	// level=INFO msg=OffloadFileExpired path=/tmp/lro/atlatl-recall-01KAKZ0000000000000000000.jsonl created_at=2026-11-21T12:00:00.000Z ttl=1h0m0s temporary=false
}

func ExampleObserverFunc() {
	counts := map[event.Kind]int{}
	obs := event.ObserverFunc(func(_ context.Context, e event.Event) { counts[e.Kind()]++ })
	event.Emit(context.Background(), obs, event.Offloaded{Tool: "search_memories"})
	event.Emit(context.Background(), nil, event.Offloaded{}) // a nil Observer discards
	fmt.Println(counts[event.KindOffloaded], event.KindOffloaded)
	// Output:
	// 1 OffloadCompleted
}
