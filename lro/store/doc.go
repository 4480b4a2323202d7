// Package store keeps offloaded files where the replicas of a server can
// read them back by handle: in a local folder, as package jsonl writes
// them, or in a bucket (of gocloud.dev/blob: S3 and S3-compatible servers,
// GCS, Azure Blob Storage, ...), which every replica reads alike.
// docs/replicas.md tells the whole story: handles, what a failed write
// leaves, the circuit breaker, expiry and cost.
//
// Every file a [Store] writes is named {prefix}-{operation}-{ulid}-{random}.jsonl,
// where random is 128 bits from crypto/rand. That name is the file's handle:
// opaque to a client, which cannot guess another one, and enough for any
// replica to find the object. [Store.Create] writes a file and
// [Store.NewRangeReader] reads it back; a store deletes nothing but a
// failed upload: the janitor of package [github.com/zircote/lro-go/cleanup]
// sweeps a folder ([Store.Dir]) or a bucket ([Store.Bucket]).
//
// [Open] returns a Store in a folder, given its path, or in a bucket, given
// its URL; [NewBucket] one in a bucket the program opened itself. A Store
// reaches a bucket through the small [Bucket] interface, so that a program
// that keeps its files in a folder does not link gocloud.dev/blob.
// Package [github.com/zircote/lro-go/lro/store/blobstore] adapts a bucket
// of gocloud.dev/blob and, once imported, lets [Open] open bucket URLs such
// as s3://bucket?region=us-east-1 (with the driver's import, such as
// import _ "gocloud.dev/blob/s3blob"; Open names it when it is missing). A
// "prefix" parameter (s3://bucket?prefix=lro/) keeps the objects under a
// key prefix.
package store
