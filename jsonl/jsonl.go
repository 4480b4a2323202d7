// Package jsonl writes offloaded result sets as JSONL files.
//
// An offloaded file holds one result set of a tool call. Its first line is a
// [Header] (the JSON object {"type":"lro_header",...}) and every following
// line is one record: a single JSON value, validated when written. Every line
// ends in "\n", so the records are what `tail -n +2 file | jq ...` reads.
//
// A [Writer] streams a file to disk with constant memory, under a hidden
// temporary name that [Writer.Commit] renames: a reader sees either nothing
// or the complete file. Its name, {dir}/{prefix}-{operation}-{ulid}.jsonl
// (see [Create]), is unique, and sorts by the creation time it carries.
//
// The offloaders of this module write a header with more fields than the
// specification's, so that the file rebuilds the exact result; [ReadHeader]
// and [ReadFile] read the specification's fields of any offloaded file.
//
// Package-level functions are safe for concurrent use. A [Writer] is not, but
// any number of Writers may write files in the same directory concurrently.
package jsonl

import (
	"encoding/json"
	"io"

	"github.com/zircote/lro-go/internal/jsonlfile"
)

var (
	// ErrInvalidPrefix is returned (wrapped, naming the prefix) by [Create]
	// for a prefix that is longer than 64 bytes, starts with a dot, or has
	// a byte outside [A-Za-z0-9_.-].
	ErrInvalidPrefix = jsonlfile.ErrInvalidPrefix

	// ErrNotOffloadFile is returned (wrapped) by [ReadHeader] and [ReadFile]
	// when the first line is missing, is not a JSON object, or has a "type"
	// other than "lro_header".
	ErrNotOffloadFile = jsonlfile.ErrNotOffloadFile
)

// Header is the first line of an offloaded file, the specification's
// OffloadHeader, written with its fields in this order, for example
//
//	{"type":"lro_header","operation":"recall","query":null,"count":2,"schema_version":"1.0","timestamp":"2026-11-21T13:31:00.123Z","estimated_tokens":2400,"detail":"light"}
//
// Its fields: Type (always "lro_header"; WriteHeader sets it), Operation (if
// empty, the operation given to Create), Query (nil is written as null),
// Count (the number of record lines: Commit fails unless exactly Count
// records were written), SchemaVersion, Timestamp (RFC 3339; if empty, the
// current time in UTC with milliseconds), EstimatedTokens (of the whole
// result set) and Detail (the detail level of the records, such as
// "light", "medium" or "full"). A Header is a plain value.
type Header = jsonlfile.Header

// Writer writes one offloaded file. Not safe for concurrent use.
//
// A Writer is made by [Create]. Call WriteHeader once, then WriteRecord (or
// WriteValue, which encodes a Go value as json.Marshal does, without
// escaping <, > and &) once per record, then Commit. Defer Abort right after
// Create: it removes the temporary file on every path that does not reach a
// successful Commit, and does nothing after one. Path is where the file is
// once committed; Name its base name, Size the bytes and Count the records
// written so far, CreatedAt the time in the name's ULID.
//
// WriteRecord validates every record, so that one malformed line can never
// break jq on the whole file, and writes a record that holds a line break
// (indented JSON) in compact form. Until Commit the data lives in a hidden
// temporary file next to Path; after an error from a write the Writer
// should be aborted; after any error from Commit the temporary file is
// already gone.
type Writer = jsonlfile.Writer

// Options configure [Create]. A nil *Options uses every default. Create
// copies the Options, so they may be shared and reused.
type Options struct {
	// Dir is the folder of the file. If empty, defaults to [os.TempDir]. It
	// is made absolute, and created with mode 0700 if it does not exist.
	Dir string
	// Prefix is the first part of the file's name. If empty, defaults to
	// "atlatl", the specification's. It must be at most 64 bytes of [A-Za-z0-9_.-], not
	// starting with a dot.
	Prefix string
}

// Create starts a new file for operation in opts.Dir, under the name
// {prefix}-{operation}-{ulid}.jsonl, with a new ULID of the current time and
// the operation made safe for a file name (lower-case ASCII letters and
// digits, runs of anything else turned into one '_', at most 48 bytes,
// "result" when nothing is left). The data is written to the temporary file
// "." + name + ".tmp" in the same folder, created exclusively with mode 0600
// whatever the process umask (results may hold private data), and locked
// with flock(2) where the system has one until Commit or Abort, so that
// package [github.com/zircote/lro-go/cleanup] deletes only the leftovers of
// dead processes.
//
// Create returns an error wrapping [ErrInvalidPrefix] for a bad
// opts.Prefix, and any error creating the folder or the file.
func Create(operation string, opts *Options) (*Writer, error) {
	var o jsonlfile.Options
	if opts != nil {
		o.Dir, o.Prefix = opts.Dir, opts.Prefix
	}
	return jsonlfile.Create(operation, &o)
}

// ReadHeader reads the header line from r: the specification's fields.
//
// The line may be of any length. If r is a *bufio.Reader, ReadHeader reads
// exactly the header line from it, so the caller can go on reading records
// from the same reader; otherwise it may read past the first line.
//
// ReadHeader returns an error wrapping [ErrNotOffloadFile] if the input is
// empty, the line is not a JSON object or its "type" is not "lro_header",
// an error for a negative count, and any error reading r.
func ReadHeader(r io.Reader) (Header, error) {
	h, err := jsonlfile.ReadHeader(r)
	return h.Header, err
}

// ReadFile reads a whole offloaded file.
//
// It returns the header and one [json.RawMessage] per record line, in order.
// Lines may be of any length and may end in "\r\n"; the last line needs no
// line ending.
//
// ReadFile returns the errors of [ReadHeader] and, naming the path and the
// line, an error for a line (an empty one included) that is not exactly one
// JSON value, and an error if the number of record lines is not the
// header's count.
func ReadFile(path string) (Header, []json.RawMessage, error) {
	h, recs, err := jsonlfile.ReadFile(path)
	return h.Header, recs, err
}
