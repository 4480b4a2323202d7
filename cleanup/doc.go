// Package cleanup deletes offloaded JSONL files once their time to live has
// passed: the custodial task the specification calls offload_cleanup.
//
// A [Janitor] scans one folder (or, with [Options.Bucket], one bucket) for
// the files that package [github.com/zircote/lro-go/jsonl] writes,
// {prefix}-{operation}-{ulid}.jsonl, and deletes each one whose created_at +
// TTL is at or before now, created_at being the time of the ULID in its
// name: a sweep opens no offload file. A file whose recorded expiry is
// later is kept until then. It also deletes the hidden temporary files
// (.{name}.jsonl.tmp) that a dead process left behind.
// [Options.OnExpired] is called once per deleted file.
//
// A sweep removes only regular files directly in the folder with the
// janitor's prefix, through an [os.Root]: never a symlink, a subfolder or
// an entry of another prefix. A file that vanishes meanwhile (another
// janitor took it) is not an error, so each deletion is reported once
// however many janitors sweep.
//
// A Janitor sweeps when [Janitor.Sweep] is called, at the time it is given;
// it starts no goroutine. In a server built with package
// [github.com/zircote/lro-go/lro], the first offload starts the automatic
// janitor, which sweeps with a Janitor of this package at once and at each
// expiry, and its Observer receives an event.FileExpired per deleted file.
// A program of its own schedules Sweep itself: [Result.NextExpiry] tells
// when the next file kept is due (see the examples of Janitor.Sweep).
//
// docs/cleanup.md in the repository gives the details: the locks of
// temporary files, recorded expiries (a file's mode 0400 and modification
// time, a bucket object's metadata), the margin of one minute for the
// clocks of a bucket's replicas, and lifecycle rules.
package cleanup
