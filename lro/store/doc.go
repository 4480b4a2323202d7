// Package store keeps offloaded files where the replicas of a server can
// read them back by handle: in a local folder, as package jsonl writes
// them, or in a bucket (of gocloud.dev/blob: S3 and S3-compatible servers,
// GCS, Azure Blob Storage, ...), which every replica reads alike.
// docs/replicas.md tells the whole story: what a failed write leaves, the
// circuit breaker, expiry and cost.
//
// # Handles
//
// Every file a [Store] writes is named
//
//	{prefix}-{operation}-{ulid}-{random}.jsonl
//
// where the ULID carries the creation time and random is 128 bits from
// crypto/rand. That name is the file's handle: opaque to a client, which
// cannot guess another one, and enough for any replica to find the object.
// A handle is valid until the later of its created_at + TTL and the expiry
// recorded with its file; [Store.NewRangeReader] then returns an error
// wrapping [ErrExpiredHandle], and one wrapping [ErrUnknownHandle] for a
// handle that is malformed or names no object. Their messages are meant for
// a model, as tool errors.
//
// # Writing
//
// [Store.Create] returns a [jsonl.Writer] for both kinds of store. Nothing
// is visible until [jsonl.Writer.Commit] returns nil. A write to a bucket
// is bounded by [Options.WriteTimeout], a bucket that keeps failing is not
// tried for a while, and the key of a failed upload is deleted in the
// background, in case the server completes it anyway. Apart from that, a
// store deletes nothing: the janitor of package
// [github.com/zircote/lro-go/cleanup] sweeps a folder ([Store.Dir]) or a
// bucket ([Store.Bucket]), or a bucket lifecycle rule does.
//
// # Buckets
//
// A Store reaches a bucket through the small [Bucket] interface, so that a
// program that keeps its files in a folder does not link gocloud.dev/blob.
// Package [github.com/zircote/lro-go/lro/store/blobstore] adapts a bucket
// of gocloud.dev/blob and, once imported, lets [Open] open bucket URLs such
// as
//
//	s3://bucket?endpoint=http://127.0.0.1:7070&region=us-east-1&use_path_style=true
//	gs://bucket
//	file:///var/lib/lro
//
// whose driver the program imports too, such as
// import _ "gocloud.dev/blob/s3blob" (Open names the import when one is
// missing). A "prefix" parameter (s3://bucket?prefix=lro/) keeps the
// objects under a key prefix.
package store
