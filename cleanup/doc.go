// Package cleanup deletes offloaded JSONL files once their time to live has
// passed: the custodial task the specification calls offload_cleanup.
//
// Offloaded files are ephemeral. A [Janitor] scans one output folder for the
// files that package [github.com/zircote/lro-go/jsonl] writes there,
// {prefix}-{operation}-{ulid}.jsonl, deletes each one whose created_at + TTL
// is at or before now (a file created at 12:00:00.000 with a one-hour TTL is
// deleted by any sweep at 13:00:00.000 or later), and emits one
// [event.FileExpired] per deleted file through an [event.Observer]. It also
// deletes the hidden temporary files (.{name}.jsonl.tmp) that a process
// interrupted while writing leaves behind, with
// [event.FileExpired.Temporary] set; see below.
//
// # Temporary files
//
// A temporary file belongs to its [github.com/zircote/lro-go/jsonl.Writer] until the write ends, however
// long that takes and however short the TTL: only the leftovers of a dead
// process are swept. On systems with flock(2) (Linux, macOS, the BSDs,
// illumos) the Writer holds an exclusive flock lock on its temporary file
// from just after creating it until it has renamed or removed it, and the
// system releases the lock of a process that dies. A sweep therefore deletes
// a temporary file only when its created_at + TTL has passed and it can take
// that lock without waiting: it opens the file (non-blocking, and only if it
// is still the regular file it listed), tries flock(LOCK_EX|LOCK_NB), leaves
// the file alone if that would block ([Result.InUse]), and otherwise removes
// it by name while it holds the lock. A Writer that gets its lock only after
// a sweep removed its brand-new file (the one moment it is unlocked) notices
// and starts again under a new name. The rule holds between processes of one
// machine on a local file system. It does not on a network file system that
// implements flock with POSIX record locks (NFS on Linux does), where locks
// taken in the same process do not conflict; a folder shared by several
// machines should not rely on it either.
//
// Where no lock can tell (systems without flock(2), such as Windows, and file
// systems that refuse locks), only age decides: a temporary file is deleted
// once created_at + TTL + 24 hours has passed, which no write takes.
//
// # Lifecycle
//
// [Start] validates the [Options] and returns a Janitor that sweeps right
// away and then every [Options.Interval] (default one
// hour) in a single goroutine, until the context given to Start is canceled
// or [Janitor.Close] is called. Close is idempotent and returns only after
// the goroutine has finished, so no background sweep runs and none emits an
// event once it has returned. In a server built with package
// [github.com/zircote/lro-go/lro], the first offload to a folder or store
// starts a sweeper built on this package; lro.StartJanitor, optional,
// starts a Janitor of the same folder, prefix and TTL that also sweeps at
// start.
//
// A server that runs its own scheduler gets a Janitor from [New], which
// starts nothing, and calls [Janitor.Sweep] instead, with the current time
// as a parameter (like AllowN(t, n) of golang.org/x/time/rate), which also
// makes tests need no fake clock. The
// [Result] of a sweep counts what it did and gives [Result.NextExpiry], when
// the next file it kept becomes due.
//
// # Where created_at comes from
//
// The janitor reads the creation time from the ULID in the file name and
// never opens an offload file. The ULID's 48-bit time is stamped by [github.com/zircote/lro-go/jsonl.Create] from
// the same clock as the rest of the offload, at the moment the file is
// created, and is fixed for the file's life. The alternatives are worse: the
// modification time is the end of the write, not its start, and changes with
// touch, copies and backups restored; the header's timestamp is the same
// instant as the ULID but costs an open and a read per file, does not exist
// in a temporary file that crashed before its header reached the disk, and
// opening files is what a janitor must not do to entries it does not own (a
// FIFO named like an offload file would block a blocking open forever). From
// names alone, a sweep costs one directory listing plus, for each expired
// file only, one lstat and one unlink, and for each expired temporary file
// an open, a lock attempt and a second lstat besides. The ULID time has
// millisecond precision: created_at is the creation instant rounded down to
// the millisecond, so a file may be deleted up to one millisecond before
// created_at + TTL measured in nanoseconds.
//
// # Recorded expiry
//
// The offloader of package [github.com/zircote/lro-go/lro] records with
// each complete file when it expires, counted from the end of its write
// with its own TTL: in a folder, as the file's modification time, marked by
// the file's mode, 0400 (read-only for its owner), which it sets after the
// time; in a bucket, as the object's metadata "lro-expires" (package
// [github.com/zircote/lro-go/lro/store]: there, from the write's deadline,
// which its end cannot be after). A sweep deletes a file once both its
// created_at + TTL and its recorded expiry have passed. So a janitor never
// deletes a file before the expiry recorded with it (one written with a
// longer TTL, by another replica or process, or one whose write took
// longer than the TTL), and a file without one (written before expiries
// were recorded, by [github.com/zircote/lro-go/jsonl.Create] alone, or one whose mode was changed) is
// deleted by the janitor's TTL as before. A file with a shorter recorded
// expiry than the janitor's TTL lives until the janitor's TTL has passed:
// a janitor of the shortest TTL in use deletes it on time. The recorded
// expiry is read only for files past the janitor's own TTL: the lstat a
// removal does anyway in a folder, one metadata request (HEAD) per such
// object in a bucket. Between the rename of a file and the recording (one
// chmod later) the file has only its name's time; an offload whose file a
// janitor deleted in that moment falls back.
//
// # What is never touched
//
// A sweep removes only regular files directly in the folder whose names
// are {prefix}-{operation}-{ulid}.jsonl (or with a random part, as a store
// names them) for the janitor's prefix, and the temporary files
// of such names. It leaves alone every other name (including files of another
// prefix, even one that extends this prefix, such as
// "atlatl-x-recall-….jsonl" for prefix "atlatl"), subfolders and their
// contents (it does not recurse), other folders, and every entry that is not
// a regular file: a symlink is neither followed nor removed, even one named
// like an expired offload file, and neither are folders, FIFOs, sockets or
// devices so named. A file that disappears between the listing and its
// removal (because another sweep, in this process or another, or a user
// removed it first) is not an error and emits no event, so each deleted file
// is reported exactly once however many janitors sweep the folder.
//
// Each sweep opens the folder with [os.OpenRoot] and lists, inspects and
// removes entries through that handle, by single names, so it cannot be
// redirected out of the folder: if the folder path is replaced by a symlink
// while a sweep runs, the sweep still works in the folder it opened. The
// folder path itself may be a symlink to a folder (such as /tmp on macOS); it
// is followed once, when each sweep opens it. One race remains, as with any
// unlink: if a regular file is replaced by a symlink or an empty folder of the
// same name between the janitor's lstat and its unlink, that link or empty
// folder is removed instead. The removal never reaches the link's target or
// anything outside the folder.
//
// A folder that does not exist is not an error: there is nothing to sweep
// until the first file is offloaded. Errors reading the folder, removing a
// file or opening an expired temporary file (one of another user, say, which
// is then kept: its lock cannot be tried) are returned by [Janitor.Sweep],
// joined, and given to [Options.OnError] in background sweeps; the sweep goes
// on with the next file after one it could not remove.
//
// # Buckets
//
// With [Options.Bucket] a Janitor sweeps a bucket (of gocloud.dev/blob: S3,
// GCS, Azure, ...) instead of a folder: the bucket that
// several replicas of a server share through package
// [github.com/zircote/lro-go/lro/store]. A sweep lists the keys that start
// with the prefix and a '-' (for S3, one request per thousand keys; it does
// not descend into keys with a '/' after the prefix), reads created_at from the ULID of each key that
// is named so, and deletes the objects whose created_at + TTL
// and recorded expiry, each plus a margin of one minute, are at or before
// now; it
// never reads an object. Objects of
// another prefix, other keys and fresh objects are never deleted.
//
// Every replica may sweep at once. The margin keeps an object as long as
// any machine whose clock is within that minute of the sweeper's holds it
// to be within its TTL (a store refuses a handle from created_at + TTL on,
// by its own clock). A delete of an object that another sweep deleted first
// is not an error ([Result.Vanished]). Where the bucket's delete is not
// atomic (S3's DeleteObject succeeds on a missing key, so the driver checks
// first), two sweeps racing for one object may both report it. A bucket has
// no temporary objects: a blob writer shows an object only once it is
// whole. A writer that died in the middle of a multipart upload leaves
// invisible parts, which only the bucket can expire.
//
// The alternative to sweeping is a lifecycle rule of the bucket, which
// deletes by age with no process running: on S3, an expiration rule on the
// prefix, plus the removal of incomplete multipart uploads, which a sweep
// cannot see (recommended in any case):
//
//	{"Rules": [{"ID": "lro-offload", "Status": "Enabled",
//	  "Filter": {"Prefix": "atlatl-"},
//	  "Expiration": {"Days": 1},
//	  "AbortIncompleteMultipartUpload": {"DaysAfterInitiation": 1}}]}
//
// (aws s3api put-bucket-lifecycle-configuration --bucket B
// --lifecycle-configuration file://rule.json). Lifecycle rules count whole
// days, so they suit a TTL of a day or more, or serve as a backstop behind
// a janitor: the store refuses an expired handle by itself, whenever the
// object is deleted.
//
// # Concurrency
//
// A [Janitor] is safe for concurrent use: Sweep may be called from several
// goroutines, during background sweeps and after Close. The Observer and
// OnError are called synchronously by the goroutine that sweeps and must not
// call Close on the same Janitor.
//
// This package does not import package lro; lro builds on it.
package cleanup
