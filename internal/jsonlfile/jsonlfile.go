// Package jsonlfile writes and reads offloaded result sets as JSONL files:
// the engine under package jsonl, whose Writer and Header are this
// package's, and whose documentation says what a file is, how a Writer
// writes it and how files are named. Besides, it has what only this module
// needs: the header's extensions ([FileHeader]), writers on a [Sink]
// ([NewWriter]), random names ([Options.Random]), the names' grammar
// ([Name], [ParseName], [SanitizeOperation], [ValidatePrefix]), fault
// injection ([Options.WrapWriter]) and a write without validation for
// records the caller has read already ([WriteValid]).
//
// Package-level functions are safe for concurrent use. A [Writer] is not, but
// any number of Writers may write files in the same directory concurrently.
package jsonlfile

import (
	"encoding/json"
	"errors"
	"io"
	"time"
)

// HeaderType is the value of the header line's "type" field.
const HeaderType = "lro_header"

// DefaultPrefix is the file name prefix used when [Options.Prefix] is empty.
const DefaultPrefix = "atlatl"

// ContentType is the content type of an offloaded file: of the objects a
// store writes to a bucket, and of the resources that serve them.
const ContentType = "application/jsonl"

var (
	// ErrInvalidPrefix: a prefix longer than 64 bytes, starting with a dot,
	// or with a byte outside [A-Za-z0-9_.-] (Create, ValidatePrefix).
	ErrInvalidPrefix = errors.New("jsonl: invalid file name prefix")
	// ErrNoHeader: a record written, or Commit, before WriteHeader.
	ErrNoHeader = errors.New("jsonl: header not written")
	// ErrHeaderWritten: WriteHeader called a second time.
	ErrHeaderWritten = errors.New("jsonl: header already written")
	// ErrInvalidHeader: a header with a negative count (WriteHeader,
	// ReadHeader, ReadFile).
	ErrInvalidHeader = errors.New("jsonl: invalid header")
	// ErrInvalidRecord: a record that is not exactly one JSON value
	// (WriteRecord, ReadFile), wrapped with the reason.
	ErrInvalidRecord = errors.New("jsonl: invalid record")
	// ErrCountMismatch: a number of records other than the header's count
	// (Commit, ReadFile).
	ErrCountMismatch = errors.New("jsonl: record count does not match header")
	// ErrClosed: a write or Commit after Commit or Abort.
	ErrClosed = errors.New("jsonl: writer already committed or aborted")
	// ErrNotOffloadFile: a first line that is missing, is not a JSON object,
	// or has a "type" other than HeaderType (ReadHeader, ReadFile).
	ErrNotOffloadFile = errors.New("jsonl: not an offloaded file")
	// ErrUnsafeDir: an output folder that another user could replace, or
	// replace files in (Create, CheckDir), wrapped with the reason.
	ErrUnsafeDir = errors.New("jsonl: unsafe output folder")
)

// Header is the first line of an offloaded file, the specification's
// OffloadHeader, written with its fields in this order (see package jsonl).
// [FileHeader] adds this module's fields.
type Header struct {
	Type            string  `json:"type"`             // always HeaderType; WriteHeader sets it
	Operation       string  `json:"operation"`        // if empty, WriteHeader uses the operation given to Create
	Query           *string `json:"query"`            // the operation's query, if any; nil is written as null
	Count           int     `json:"count"`            // record lines after the header, which Commit checks
	SchemaVersion   string  `json:"schema_version"`   // of the records
	Timestamp       string  `json:"timestamp"`        // RFC 3339, UTC, ms; if empty, WriteHeader uses Options.Now
	EstimatedTokens int     `json:"estimated_tokens"` // of the whole result set
	Detail          string  `json:"detail"`           // the detail level the records were serialized at
}

