// Package extract provides native MCP tools that query offloaded results,
// so that clients without a shell can use Large Result Offloading:
//
//   - lro_extract runs one of the descriptor's 10 jq recipes by number, a
//     jq filter of the caller's, or a filter without jq (where), over the
//     records of an offloaded file, with github.com/itchyny/gojq;
//   - lro_read reads a range of lines, and a range of characters of each,
//     so that even a record of many megabytes can be read in pieces;
//   - lro_search returns the records with a value that matches a regular
//     expression (RE2), with their line numbers.
//
// [AddTools] registers the three tools on a server; the program must call
// [RunWorker] first in main. Set lro.Options.ExtractTools on the offloading
// tools of that server, so that their descriptors' guidance points to
// lro_extract. The handlers are safe for concurrent use; each call has its
// own limits.
//
// Recipe N of lro_extract is recipe N of the file's descriptor, rebuilt from
// the file's header and first records; caller parameters and the paths and
// values of a where filter reach jq as variable values, never program text.
//
// The tools read the files of the output folder, opened through an
// [os.Root] (links, "..", other folders and hard links are refused), or with
// a Store (package [github.com/zircote/lro-go/lro/store]) its handles, and
// then also serve lro://results/{handle}. lro_extract and lro_search evaluate
// each call in a worker process, the host program started again, which
// limits its memory and processor time before it reads a record: this
// bounds what no check inside the process could (a step of gojq or of a
// regular expression that runs for minutes or allocates gigabytes at once,
// a stack overflow). Each limit of [Options] stops the call with a tool
// error that names it. On systems other than unix systems every call of
// lro_extract and lro_search fails with a tool error.
//
// docs/extraction.md describes the tools, their answers and their bounds in
// full.
package extract
