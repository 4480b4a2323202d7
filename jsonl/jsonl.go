// Package jsonl writes and reads offloaded result sets as JSONL files.
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
// [NewWriter] writes a file to any io.Writer instead, such as a bucket's
// upload.
//
// The offloaders of this module write a header with more fields than the
// specification's, so that the file rebuilds the exact result
// ([Header.Extension]).
//
// Package-level functions are safe for concurrent use. A [Writer] is not, but
// any number of Writers may write files in the same directory concurrently.
package jsonl

import (
	"encoding/json"
	"errors"
	"io"
	"time"

	"github.com/zircote/lro-go/internal/disk"
)

var (
	// ErrNotOffloadFile is returned (wrapped) by [ReadHeader] and [ReadFile]
	// when the first line is missing, is not a JSON object, or has a "type"
	// other than "lro_header".
	ErrNotOffloadFile = errors.New("jsonl: not an offloaded file")
)

// The errors of a Writer and of ReadFile.
var (
	errNoHeader      = errors.New("jsonl: header not written")                  // a record, or Commit, before WriteHeader
	errHeaderWritten = errors.New("jsonl: header already written")              // WriteHeader a second time
	errInvalidHeader = errors.New("jsonl: invalid header")                      // a negative count
	errInvalidRecord = errors.New("jsonl: invalid record")                      // not exactly one JSON value, wrapped with the reason
	errCountMismatch = errors.New("jsonl: record count does not match header")  // Commit, ReadFile
	errClosed        = errors.New("jsonl: writer already committed or aborted") // a write or Commit after Commit or Abort
)

// Header is the first line of an offloaded file, the specification's
// OffloadHeader, written with its fields in this order, for example
//
//	{"type":"lro_header","operation":"recall","query":null,"count":2,"schema_version":"1.0","timestamp":"2026-11-21T13:31:00.123Z","estimated_tokens":2400,"detail":"light"}
//
// A Header is a plain value. Its "type", always "lro_header", is written by
// [Writer.WriteHeader] and checked by [ReadHeader] and [ReadFile].
type Header struct {
	Operation       string  `json:"operation"`        // if empty, WriteHeader uses the operation of Create or NewWriter
	Query           *string `json:"query"`            // the operation's query, if any; nil is written as null
	Count           int     `json:"count"`            // record lines after the header: Commit fails unless exactly Count were written
	SchemaVersion   string  `json:"schema_version"`   // of the records
	Timestamp       string  `json:"timestamp"`        // RFC 3339; if empty, WriteHeader uses the current time in UTC with milliseconds
	EstimatedTokens int     `json:"estimated_tokens"` // of the whole result set
	Detail          string  `json:"detail"`           // the detail level of the records, such as "light", "medium" or "full"

	// Extension is a JSON object of the header's other members: WriteHeader
	// writes its members after the specification's fields, and ReadHeader
	// and ReadFile set it to the members they do not name, in order, or
	// nil. The offloaders of this module write "result", "records_at",
	// "copies" and "redacted" there, with which a file rebuilds the exact
	// result (docs/how-it-works.md).
	Extension json.RawMessage `json:"-"`
}

// wireHeader is a Header as a line holds it, "type" first.
type wireHeader struct {
	Type string `json:"type"`
	Header
}

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
// dead processes. A folder that another user could write to or own is
// refused, and so is the making of one in it.
//
// Create returns an error naming the prefix for an opts.Prefix that breaks
// the rule of [Options.Prefix], and any error creating the folder or the file.
func Create(operation string, opts *Options) (*Writer, error) {
	return create(operation, opts, time.Now, nil)
}

// create is Create with a clock and a writer that every byte of the file
// goes through (tests give them).
func create(operation string, opts *Options, now func() time.Time, wrap func(io.Writer) io.Writer) (*Writer, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	f, err := disk.Create(o.Dir, o.Prefix, operation, now(), false, nil)
	if err != nil {
		return nil, err
	}
	w := NewWriter(disk.Wrap(f, wrap), f.Path(), operation)
	w.now = now
	return w, nil
}
