// Package offload is the one offload pipeline of this module. Package lro
// and package lro/extract make their configuration with [New] and hand a
// tool result to [Config.Apply], which returns what it did as an [Outcome]:
// within the threshold (everything the client would receive but images and
// audio), the result is left as it is; above it, the whole result goes to a
// JSONL file (with [Config.Store], under a handle, followed by a
// resource_link to [ResultURIPrefix] + handle) and is rewritten into a
// descriptor of the file, beside its images and audio; when the file cannot
// be written, into a truncated result within the threshold, with a warning,
// leaving nothing on disk or in the bucket.
//
// The file is lossless: its header line holds the result with its records
// taken out and where they go back (see [FileHeader]); a text
// comes back byte for byte, but JSON spaced as no layout says (see layout),
// which comes back compact. [Rebuild] puts a file back together.
// docs/how-it-works.md shows the shapes. The work is linear in the result's
// size and stops when the call's context is canceled (the result is then
// the fallback).
package offload
