// Package extract provides native MCP tools that query offloaded results,
// so that clients without a shell can use Large Result Offloading:
//
//   - lro_extract runs one of the descriptor's 10 jq recipes by number, a
//     jq filter of the caller's, or a filter without jq (where), over the
//     records of an offloaded file, with github.com/itchyny/gojq (the
//     specification's lro_extract);
//   - lro_read reads a range of lines, and a range of characters of each,
//     so that even a record of many megabytes can be read in pieces;
//   - lro_search returns the records with a value that matches a regular
//     expression (RE2), with their line numbers.
//
// [AddTools] registers the three tools on a server; the program must call
// [RunWorker] first in main. Set lro.Options.ExtractTools on the offloading
// tools of that server, so that their descriptors' guidance points to
// lro_extract (the specification's native-tool template). The handlers are
// safe for concurrent use; each call has its own limits.
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
// recipe of the generic library chooses, such as number and title). A where
// filter runs as a jq program of this package whose text is fixed: paths
// and values reach it as values of jq variables, never as program text.
//
// # Stores and the sandbox
//
// With a Store (lro.Options.Store of [Options.LRO]), the tools read the
// files of the decorator's store (package
// [github.com/zircote/lro-go/lro/store]): a folder, or a bucket
// that every replica of a server reads alike, with one GET of at most
// MaxInputBytes + 1 bytes per call. The store checks a handle before
// anything is read: an unknown, malformed or expired one is a tool error
// that says which. A file_path whose base name is a handle names that
// handle; a bucket's file_path (where a client keeps a downloaded copy) is
// a tool error that asks for the handle. The tools' descriptions say how
// long a result is kept. A GET that fails or ends early
// fails the call, so that a cut object never passes for a whole one.
// [AddTools] also registers the resource template lro://results/{handle},
// whose resources/read returns the result whole, as application/jsonl
// text, if it is, as go-sdk encodes it, at most MaxOutputBytes and a 32nd
// of MaxMemoryBytes, less 64 KiB (16 MiB less 64 KiB by default): go-sdk
// holds several copies of the encoded text while it sends it. An unknown
// or expired handle is the protocol's resource-not-found error. lro_extract
// writes its answers above the threshold to the Store, so that they have
// handles in turn.
//
// Without a Store, the tools read only files named like offloaded files
// ({prefix}-{operation}-{ULID}.jsonl) directly in the output folder, named
// by an absolute path in the folder or a bare file name (with a folder
// Store, only its handles), and open them through an [os.Root] on the
// folder: relative paths with a folder in them, "..", symbolic links (also
// one swapped in between the check and the opening), NUL bytes, folders and
// files with more than one hard link are refused with a tool error that
// says why.
//
// # Bounds
//
// lro_extract and lro_search evaluate each call in a worker process, the
// host program started again, which [RunWorker] hands over to: the server
// checks the file and passes it open (or a pipe that carries a bucket's
// object) to the worker, which limits itself before it reads a record. This
// bounds what no check inside the process could: a single step of gojq or
// of a regular expression that runs for minutes in native code or allocates
// gigabytes at once, a recursion without end, a stack overflow. Each call
// is bounded by [Options]: Timeout covers all the server does for it (the
// server kills the worker then, or when the call is cancelled; the worker
// also has an RLIMIT_CPU of Timeout plus one second and, on Linux, dies
// with the server); MaxMemoryBytes bounds worker and server together (see
// there); at most Workers calls of lro_extract and lro_search, and reads of
// lro://results/{handle}, run at once over all sessions; MaxResults and
// MaxOutputBytes bound what a call returns, MaxInputBytes and
// MaxRecordBytes what it reads. Each limit stops the call with a tool error
// that names it, and the server answers the next call normally.
//
// lro_read runs in the server, outside the Workers slots: it reads a line
// in pieces, checks the time limit between them and holds at most what the
// threshold lets it show of a line (16 characters a token), whatever
// max_chars. Queries run with an empty environment (env and $ENV are
// empty), and the functions of the jq command that reach outside
// (input_filename, debug, stderr, import and include) are not defined. On
// systems other than unix systems a worker cannot be given the open file,
// and every call of lro_extract and lro_search fails with a tool error.
//
// # Answers
//
// An lro_extract result above the threshold is written to a new offloaded
// file and the answer is that file's descriptor, so a large extraction is
// never cut silently and can be queried further; if that write fails, the
// result is cut to the whole results that fit, with a warning. lro_read and
// lro_search show what fits and say where to continue.
//
// lro_extract prints one result per line: compact JSON (jq -c), with the
// keys of objects sorted, except that a record passed through unchanged is
// printed exactly as the file holds it; string results of a raw recipe, or
// of a query with raw=true, are printed as plain text (jq -r). Regular
// expressions are RE2, not Oniguruma: look-arounds and backreferences are
// not available. Recipes that read a few fields of each record decode only
// those fields, and select recipes skip, undecoded, the records whose line
// cannot match, with the same results, counts and errors (plan.go says
// why); a caller's query always runs on whole records.
package extract
