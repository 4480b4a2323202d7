package blobstore_test

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	_ "gocloud.dev/blob/memblob" // the driver of mem://; s3blob for s3://

	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro/store"
	_ "github.com/zircote/lro-go/lro/store/blobstore" // bucket URLs for store.Open
)

// With blobstore and a driver imported, store.Open takes a bucket URL.
func Example() {
	ctx := context.Background()
	st, err := store.Open(ctx, "mem://", nil)
	if err != nil {
		panic(err)
	}
	defer st.Close()
	w, err := st.Create(ctx, "recall")
	if err != nil {
		panic(err)
	}
	defer w.Abort()
	w.WriteHeader(jsonl.Header{Count: 1, Timestamp: "2026-11-21T13:00:00.000Z"})
	w.WriteRecord([]byte(`{"id":"m1"}`))
	if err := w.Commit(); err != nil {
		panic(err)
	}
	r, _, err := st.NewRangeReader(ctx, filepath.Base(w.Path()), r0(w), -1) // the records, after the header line
	if err != nil {
		panic(err)
	}
	defer r.Close()
	records, _ := io.ReadAll(r)
	fmt.Printf("%s", records)
	_, err = store.Open(ctx, "gs://bucket", nil)
	fmt.Println(err)
	// Output:
	// {"id":"m1"}
	// store: bucket URL gs://bucket: no driver registered for "gs" (add import _ "gocloud.dev/blob/gcsblob" to the program)
}

// r0 returns the offset of the first record: the file's size less the one
// record line.
func r0(w *jsonl.Writer) int64 { return w.Size() - int64(len(`{"id":"m1"}`)+1) }
