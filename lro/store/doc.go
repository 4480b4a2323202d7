// Package store keeps offloaded files where the replicas of a server can
// read them back by handle: in a local folder, as package jsonl writes
// them, or in a bucket (of gocloud.dev/blob: S3 and S3-compatible servers,
// GCS, Azure Blob Storage, ...), which every replica behind a load balancer
// reads alike.
//
// # Handles
//
// Every file a [Store] writes is named
//
//	{prefix}-{operation}-{ulid}-{random}.jsonl
//
// where the ULID carries the creation time and
// random is 128 bits from crypto/rand. That name is the file's handle,
// the Writer's Name: opaque to a client, which cannot guess another one,
// and enough for any replica to find the object without shared state, since
// it is the object's key (or the file's name in the folder). A handle is
// valid for the TTL: [Store.NewRangeReader] returns an error wrapping
// [ErrExpiredHandle] once created_at + TTL is at or before now, even if the
// object still exists, and one wrapping [ErrUnknownHandle] for a handle that
// is malformed (a path, another prefix, a name without its random part) or
// names no object. The messages say which, to be shown to a model as the
// tool error the specification asks for.
//
// # Writing
//
// [Store.Create] returns a [jsonl.Writer]: the same writer, header first,
// records validated and counted, for both kinds of store. Nothing is visible
// until [jsonl.Writer.Commit] returns nil: in a folder, the hidden temporary
// file is renamed; in a bucket, the object's writer is closed, which is when
// the object appears, whole (an S3 PutObject, or a multipart upload's
// completion). [jsonl.Writer.Abort] cancels the writer's context before
// closing it, which completes no upload on the client's side; see
// "Failures" for what a server may still complete.
//
// Memory stays flat in the record count: the jsonl Writer buffers 64 KiB,
// and a bucket's writer what its driver needs (for S3 through package
// blobstore, a bound per write whatever its size; see there).
//
// # Buckets
//
// A Store reads and writes a bucket through the small [Bucket] interface,
// so that this package does not import gocloud.dev/blob: a program that
// keeps its files in a folder does not link it. Package
// [github.com/zircote/lro-go/lro/store/blobstore] adapts a bucket of
// gocloud.dev/blob, and, once imported, lets [Open] open bucket URLs such
// as
//
//	s3://bucket?endpoint=http://127.0.0.1:7070&region=us-east-1&use_path_style=true
//	gs://bucket
//	azblob://container
//	file:///var/lib/lro
//	mem://
//
// whose driver the program registers with a blank import too, such as
// import _ "gocloud.dev/blob/s3blob". Open names the import when one is
// missing. A "prefix" parameter (s3://bucket?prefix=lro/) keeps the objects
// under a key prefix. Credentials come from the driver's usual sources (for
// S3, the AWS environment variables, shared files or instance roles).
//
// # Failures
//
// A write to a bucket has a deadline, [Options.WriteTimeout] (default 30
// seconds), from [Store.Create] to the end of Commit: a write
// to a bucket that stalls, or whose driver keeps retrying (the AWS SDK
// tries each request three times, with pauses of up to 20 seconds; the
// variable AWS_MAX_ATTEMPTS or max_attempts in the shared configuration
// lowers that), is aborted then, and an offload falls back to its inline
// result. A folder's writes have no deadline.
//
// After three failed writes in a row, the Store stops trying the bucket
// for 5 seconds: Create fails at once (so an offload falls back at once),
// and [Options.Observer] receives one [event.StoreUnavailable] saying until
// when. Then one write tries the bucket while the others still fail at
// once: if it succeeds, writes go on as before; if it fails, the bucket is
// not tried again for twice as long (up to 2 minutes), with another event.
// A write that its caller canceled does not count, either way. Times are
// the Store's clock.
//
// A write that failed or was canceled completes no upload, but a server
// may complete one that it had received whole: S3 completes a PutObject
// whose body it has read, even for a client that gave up waiting for its
// answer (as from a server that stalled and resumed). So the Store
// deletes the key of every failed or canceled upload, in the background
// (the call does not wait): at once, then again after 1, 2, 4, 8, 16 and
// then every 30 seconds, until a delete finds the object, for at most 2
// minutes from the failure, each delete for at most 10 seconds;
// [Store.Close] stops those still under way. What is left: an object that
// the server completes after that (a stall of over 2 minutes, or one
// outlasting Close), until the janitor deletes it once its TTL has passed
// (or a lifecycle rule does); nobody was given its handle. The parts of
// an incomplete multipart upload (a write over 16 MiB to S3) are
// invisible and never swept: only the bucket's
// AbortIncompleteMultipartUpload lifecycle rule removes them (see package
// cleanup). A folder's failed write leaves nothing: its temporary file is
// removed (and a crashed process's, by the janitor).
//
// # Expiry
//
// Each file records when it expires, counted from when it is complete, so
// that a write slower than the TTL is not handed out expired and stores of
// different TTLs share a folder or bucket: a bucket's object in its
// metadata ("lro-expires", as S3's x-amz-meta-lro-expires), written with
// the upload, so counted from the write's deadline ([Options.WriteTimeout]
// after Create), which its completion cannot be after: TTL + WriteTimeout
// after Create at most; a folder's file, written by the offloader of
// package lro, as its modification time, set when it is complete (see
// package cleanup, "Recorded expiry"; a file written with Create alone
// records none). A handle is valid until the later of its created_at +
// TTL and its recorded expiry, which is read only once the former has
// passed (an lstat in a folder, one HEAD in a bucket).
//
// A store deletes nothing. The janitor of package
// [github.com/zircote/lro-go/cleanup] sweeps a folder ([Store.Dir]) or a
// bucket ([Store.Bucket]) by the ULID time of the
// names and the recorded expiries; a bucket lifecycle rule is the
// alternative (see the package documentation of cleanup).
//
// This package does not import package lro; lro builds on it.
package store
