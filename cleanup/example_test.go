package cleanup_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"log"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/zircote/lro-go/cleanup"
)

// A single sweep with an explicit time, as a server with its own scheduler
// (or a test) runs it.
func ExampleJanitor_Sweep() {
	dir, err := os.MkdirTemp("", "lro-cleanup-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// Two offloaded files, written at 12:00 and 12:45.
	for _, at := range []time.Time{
		time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC),
		time.Date(2026, 11, 21, 12, 45, 0, 0, time.UTC),
	} {
		// The name's ULID carries the time the file was written.
		name := "atlatl-recall-" + ulid.MustNew(ulid.Timestamp(at), rand.Reader).String() + ".jsonl"
		header := `{"type":"lro_header","operation":"recall","query":null,"count":0,"schema_version":"1.0","timestamp":"` + at.Format(time.RFC3339) + `","estimated_tokens":0,"detail":"full"}` + "\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(header), 0o600); err != nil {
			log.Fatal(err)
		}
	}
	// A file of another name, which the janitor never touches.
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o600); err != nil {
		log.Fatal(err)
	}

	j, err := cleanup.New(&cleanup.Options{
		Dir: dir, // TTL: the default hour
		OnExpired: func(_ context.Context, path string, created time.Time, temporary bool) {
			fmt.Println("deleted", created.Format(time.RFC3339), temporary)
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	res, err := j.Sweep(context.Background(), time.Date(2026, 11, 21, 13, 0, 0, 0, time.UTC))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("expired %d, kept %d, next expiry %s\n",
		res.Expired, res.Kept, res.NextExpiry.Format(time.Kitchen))
	// Output:
	// deleted 2026-11-21T12:00:00Z false
	// expired 1, kept 1, next expiry 1:45PM
}

// A program that offloads without package lro schedules the sweeps
// itself: at once, then when the next file kept is due, and at least every
// hour for the files written meanwhile, until ctx ends.
func ExampleJanitor_Sweep_loop() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	j, err := cleanup.New(&cleanup.Options{
		Dir: filepath.Join(os.TempDir(), "lro"),
		OnExpired: func(ctx context.Context, path string, created time.Time, temporary bool) {
			slog.InfoContext(ctx, "OffloadFileExpired", "path", path, "created_at", created, "temporary", temporary)
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	go func() {
		for wait := time.Duration(0); ; {
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			now := time.Now()
			res, err := j.Sweep(ctx, now)
			if err != nil && ctx.Err() == nil {
				slog.Warn("offload cleanup", "error", err)
			}
			wait = time.Hour // the TTL: the soonest a file written now is due
			if !res.NextExpiry.IsZero() {
				wait = min(wait, max(res.NextExpiry.Sub(now), time.Second))
			}
		}
	}()
	// ... serve MCP requests until ctx ends ...
}
