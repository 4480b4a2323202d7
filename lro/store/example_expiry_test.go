package store_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"gocloud.dev/blob/memblob"

	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro/store"
	"github.com/zircote/lro-go/lro/store/blobstore"
)

// TestExampleExpiry is the end of Example, which has no clock of its own
// since Options.Now became a test hook: with the writer's clock, a handle
// read by another replica expires an hour (the TTL) after the write's
// deadline.
func TestExampleExpiry(t *testing.T) {
	ctx := context.Background()
	bucket := memblob.OpenBucket(nil)
	defer bucket.Close()
	now := time.Date(2026, 11, 21, 13, 0, 0, 0, time.UTC)
	opts := &store.Options{TTL: time.Hour}
	clock := func() time.Time { return now }

	writer, err := store.NewBucket(blobstore.New(bucket), opts)
	if err != nil {
		t.Fatal(err)
	}
	store.WithClock(writer, clock)
	w, err := writer.Create(ctx, "recall")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	w.WriteHeader(jsonl.Header{Count: 2, Timestamp: "2026-11-21T13:00:00.000Z"})
	w.WriteRecord([]byte(`{"id":"m1"}`))
	w.WriteRecord([]byte(`{"id":"m2"}`))
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	handle := filepath.Base(w.Path())

	reader, err := store.NewBucket(blobstore.New(bucket), opts) // another replica
	if err != nil {
		t.Fatal(err)
	}
	store.WithClock(reader, clock)
	r, _, err := reader.NewRangeReader(ctx, handle, 0, -1)
	if err != nil {
		t.Fatalf("before the expiry: %v", err)
	}
	r.Close()
	now = now.Add(time.Hour + 30*time.Second) // the TTL, from the write's deadline (Options.WriteTimeout)
	_, _, err = reader.NewRangeReader(ctx, handle, 0, -1)
	if !errors.Is(err, store.ErrExpiredHandle) {
		t.Errorf("an hour after the deadline: %v, want ErrExpiredHandle", err)
	}
}
