package store_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"gocloud.dev/blob/memblob"

	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro/store"
	"github.com/zircote/lro-go/lro/store/blobstore"
)

// A replica writes a result set to a bucket and hands out its handle; any
// replica with the same bucket reads it back until the TTL has passed
// since the write's deadline.
func Example() {
	ctx := context.Background()
	bucket := memblob.OpenBucket(nil) // a program would call store.Open(ctx, "s3://...", opts)
	defer bucket.Close()
	opts := &store.Options{TTL: time.Hour}

	writer, _ := store.NewBucket(blobstore.New(bucket), opts)
	w, err := writer.Create(ctx, "recall")
	if err != nil {
		panic(err)
	}
	defer w.Abort()
	w.WriteHeader(jsonl.Header{Count: 2, Timestamp: "2026-11-21T13:00:00.000Z"})
	w.WriteRecord([]byte(`{"id":"m1"}`))
	w.WriteRecord([]byte(`{"id":"m2"}`))
	if err := w.Commit(); err != nil {
		panic(err)
	}
	handle := filepath.Base(w.Path())

	reader, _ := store.NewBucket(blobstore.New(bucket), opts) // another replica
	r, _, err := reader.NewRangeReader(ctx, handle, 0, -1)
	if err != nil {
		panic(err)
	}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fmt.Println(sc.Text())
	}
	r.Close()

	forged := handle[:len(handle)-32-len(".jsonl")] + "00000000000000000000000000000000.jsonl"
	_, _, err = reader.NewRangeReader(ctx, forged, 0, -1)
	fmt.Println("another random part, unknown:", errors.Is(err, store.ErrUnknownHandle))
	_, _, err = reader.NewRangeReader(ctx, "../"+handle, 0, -1)
	fmt.Println("a path, unknown:", errors.Is(err, store.ErrUnknownHandle))
	// Output:
	// {"type":"lro_header","operation":"recall","query":null,"count":2,"schema_version":"","timestamp":"2026-11-21T13:00:00.000Z","estimated_tokens":0,"detail":""}
	// {"id":"m1"}
	// {"id":"m2"}
	// another random part, unknown: true
	// a path, unknown: true
}
