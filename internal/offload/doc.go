// Package offload is the one offload pipeline of this module. Package lro
// (Wrap, AddTool, Middleware, Provide, and Offloader, which the proxy
// calls) and package lro/extract make their configuration with [New] and
// hand a tool result to [Config.Apply], which decides, writes, rewrites the
// result in place and returns what it did as an [Outcome]:
//
//   - The threshold is evaluated on everything the client would receive
//     but images and audio. Within it, the result is left as it is.
//   - Above it, the whole result goes to a JSONL file and the result is
//     rewritten into a descriptor of the file, beside its images and audio.
//     With [Config.Store], the file is written to the store under a name
//     that is a handle, and the descriptor is followed by a resource_link to
//     [ResultURIPrefix] + handle once the store's Commit has returned.
//   - When the file cannot be written, the result is rewritten into a
//     truncated one within the threshold, with a warning, and nothing is
//     left on disk (or in the bucket).
//
// The file is lossless: its header line holds the specification's fields,
// then "result", the tool result with its records taken out, "records_at",
// where they go back, and "copies", the values that repeat another (see
// [jsonlfile.FileHeader]); every further line is one record, taken from the
// structured content, else from each text item in turn (a JSON document's
// array, rows printed as text as package internal/tabular reads them, or
// one {"line": N, "text": "..."} record per line). A text comes back byte
// for byte, JSON texts in the layout of their white space (see layout), but
// JSON spaced as no layout says, which comes back compact. [Rebuild] puts a
// file back together into the result it came from. docs/how-it-works.md
// shows the shapes.
//
// The work is linear in the result's size, whatever its number of items,
// and stops when the call's context is canceled (the result is then the
// fallback).
package offload
