// Package extract provides native MCP tools that query offloaded results,
// so that clients without a shell can use Large Result Offloading:
// lro_extract runs a recipe of the descriptor, a jq filter
// (github.com/itchyny/gojq) or a filter without jq (where) over the records
// of an offloaded file; lro_read reads a range of lines, and of characters
// of each; lro_search returns the records with a value that matches a
// regular expression (RE2).
//
// [AddTools] registers the three tools on a server, over the output folder
// or Store of the offloading tools (set lro.Options.ExtractTools on those,
// so that their guidance points to lro_extract); the program must call
// [RunWorker] first in main: lro_extract and lro_search evaluate each call
// in a worker process, the host program started again, bounded by the
// limits of [Options] (on unix systems only). The handlers are safe for
// concurrent use. docs/extraction.md describes the tools, their answers and
// their bounds in full.
package extract
