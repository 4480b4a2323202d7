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
// [AddTools] registers the three tools on a server; [Guidance] renders the
// specification's native-tool guidance for the descriptors of that server.
//
// # One source of truth for recipes
//
// Recipe N of lro_extract is recipe N of the file's descriptor: both are
// recipes.For(detail, sample) over the header's detail level and the first
// [recipes.SampleSize] records of the file, and lro_extract runs the
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
// which a watchdog samples every few milliseconds (a time limit alone lets
// `def f: [f]; f` allocate 1.26 GB in 3 s, measured). A caller's query is
// also rewritten before it runs so that no single step of gojq can do
// unbounded work in native code: values are measured before they reach the
// builtins that walk, compare or materialize them whole, and paths before
// they reach setpath (see guard.go for the measured failures this prevents,
// among them a fatal stack overflow of the process). The server answers the
// next call normally after a query is stopped.
//
// An lro_extract result above the threshold is not shown inline: it is
// written to a new offloaded file and the answer is that file's descriptor,
// so a large extraction is never cut silently and can be queried further.
// If that write fails, the result is cut to the whole results that fit, with
// a warning. lro_read and lro_search show what fits and say where to
// continue.
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
