// Package extract provides native MCP tools that query offloaded results,
// so that clients without a shell can use Large Result Offloading:
//
//   - lro_extract runs one of the descriptor's 10 jq recipes by number, a
//     jq filter of the caller's, or a filter without jq (where), over the
//     records of an offloaded file, with github.com/itchyny/gojq (the
//     specification's lro_extract);
//   - lro_read reads a range of lines, and a range of characters of each, so
//     that even a record of many megabytes on one line can be read in pieces;
//   - lro_search returns the records with a value that matches a regular
//     expression (RE2), with their line numbers.
//
// [AddTools] registers the three tools on a server. Set
// lro.Options.ExtractTools on the offloading tools of that server, so that
// their descriptors' guidance points to lro_extract (the specification's
// native-tool template). The tools' handlers are safe for concurrent use;
// each call has its own limits.
//
// # One source of truth for recipes
//
// Recipe N of lro_extract is recipe N of the file's descriptor: both are
// [github.com/zircote/lro-go/recipes.Select] over the header's detail level and the first records of
// the file (the same number for both), and lro_extract runs the
// recipe's own filter with its flags and its parameters bound as jq
// variables ([github.com/zircote/lro-go/recipes.Recipe.Args]), as the descriptor's shell command does
// with jq. Caller
// parameters are variable values, never program text.
//
// # Filters without jq
//
// The where argument of lro_extract is a filter a model fills like any
// other argument: an object of conditions on fields, all of which must
// hold. A key names a field, or a path of fields joined by dots
// (provenance.confidence; a dot always separates, so a field whose name
// has a dot is reached with a query). Its value is a value the field must
// equal, or an object of operators: eq, prefix, contains (a substring,
// ignoring case), matches (RE2), gt, gte, lt and lte (a number or a string,
// compared only with values of the same type) and in (an array of values).
// A condition on an array holds when the array, or any of its elements,
// meets it: {"tags": "cache"}, {"labels.name": "bug"}. A missing field is
// null. count=true gives only the number of matching records; fields
// shows only some fields of each, by path. Without fields, matching records
// that do not fit inline are offloaded, and the answer leads with their
// number and the fields that identify the first ten (those the listing
// recipe of the generic library chooses, such as number and title).
//
// A where filter runs as one of three jq programs of this package, whose
// text is fixed: the paths and values reach them as the values of jq
// variables, never as program text, so that no name or value can change
// what runs. It runs like a query, in a worker, under the same limits.
//
// # Naming a result
//
// A call names its result by handle or by file_path, exactly one of them:
// the descriptor's handle (given when the decorator writes to a store) or
// its file_path. Without [Options.Store], a handle is the bare name of a
// file in the output folder.
//
// # Stores
//
// With [Options.Store], the tools read the files of the decorator's store
// (package [github.com/zircote/lro-go/lro/store]): a folder, or a bucket
// (S3 and S3-compatible servers, GCS, Azure, ...) that every replica of a
// server behind a load balancer reads alike. A handle is checked by the
// store before anything is read: one that is malformed or names no result
// is a tool error saying the handle is unknown, and one past its TTL a
// tool error saying it expired and when, even if its file is still there.
// A file_path whose base name is a handle names that handle too, as a
// folder store's file_path does. A bucket is not the client's disk: its
// descriptor's file_path is where a client that downloads the result keeps
// it, named without the handle's random part, and given to the tools it is
// a tool error that says to give the handle. A folder store is read like
// the output folder below, and only its handles are read in it. With a
// Store, the tools' descriptions say how long a result is kept.
//
// An object of a bucket is read with one GET of at most MaxInputBytes + 1
// bytes. lro_read reads it in the server and ends the GET once it has its
// lines. For lro_extract and lro_search the server reads the header, then
// streams the object (header included, from the same GET) to the worker
// through a pipe, which the worker reads under the same limits as a file.
// A GET that fails, or ends before the object does, fails the call: the
// worker is stopped before it could take a cut object for a whole one.
// The call's time limit covers the GET (a stalled store stops the call at
// its time limit), and the server holds at most the header line and
// 160 KiB of buffers of the object per call.
//
// With a Store, [AddTools] also registers the resource template
// lro://results/{handle} (the resource_link of each descriptor), whose
// resources/read returns the result whole, as text of type
// application/jsonl, if it is, as go-sdk encodes it, at most MaxOutputBytes
// and a 32nd of MaxMemoryBytes, less 64 KiB (16 MiB less 64 KiB by
// default), within the time limit of a call; an unknown or expired handle is the protocol's
// resource-not-found error, with the store's message. lro_extract writes
// its answers above the threshold to the Store too, so that they have
// handles in turn.
//
// # Sandbox
//
// Without a Store, the tools read only files named like offloaded files
// ({prefix}-{operation}-{ULID}.jsonl) directly in the output folder (with
// a folder Store, only its handles): the path is checked by name (an
// absolute path in the folder, or a bare file name, read as a file of the
// folder) and the file is opened through an [os.Root] on the folder, so
// relative paths with a folder in them, "..", symbolic links (also one
// swapped in between the check and the opening), NUL bytes and folders are
// refused with a tool error that says why; so is a file with more than one
// hard link (a link in the folder to a file elsewhere).
//
// # Bounds
//
// lro_extract and lro_search evaluate each call in a worker process: the
// host program started again, which [RunWorker], called first in main,
// hands over to (the program must call it: [AddTools] fails with
// [ErrNoWorker] otherwise). The server opens and checks the file and
// passes the open file (or a pipe that carries the object of a bucket) to
// the worker with the parsed arguments and the call's limits; the worker limits itself before it reads a record, and
// sends the answer back. This bounds what no check inside the process
// could: a single step of gojq or of a regular expression that runs for
// minutes in native code ("x" * 2e8 | split(""), match("";"g") over a
// long string, del on a value that shares its parts, a regular expression
// with large counted repetitions over a 15 MB string) or allocates
// gigabytes at once ("xx" * 1e9, .[536870911] = 1), a recursion that
// builds a value without end, a stack overflow. Each call is bounded by
// [Options]:
//
//   - time: the call's Timeout covers all the server does for it, from
//     its arguments to its answer. The server kills the worker when it
//     passes or when the call is cancelled, so the call ends within its time
//     limit (plus the time to kill and reap a process) and its work stops at
//     once; the worker also has an RLIMIT_CPU of Timeout plus one second, and
//     on Linux dies with the server (the goroutine that starts a worker stays
//     on its thread until the worker has ended, as the parent-death signal
//     follows the thread);
//   - memory: MaxMemoryBytes bounds one call, worker and server together.
//     The worker may take all of it but twice MaxOutputBytes, which the
//     server keeps for reading the worker's answer: on Linux as address
//     space beyond what it has at start (RLIMIT_AS; it holds about 12 MiB
//     then), which bounds its heap and stacks, and with a Go memory limit
//     (GOMEMLIMIT) of three quarters of it, so that the collector works hard
//     before the kernel's limit; on other systems only the latter, a soft
//     limit, applies.
//     Once the worker has ended, the server builds the answer (at most
//     MaxOutputBytes, an eighth of MaxMemoryBytes at most) within
//     MaxMemoryBytes. A worker uses one processor (GOMAXPROCS=1);
//   - at most Workers calls of lro_extract and lro_search, and reads of
//     lro://results/{handle}, run at once, for all sessions: a call holds
//     one of the Workers slots from its start to its answer, and a call that
//     finds none free waits within its time limit. So they use at most
//     Workers x (MaxMemoryBytes + about 12 MiB) in all;
//   - output: MaxResults and MaxOutputBytes bound what one call returns,
//     MaxInputBytes and MaxRecordBytes what it reads.
//
// Each limit stops the call with a tool error that names it, and the
// server answers the next call normally. lro_read runs in the server,
// outside the Workers slots: it reads one line at a time in pieces of
// 64 KiB, checks the time limit between them and holds at most what the
// threshold lets it show of a line (16 characters a token), whatever
// max_chars. A read of lro://results/{handle} holds its slot until go-sdk,
// which encodes the answer after the handler returns, has dropped the
// object (the slot comes back when the object is collected, or after a
// minute at the most): that encoding takes three or four copies of the
// encoded text (where <, > and & take six bytes), hence the 32nd of
// MaxMemoryBytes.
//
// Queries run with an empty environment (env and $ENV are empty), and the
// functions of the jq command that reach outside (input_filename, debug,
// stderr, import and include) are not defined. On systems other than unix
// systems a worker cannot be given the open file, and every call of
// lro_extract and lro_search fails with a tool error.
//
// # Large answers
//
// An lro_extract result above the threshold is not shown inline: it is
// written to a new offloaded file and the answer is that file's descriptor,
// so a large extraction is never cut silently and can be queried further.
// If that write fails, the result is cut to the whole results that fit, with
// a warning. lro_read and lro_search show what fits and say where to
// continue.
//
// # Speed
//
// Recipes run on less than whole records where their filter allows it, with
// the same results, counts and errors (plan.go says why for each filter), so
// that less is decoded into gojq's values: the recipes that read a few fields
// of each record (memory recipes 1, 4 and 6, and 9 and 10 at the light and
// medium detail levels) decode only those fields, and the select recipes
// (memory recipes 2, 3, 5 and 7, 10 at full detail, and the keyword searches
// of the generic libraries) count without decoding them the records that are
// valid JSON objects whose line, free of backslashes, lacks the parameter's
// text. A caller's query always runs on whole records.
//
// # Output
//
// lro_extract prints one result per line: compact JSON (jq -c), with the
// keys of objects sorted (gojq keeps no key order), except that a record
// passed through unchanged is printed exactly as the file holds it; string
// results of a raw recipe, or of a query with raw=true, are printed as plain
// text (jq -r). Regular expressions in recipes and queries are RE2, not
// Oniguruma: look-arounds and backreferences are not available.
package extract
