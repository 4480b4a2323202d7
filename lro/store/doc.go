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
// (see [jsonl.Options.Random]): the ULID carries the creation time and
// random is 128 bits from crypto/rand. That name is the file's handle,
// [jsonl.Writer.Name]: opaque to a client, which cannot guess another one,
// and enough for any replica to find the object without shared state, since
// it is the object's key (or the file's name in the folder). A handle is
// valid for the TTL: [Store.NewReader] returns an error wrapping
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
// closing it, which leaves no object.
//
// Memory stays flat in the record count: the jsonl Writer buffers 64 KiB,
// and a bucket's writer what its driver needs (for S3 through package
// blobstore, at most about 26 MiB per write whatever its size; see there).
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
// # Expiry
//
// A store deletes nothing. The janitor of package
// [github.com/zircote/lro-go/cleanup] sweeps a folder ([Store.Dir]) or a
// bucket ([Store.Bucket], a [cleanup.Bucket]) by the ULID time of the
// names; a bucket lifecycle rule is the alternative (see the package
// documentation of cleanup).
//
// This package does not import package lro; lro builds on it.
package store
