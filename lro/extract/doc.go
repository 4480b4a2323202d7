// Package extract provides native MCP tools that query offloaded results,
// so that clients without a shell can use Large Result Offloading:
//
//   - lro_extract runs one of the descriptor's 10 jq recipes by number, or a
//     jq filter of the caller's, over the records of an offloaded file, with
//     github.com/itchyny/gojq in process (the specification's lro_extract);
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
// [recipes.Select] over the header's detail level and the first records of
// the file (the same number for both), and lro_extract runs the
// recipe's own Filter with its Slurp and Raw flags and its parameters bound
// as jq variables, as the descriptor's shell command does with jq. Caller
// parameters are variable values, never program text.
//
// # Sandbox
//
// The tools read only files named like offloaded files ({prefix}-{operation}-
// {ULID}.jsonl) directly in the output folder: the path is checked by name
// and the file is opened through an [os.Root] on the folder without following
// symbolic links, so relative paths, "..", links that point out, NUL bytes
// and folders are refused with a tool error that says why.
//
// Every call is bounded by [Options]: a time limit (gojq checks the context
// at every step), the bytes of the file it reads, the length of one record,
// the number of results and the bytes of output, and the growth of the heap,
// which a watchdog samples while the query runs. What each stops:
//
//   - queries that produce results without end, such as repeat(.) or
//     range(1e12): MaxResults or MaxOutputBytes;
//   - a tail call that loops in constant memory, such as def f: f; f: the
//     time limit;
//   - queries whose heap grows without end, such as
//     [limit(1e9; repeat(1))] | group_by(.) or def f: [f]; f, which the time
//     limit alone would let exhaust memory: the watchdog stops them when the
//     heap has grown by MaxMemoryBytes (it runs a collection first, so
//     garbage does not count).
//
// A query of the caller is also rewritten before it runs so that no single
// step of gojq can do unbounded work in native code, which neither the
// context nor the watchdog can interrupt: without the rewrite, reduce
// range(3e6) as $i (null; [.]) | tojson would kill the process with a stack
// overflow, "xx" * 1e9 would allocate gigabytes in one step, and a value
// that repeats one subvalue ([., .] applied 60 times) would make any tojson,
// comparison or sort of it run forever. With the rewrite, values are
// measured (bounded work) before they reach the builtins that walk, compare
// or materialize them whole, and paths before they reach setpath, so these
// end with a tool error naming the problem. The server answers the next call
// normally after any of them.
//
// What remains: the heap is shared by the process, so concurrent calls
// count each other's allocations (a call may be stopped for another's
// growth); one step may allocate up to about MaxMemoryBytes (a value the
// checks let through) before the watchdog sees it, so the peak is about
// twice the limit; and a hard link in the output folder cannot be told from
// a file, which only someone who can write to the folder can make.
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