// FileHeader is the header line as this module's offloaders write it: the
// specification's fields, then "result", "records_at" and "copies", which
// Rebuild (internal/offload) puts a result back together with.
type FileHeader struct {
	Header
	// Result is the tool result the records were taken out of, as the
	// client would have received it ({"content": [...],
	// "structuredContent": ...}), with each placement of RecordsAt emptied.
	// Nil when the records are the whole result.
	Result json.RawMessage `json:"result,omitempty"`
	// RecordsAt says where the records, in file order, go back into
	// Result.
	RecordsAt []Placement `json:"records_at,omitempty"`
	// Copies lists the values of Result that repeat another of its values,
	// in the order they are put back, once the records are. Each holds null
	// in Result.
	Copies []Copy `json:"copies,omitempty"`
	// Redacted counts the credentials replaced by markers before anything
	// was written, by kind (internal/redact); nil when none was.
	Redacted map[string]int `json:"redacted,omitempty"`
}

// Placement says where a stretch of records goes back into a
// [FileHeader.Result].
type Placement struct {
	// At is the JSON Pointer (RFC 6901) of the placement in Result; "" when
	// the records are the whole result.
	At string `json:"at"`
	// As says how the records sit there: "array" (the elements of the array
	// at At, which Result holds empty), "value" (the one record is the value
	// at At, which Result holds as null), "lines" ({"line": N, "text": "..."}
	// records, the lines of the text at At, which Result holds as ""), or
	// the format of rows printed as the text at At, which Result holds as
	// "": "python", "csv", "tsv" or "markdown".
	As string `json:"as"`
	// Count is the number of records of the placement.
	Count int `json:"count"`
	// InText, when not empty, is the pointer of a text item whose text was a
	// JSON document that holds the records: Result holds that document as a
	// JSON value, to be written back as text once the records are in it.
	InText string `json:"in_text,omitempty"`
	// FinalNewline reports, for "lines", that the text ended with a newline.
	FinalNewline bool `json:"final_newline,omitempty"`
	// Layout is, for rows, what printing them needs besides the records;
	// for InText, how the JSON text is spaced (such as "indent=2 trail=n");
	// a few words, never data, empty for compact JSON.
	Layout string `json:"layout,omitempty"`
}

// Copy is a value of a [FileHeader.Result] that repeats another of its
// values, and holds null there: a text item that is the JSON of another
// value, or, with As "string", a string that is the same as another.
type Copy struct {
	At string `json:"at"`           // the pointer of the copy
	Of string `json:"of"`           // the pointer of the value it repeats
	As string `json:"as,omitempty"` // "" for the JSON of the value, "string" for the same string
	// Layout is, for the JSON of the value, how it is spaced (see
	// [Placement.Layout]).
	Layout string `json:"layout,omitempty"`
}

// Options configure [Create]. A nil *Options uses every default. Create
// copies the Options, so they may be shared and reused.
type Options struct {
	Dir    string           // If empty, defaults to os.TempDir(). Made absolute.
	Prefix string           // If empty, defaults to DefaultPrefix. See ValidatePrefix.
	Now    func() time.Time // If nil, defaults to time.Now. Sets the ULID and header times.

	// WrapWriter, if not nil, is given the temporary file (or the Sink) and
	// returns the writer that every byte of the file goes through, for fault
	// injection. If WrapWriter panics, Create removes the file before the
	// panic goes on; if the returned writer panics, the deferred
	// [Writer.Abort] removes it.
	WrapWriter func(w io.Writer) io.Writer

	// Random, if true, adds a random part to the file name:
	// {prefix}-{operation}-{ulid}-{random}.jsonl, where random is 128 bits
	// from crypto/rand in 32 lower-case hex digits, so that the name is a
	// handle that cannot be guessed from another (the ULIDs of one process
	// within a millisecond are consecutive).
	Random bool

	// TTL, if positive, is how long the file lives once complete: Commit
	// marks it read-only (mode 0400) with its expiry, the time of Now at
	// the commit plus TTL, as its modification time, before the file gets
	// its name (not on Windows). Package cleanup honours that mark. Not
	// used by NewWriter, whose Sink records its own expiry.
	TTL time.Duration
}

// Sink is where a Writer made by [NewWriter] writes a file: an object that
// becomes visible to readers, whole, only when committed. The Writer writes
// to it through a buffer, then calls Commit once, or Abort, and nothing
// after either.
type Sink interface {
	io.Writer
	// Commit makes everything written visible under the file's name, at
	// once and whole, and reports an error unless it did: after an error,
	// nothing must be visible.
	Commit() error
	// Abort discards everything written: nothing becomes visible.
	Abort() error
}
