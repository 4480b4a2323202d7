// Package offload is the one offload pipeline of this module. Package lro
// (Wrap, AddTool, Middleware, Provide, and Offloader, which the proxy
// calls) and package lro/extract (answers offloaded in turn) make their
// configuration with [New] and hand a tool result to [Config.Apply], which
// decides, writes, rewrites the result in place and returns what it did as
// an [Outcome] (offloaded or fell back, the descriptor, the file's path and
// handle):
//
//   - The threshold is evaluated on everything the client would receive:
//     every text item, the structured content and every other non-media
//     item (images and audio are not text and are not counted).
//   - Within it, the result is left as it is.
//   - Above it, the whole result goes to a JSONL file and the result is
//     rewritten, in place, into a descriptor of the file. Images and audio
//     stay in the response beside the descriptor.
//   - When the file cannot be written, the result is rewritten into a
//     truncated one within the threshold, with a warning that says how much
//     is shown, and nothing is left on disk (or in the bucket).
//
// With [Config.Store], files are written to the store (a folder or a bucket
// that the replicas of a server share) under names that are handles: the
// descriptor gives the handle and is followed by a resource_link to
// [ResultURIPrefix] + handle, and no descriptor is returned before the
// store's Commit has returned.
//
// # The file
//
// Line 1 is the header: the specification's fields, then "result", the tool
// result ({"content": [...], "structuredContent": ...}) with its records
// taken out, and "records_at", which says where they were. Every further line
// is one record. The records are, in this order of preference:
//
//   - the structured content's records: the content itself when it is an
//     array, else its array member named by RecordsField, else its largest
//     array member, else the whole value as one record;
//   - else, for each text item in turn: the records of its JSON document
//     found the same way; or, for rows printed as text (Python's str() of a
//     list of dicts or tuples, as mcp-server-sqlite's read_query returns
//     it, CSV or TSV with a header row, a Markdown table), one record per
//     row, an object of the header's names (or of the dict's keys; an array
//     for a row that is a Python tuple or list) with typed values (see
//     package internal/tabular); or else one {"line": N, "text": "..."}
//     record per line.
//
// Everything else (other members such as a total or a cursor, other arrays,
// other text items) stays in "result". Where the records were, "result"
// holds an empty array (or null for one record, or "" for text lines and
// rows); a text item that held a JSON document holds that document as a
// JSON value instead of a string. Each placement of "records_at" says how
// its records go back ("as"): "array", "value", "lines", or, for rows, the
// format they were printed in ("python", "csv", "tsv", "markdown") with the
// "layout" its printer needs (a few words, such as the quoting of CSV
// fields or a Markdown table's separator row; never data). Rows are read
// only when printing their records gives the text back byte for byte; any
// other text stays lines.
//
// A JSON text comes back byte for byte too: the placement of its records
// (or its copy, below) has the "layout" of its white space, such as
// "indent=2" for JSON.stringify(x, null, 2), "spaced" for Python's
// json.dumps(x), "indent=2 trail=n" for jq, "rows trail=n" for the sqlite3
// shell's -json mode, with "crlf" for lines ended by "\r\n" (see layout).
// It is kept only when printing the document back with it gives the text
// byte for byte. The one exception: a JSON text spaced as no layout says (by
// hand, or mixing line ends) comes back in compact form.
//
// Nothing is kept twice: a text item that repeats the structured content
// as JSON (server-memory sends JSON.stringify(x, null, 2) of it) holds null
// and is listed in "copies" with its layout; a string of the structured
// content that is a text item's text, given back byte for byte
// (server-filesystem sends {"content": text} beside the text, whether lines
// or JSON), holds null and is listed in "copies" as a "string" copy of that
// text item. [Rebuild] puts a file back together into the result it
// came from.
//
// The work is linear in the result's size, whatever its number of items,
// and stops when the call's context is canceled (the result is then the
// fallback).
package offload
