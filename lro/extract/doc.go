// Package extract provides native MCP tools that query offloaded results,
// so that clients without a shell can use Large Result Offloading:
// lro_extract runs a recipe of the descriptor, a jq filter
// (github.com/itchyny/gojq) or a filter without jq (where) over the records
// of an offloaded file; lro_read reads a range of lines, and of characters
// of each; lro_search returns the records with a value that matches a
// regular expression (RE2).
//
// [AddTools] registers the three tools on a server; the program must call
// [RunWorker] first in main. Set lro.Options.ExtractTools on the offloading
// tools of that server, so that their descriptors' guidance points to
// lro_extract. The handlers are safe for concurrent use.
//
// The tools read only the offloaded files of the output folder, or with a
// Store (package [github.com/zircote/lro-go/lro/store]) its handles, and
// then also serve lro://results/{handle}. lro_extract and lro_search
// evaluate each call in a worker process, the host program started again,
// which limits its memory and processor time before it reads a record. Each
// limit of [Options] stops the call with a tool error that names it. On
// systems other than unix systems every call of lro_extract and lro_search
// fails with a tool error.
//
// docs/extraction.md describes the tools, their answers and their bounds in
// full.
package extract
