// Package jsonlfile writes and reads offloaded result sets as JSONL files:
// the engine under package jsonl, whose Writer and Header are this
// package's. Besides what jsonl shows, it has what only this module needs:
// the header's extensions ([FileHeader]: the result the records were taken
// out of, and where they go back), writers on a [Sink] ([NewWriter]),
// random names ([Options.Random]), the names' grammar ([Name],
// [ParseName], [SanitizeOperation], [ValidatePrefix]), fault injection
// ([Options.WrapWriter]) and a write without validation for records the
// caller has read already ([WriteValid]).
//
// What a file is, how a Writer writes it and how files are named is in
// package jsonl's documentation. With [Options.Random] a name also carries
// 128 random bits, {prefix}-{operation}-{ulid}-{random}.jsonl, so that it
// cannot be guessed from another: a handle that may be given to clients. A
// Writer of [NewWriter] streams a file to a [Sink] instead, such as an
// object of a bucket in a cloud store, that shows the file only once
// committed, as the rename does in a folder.
//
// Package-level functions are safe for concurrent use. A [Writer] is not, but
// any number of Writers may write files in the same directory concurrently.
package jsonlfile

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/oklog/ulid/v2"

	"github.com/zircote/lro-go/internal/tempname"
)

// HeaderType is the value of the header line's "type" field.
const HeaderType = "lro_header"

// DefaultPrefix is the file name prefix used when [Options.Prefix] is empty.
const DefaultPrefix = "atlatl"

// ContentType is the content type of an offloaded file: of the objects a
// store writes to a bucket, and of the resources that serve them.
const ContentType = "application/jsonl"

const (
	// maxPrefixLen bounds a prefix so that a whole temporary file name stays
	// far below the common 255-byte limit:
	// 1+64+1+48+1+26+1+32+len(".jsonl.tmp").
	maxPrefixLen = 64
	// randomBytes is the length of a name's random part (Options.Random),
	// written as twice as many lower-case hex digits.
	randomBytes = 16
	// maxOperationLen bounds the operation part of a file name.
	maxOperationLen = 48
	// fallbackOperation replaces an operation with no usable character.
	fallbackOperation = "result"
	// ext is the extension of a committed file.
	ext = ".jsonl"
	// timestampLayout is RFC 3339 in UTC with milliseconds, e.g.
	// 2026-11-21T13:31:00.123Z.
	timestampLayout = "2006-01-02T15:04:05.000Z07:00"
	// bufferSize is the write buffer of a Writer: large enough that a
	// typical offloaded file (tens to hundreds of KiB) takes a few writes.
	bufferSize = 64 << 10
	// maxRetainedBuffer is the largest compaction buffer a Writer keeps
	// between records; a larger one (left by one huge record) is dropped.
	maxRetainedBuffer = 1 << 20
	// createAttempts bounds the retries of Create on a name collision.
	createAttempts = 8
	// fileMode and dirMode are the permissions of files and of directories
	// that Create makes: results may contain private data.
	fileMode fs.FileMode = 0o600
	dirMode  fs.FileMode = 0o700
)

var (
	// ErrInvalidPrefix is returned (wrapped, naming the prefix) by [Create]
	// and [ValidatePrefix] for a prefix that is longer than 64 bytes, starts
	// with a dot, or has a byte outside [A-Za-z0-9_.-].
	ErrInvalidPrefix = errors.New("jsonl: invalid file name prefix")

	// ErrNoHeader is returned by [Writer.WriteRecord], [Writer.WriteValue]
	// and [Writer.Commit] when [Writer.WriteHeader] has not been called.
	ErrNoHeader = errors.New("jsonl: header not written")

	// ErrHeaderWritten is returned by [Writer.WriteHeader] when it is called
	// a second time.
	ErrHeaderWritten = errors.New("jsonl: header already written")

	// ErrInvalidHeader is returned by [Writer.WriteHeader] and by
	// [ReadHeader] and [ReadFile] for a header with a negative count.
	ErrInvalidHeader = errors.New("jsonl: invalid header")

	// ErrInvalidRecord is returned (wrapped with the reason) by
	// [Writer.WriteRecord] for a record that is not exactly one JSON value,
	// and by [ReadFile] for a line that is not.
	ErrInvalidRecord = errors.New("jsonl: invalid record")

	// ErrCountMismatch is returned by [Writer.Commit] when the number of
	// records written differs from the header's count, and by [ReadFile]
	// when the number of record lines does.
	ErrCountMismatch = errors.New("jsonl: record count does not match header")

	// ErrClosed is returned by the writing methods of a [Writer] and by
	// [Writer.Commit] after Commit or Abort.
	ErrClosed = errors.New("jsonl: writer already committed or aborted")

	// ErrNotOffloadFile is returned (wrapped) by [ReadHeader] and [ReadFile]
	// when the first line is missing, is not a JSON object, or has a "type"
	// other than [HeaderType].
	ErrNotOffloadFile = errors.New("jsonl: not an offloaded file")
)

// Header is the first line of an offloaded file, the specification's
// OffloadHeader. It is written with its fields in this order, for example
//
//	{"type":"lro_header","operation":"recall","query":null,"count":2,"schema_version":"1.0","timestamp":"2026-11-21T13:31:00.123Z","estimated_tokens":2400,"detail":"light"}
//
// A Header is a plain value; [Writer.WriteHeader] takes a copy. It holds
// the specification's fields; [FileHeader] adds this module's.
type Header struct {
	// Type is always HeaderType; WriteHeader sets it.
	Type string `json:"type"`
	// Operation is the operation that produced the records, such as
	// "recall", "search", "inject" or "list". If empty, WriteHeader uses the
	// operation given to Create.
	Operation string `json:"operation"`
	// Query is the query string, if the operation had one; nil is written
	// as null.
	Query *string `json:"query"`
	// Count is the number of record lines after the header. Commit fails
	// unless exactly Count records were written.
	Count int `json:"count"`
	// SchemaVersion is the schema version of the records.
	SchemaVersion string `json:"schema_version"`
	// Timestamp is when the file was written, in RFC 3339. If empty,
	// WriteHeader uses Options.Now in UTC with milliseconds, such as
	// "2026-11-21T13:31:00.123Z".
	Timestamp string `json:"timestamp"`
	// EstimatedTokens is the estimated token count of the whole result set.
	EstimatedTokens int `json:"estimated_tokens"`
	// Detail is the detail level the records were serialized at, such as
	// "light", "medium" or "full".
	Detail string `json:"detail"`
}

// FileHeader is the header line as this module's offloaders write it: the
// specification's fields, then "result", "records_at" and "copies", which
// [Rebuild] (internal/offload) puts a result back together with.
type FileHeader struct {
	Header
	// Result is the tool result the records were taken out of, as the
	// client would have received it ({"content": [...],
	// "structuredContent": ...}), with each placement of RecordsAt emptied:
	// everything of the result that is not a record, such as a total or a
	// cursor beside the records. Nil when the records are the whole result.
	Result json.RawMessage `json:"result,omitempty"`
	// RecordsAt says where the records, in file order, go back into
	// Result.
	RecordsAt []Placement `json:"records_at,omitempty"`
	// Copies lists the values of Result that repeat another of its values,
	// in the order they are put back, once the records are. Each holds null
	// in Result.
	Copies []Copy `json:"copies,omitempty"`
}

// Placement says where a stretch of records goes back into a
// [Header.Result].
type Placement struct {
	// At is the JSON Pointer (RFC 6901) of the placement in Result; "" when
	// the records are the whole result.
	At string `json:"at"`
	// As says how the records sit there: "array" (the elements of the array
	// at At, which Result holds empty), "value" (the one record is the value
	// at At, which Result holds as null), "lines" (the records are
	// {"line": N, "text": "..."} objects, the lines of the text at At, which
	// Result holds as ""), or the format of rows printed as the text at At,
	// which Result holds as "": "python" (Python's str() of a list or tuple
	// of rows), "csv", "tsv" or "markdown" (the records are the rows).
	As string `json:"as"`
	// Count is the number of records of the placement.
	Count int `json:"count"`
	// InText, when not empty, is the pointer of a text item whose text was a
	// JSON document that holds the records: Result holds that document as a
	// JSON value, to be written back as text once the records are in it.
	InText string `json:"in_text,omitempty"`
	// FinalNewline reports, for "lines", that the text ended with a newline.
	FinalNewline bool `json:"final_newline,omitempty"`
	// Layout is, for rows, what printing the records in their format needs
	// besides them, in a few words (such as the quoting of CSV fields or the
	// separator row of a Markdown table), never data; for records InText,
	// how the text's JSON document is spaced, in a few words (such as
	// "indent=2 trail=n", as jq prints), never data; empty for compact JSON.
	Layout string `json:"layout,omitempty"`
}

// Copy is a value of a [Header.Result] that repeats another of its values,
// and holds null there: a text item that is the JSON of another value (such
// as the text a typed tool adds beside its structured content), or, with As
// "string", a string that is the same as another (such as structured
// content that repeats a text item's text).
type Copy struct {
	At string `json:"at"`           // the pointer of the copy
	Of string `json:"of"`           // the pointer of the value it repeats
	As string `json:"as,omitempty"` // "" for the JSON of the value, "string" for the same string
	// Layout is, for the JSON of the value, how it is spaced, in a few
	// words, never data (see [Placement.Layout]); empty for compact JSON.
	Layout string `json:"layout,omitempty"`
}

// Options configure [Create]. A nil *Options uses every default. Create
// copies the Options, so they may be shared and reused.
type Options struct {
	Dir    string           // If empty, defaults to os.TempDir(). Made absolute.
	Prefix string           // If empty, defaults to DefaultPrefix. See ValidatePrefix.
	Now    func() time.Time // If nil, defaults to time.Now. Sets the ULID and header times.

	// WrapWriter, if not nil, is given the temporary file as an io.Writer
	// and returns the writer that every byte of the file goes through. It
	// exists for fault injection: a writer that fails with syscall.ENOSPC
	// shows what a full disk does, without filling one. The returned writer
	// must write to w or fail; the file is still closed, renamed and removed
	// by the Writer itself. If WrapWriter panics, Create removes the file
	// before the panic goes on; if the returned writer panics, the deferred
	// [Writer.Abort] removes it.
	WrapWriter func(w io.Writer) io.Writer

	// Random, if true, adds a random part to the file name:
	// {prefix}-{operation}-{ulid}-{random}.jsonl, where random is 128 bits
	// from crypto/rand in 32 lower-case hex digits. The ULID's own 80
	// random bits do not make a name unguessable: within a millisecond, the
	// ULIDs of one process are consecutive. [ParseName] accepts both forms.
	Random bool
}

// Sink is where a Writer made by [NewWriter] writes a file: an object that
// becomes visible to readers, whole, only when committed. The Writer writes
// the file through a 64 KiB buffer to Write, then calls Commit once, or
// Abort (on any failure or an Abort of the Writer), and nothing after
// either.
type Sink interface {
	io.Writer
	// Commit makes everything written visible under the file's name, at
	// once and whole, and reports an error unless it did: after an error,
	// nothing must be visible.
	Commit() error
	// Abort discards everything written: nothing becomes visible.
	Abort() error
}

// Writer writes one offloaded file. Not safe for concurrent use.
//
// A Writer is made by [Create]. Call [Writer.WriteHeader] once, then
// [Writer.WriteRecord] or [Writer.WriteValue] once per record, then
// [Writer.Commit]. Defer [Writer.Abort] right after Create: it removes the
// temporary file on every path that does not reach a successful Commit, and
// does nothing after one.
//
// Until Commit the data lives in a hidden temporary file next to
// [Writer.Path], "." + its name + ".tmp"; nothing exists at Path. After an error from a write,
// the Writer should be aborted; after any error from Commit, the temporary
// file is already gone. A panic in a write (of the writer returned by
// [Options.WrapWriter]) leaves the Writer abortable too: the deferred Abort
// removes the file as the panic unwinds.
type Writer struct {
	name string // final base name
	path string // final absolute path; "" for a Sink
	tmp  string // temporary absolute path; "" for a Sink
	sink Sink   // set by NewWriter instead of path and tmp
	id   ulid.ULID
	op   string // operation as given to Create, for the header's default
	now  func() time.Time

	f   *os.File
	bw  *bufio.Writer
	buf bytes.Buffer  // reused to compact records
	enc *json.Encoder // made on first WriteValue; writes through sink

	headerCount   int
	headerWritten bool
	count         int
	size          int64
	err           error // first write error; sticky
	done          bool  // committed or aborted
}

// bufPool recycles the 64 KiB write buffers of finished Writers, so that a
// server offloading many results does not allocate one per file.
var bufPool = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, bufferSize) }}

// Create starts a new file for operation.
//
// The directory is opts.Dir made absolute, or [os.TempDir]. If it does not
// exist, Create makes it and every missing parent with mode 0700; it never
// changes the mode of a directory that exists. The file's final name is
// [Name](prefix, operation, id) with a new ULID whose time is opts.Now(), and
// the data is written to a temporary file in the same directory, created
// exclusively with mode 0600 whatever the process umask, and locked (see
// the package documentation) until Commit or Abort. Create retries with a new ULID in
// the (practically impossible) case that either name exists, so concurrent
// writers, in one process or many, never share or overwrite a file, and in
// the case that a janitor removed the new temporary file before it could be
// locked.
//
// Create returns an error wrapping [ErrInvalidPrefix] for a bad opts.Prefix,
// and the *fs.PathError of a directory or file it could not create.
func Create(operation string, opts *Options) (*Writer, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if o.Dir == "" {
		o.Dir = os.TempDir()
	}
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, fmt.Errorf("jsonl: directory %q: %w", o.Dir, err)
	}
	if err := mkdirAll(dir); err != nil {
		return nil, fmt.Errorf("jsonl: %w", err)
	}

	now := o.Now()
	for attempt := 1; ; attempt++ {
		id, err := newID(ulid.Timestamp(now))
		if err != nil {
			return nil, fmt.Errorf("jsonl: file id for time %v: %w", now, err)
		}
		base, err := newName(o.Prefix, operation, id, o.Random)
		if err != nil {
			return nil, err
		}
		w := &Writer{
			name: base,
			path: filepath.Join(dir, base),
			tmp:  filepath.Join(dir, tempname.Of(base)),
			id:   id,
			op:   operation,
			now:  o.Now,
		}
		// Rename replaces an existing file, so also make sure the final
		// name is free. Another process could still take it before
		// Commit, but only by reusing this ULID's 80 random bits.
		if _, err := os.Lstat(w.path); err == nil {
			if attempt < createAttempts {
				continue
			}
			return nil, fmt.Errorf("jsonl: %w", &fs.PathError{Op: "create", Path: w.path, Err: fs.ErrExist})
		}
		f, err := os.OpenFile(w.tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, fileMode)
		if errors.Is(err, fs.ErrExist) && attempt < createAttempts {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("jsonl: %w", err)
		}
		if afterCreate != nil {
			afterCreate(w.tmp)
		}
		// The file is ours from its creation, but a janitor tells a live
		// Writer from the leftover of a dead process by the lock alone:
		// one that found the file unlocked in between has removed it.
		removed, err := lockTemp(f)
		if err != nil {
			f.Close()
			os.Remove(w.tmp)
			return nil, fmt.Errorf("jsonl: %w", err)
		}
		if removed {
			f.Close()
			if attempt < createAttempts {
				continue
			}
			return nil, fmt.Errorf("jsonl: %w", &fs.PathError{Op: "lock", Path: w.tmp, Err: fs.ErrNotExist})
		}
		if err := w.start(f, o.WrapWriter); err != nil {
			return nil, err
		}
		return w, nil
	}
}

// withDefaults returns a copy of opts, which may be nil, with the defaults
// of Prefix and Now, or the error of an invalid Prefix.
func (opts *Options) withDefaults() (Options, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Prefix == "" {
		o.Prefix = DefaultPrefix
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return o, ValidatePrefix(o.Prefix)
}

// NewWriter starts a new file for operation that is written to a Sink
// instead of a folder: a Writer like those of [Create], that checks and
// counts what it writes in the same way, but whose [Writer.Path] is empty.
//
// NewWriter makes the file's name as Create does, from opts.Prefix,
// operation, a new ULID of time opts.Now() and, with opts.Random, a random
// part; opts.Dir is not used. It calls open with that name and writes to
// the Sink it returns, through opts.WrapWriter if set. [Writer.Commit]
// commits the Sink; [Writer.Abort], and a Commit that fails, abort it.
//
// NewWriter returns an error wrapping [ErrInvalidPrefix] for a bad
// opts.Prefix, and the error of open.
func NewWriter(operation string, open func(name string) (Sink, error), opts *Options) (*Writer, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	now := o.Now()
	id, err := newID(ulid.Timestamp(now))
	if err != nil {
		return nil, fmt.Errorf("jsonl: file id for time %v: %w", now, err)
	}
	name, err := newName(o.Prefix, operation, id, o.Random)
	if err != nil {
		return nil, err
	}
	sink, err := open(name)
	if err != nil {
		return nil, err
	}
	w := &Writer{name: name, sink: sink, id: id, op: operation, now: o.Now}
	ok := false
	defer func() {
		if !ok {
			sink.Abort() // open's error or wrap's panic is the one to report
		}
	}()
	w.bw = bufPool.Get().(*bufio.Writer)
	if o.WrapWriter != nil {
		w.bw.Reset(o.WrapWriter(sink))
	} else {
		w.bw.Reset(sink)
	}
	ok = true
	return w, nil
}

// newName returns Name(prefix, operation, id), with a random part if
// random is set.
func newName(prefix, operation string, id ulid.ULID, random bool) (string, error) {
	name := Name(prefix, operation, id)
	if !random {
		return name, nil
	}
	var b [randomBytes]byte
	if _, err := rand.Read(b[:]); err != nil { // never fails on supported systems
		return "", fmt.Errorf("jsonl: random name part: %w", err)
	}
	return strings.TrimSuffix(name, ext) + "-" + hex.EncodeToString(b[:]) + ext, nil
}

// afterCreate, if not nil, is called with the temporary file's path between
// its creation and its lock. Tests set it to remove or lock the file at that
// moment, as a janitor could.
var afterCreate func(tmp string)

// start makes w write to its new temporary file f, through wrap if not nil.
// If it fails, or wrap panics, the file is closed and removed before start
// returns or the panic goes on: Create has no Writer to give back, so the
// caller has nothing to Abort.
func (w *Writer) start(f *os.File, wrap func(io.Writer) io.Writer) error {
	w.f = f
	ok := false
	defer func() {
		if !ok {
			w.discard()
		}
	}()
	// OpenFile's mode is reduced by the umask; set it exactly.
	if err := f.Chmod(fileMode); err != nil {
		return fmt.Errorf("jsonl: %w", err)
	}
	w.bw = bufPool.Get().(*bufio.Writer)
	if wrap != nil {
		w.bw.Reset(wrap(f))
	} else {
		w.bw.Reset(f)
	}
	ok = true
	return nil
}

// newID returns a new ULID for the time ms (Unix milliseconds). It uses the
// ulid package's default entropy, which is safe for concurrent use and
// monotonic within a millisecond, so names made in one process sort in
// creation order. It falls back to crypto/rand should the monotonic entropy
// overflow its 80 bits within one millisecond, which is astronomically
// unlikely but not impossible.
//
// It is a variable so that tests can force name collisions.
var newID = func(ms uint64) (ulid.ULID, error) {
	id, err := ulid.New(ms, ulid.DefaultEntropy())
	if errors.Is(err, ulid.ErrMonotonicOverflow) {
		return ulid.New(ms, rand.Reader)
	}
	return id, err
}

// mkdirAll is os.MkdirAll with mode 0700 applied exactly: the umask is
// ignored for the directories it creates, and directories that already exist
// are left alone (their mode is not ours to change).
func mkdirAll(dir string) error {
	if _, err := os.Stat(dir); err == nil {
		return nil // a non-directory fails later, when the file is opened
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if parent := filepath.Dir(dir); parent != dir {
		if err := mkdirAll(parent); err != nil {
			return err
		}
	}
	if err := os.Mkdir(dir, dirMode); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil // made concurrently by someone else: not ours
		}
		return err
	}
	return os.Chmod(dir, dirMode)
}

// Path returns the absolute path the file will have after Commit; "" for a
// Writer of [NewWriter].
func (w *Writer) Path() string { return w.path }

// Name returns the base name of the file: the last element of
// [Writer.Path], or the name given to the Sink of [NewWriter].
func (w *Writer) Name() string { return w.name }

// label names the file in error messages.
func (w *Writer) label() string {
	if w.path != "" {
		return w.path
	}
	return w.name
}

// CreatedAt returns the creation time carried by the file's ULID: the time
// [Options.Now] returned in [Create], in UTC, truncated to the millisecond.
// This is the time a janitor reads back with [ParseName] to apply a TTL.
func (w *Writer) CreatedAt() time.Time { return ulid.Time(w.id.Time()).UTC() }

// WriteHeader writes the header line. It must be called exactly once, before
// any record.
//
// WriteHeader sets h.Type to [HeaderType], h.Operation to the operation given
// to [Create] if empty, and h.Timestamp to [Options.Now] in UTC with
// millisecond precision (e.g. "2026-11-21T13:31:00.123Z") if empty. h.Count
// is the number of records that must follow: [Writer.Commit] fails
// otherwise. Strings are written without escaping <, > and &, so that grep
// finds them as they are.
//
// WriteHeader returns [ErrHeaderWritten] on a second call, an error wrapping
// [ErrInvalidHeader] if h.Count is negative, [ErrClosed] after Commit or
// Abort, and otherwise any error writing the file.
func (w *Writer) WriteHeader(h Header) error {
	return w.writeHeader(FileHeader{Header: h})
}

// WriteFileHeader is [Writer.WriteHeader] of a header with this module's
// fields.
func WriteFileHeader(w *Writer, h FileHeader) error { return w.writeHeader(h) }

func (w *Writer) writeHeader(h FileHeader) error {
	if err := w.check(); err != nil {
		return err
	}
	if w.headerWritten {
		return ErrHeaderWritten
	}
	if h.Count < 0 {
		return fmt.Errorf("%w: %s: negative count %d", ErrInvalidHeader, w.label(), h.Count)
	}
	h.Type = HeaderType
	if h.Operation == "" {
		h.Operation = w.op
	}
	if h.Timestamp == "" {
		h.Timestamp = w.now().UTC().Format(timestampLayout)
	}
	w.buf.Reset()
	enc := json.NewEncoder(&w.buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(h); err != nil { // cannot fail for this struct
		return fmt.Errorf("jsonl: %s: header: %w", w.label(), err)
	}
	if err := w.write(w.buf.Bytes()); err != nil { // Encode ended it with '\n'
		return err
	}
	w.headerWritten = true
	w.headerCount = h.Count
	return nil
}

// WriteRecord writes one record line.
//
// record must be exactly one JSON value, such as the output of
// [json.Marshal]; whitespace around and inside it is allowed. A record that
// contains a line break (as indented JSON does) is written in compact form,
// without insignificant whitespace, so that it takes one line; any other
// record is written byte for byte. Either way the bytes of its strings are
// kept as they are, and the record is not retained.
//
// Every record is validated, so that one malformed line can never break `jq`
// on the whole file: one pass of a validator that gives exactly the answer
// of [json.Valid], or, for a record with a line break, one pass of
// [json.Compact], which validates while it compacts into a buffer the Writer
// reuses; only the records that need it are compacted. A valid record is
// thus written without any allocation. Callers holding Go values avoid the
// second pass over the encoding with [Writer.WriteValue].
//
// WriteRecord returns an error wrapping [ErrInvalidRecord] for anything but
// one JSON value (including empty input), after which the Writer is still
// usable and nothing was written; [ErrNoHeader] before WriteHeader;
// [ErrClosed] after Commit or Abort; and otherwise any error writing the
// file.
func (w *Writer) WriteRecord(record []byte) error {
	if err := w.checkRecord(); err != nil {
		return err
	}
	line := record
	if bytes.IndexByte(record, '\n') >= 0 || bytes.IndexByte(record, '\r') >= 0 {
		w.buf.Reset()
		if err := json.Compact(&w.buf, record); err != nil {
			return w.invalid(err)
		}
		line = w.buf.Bytes()
	} else if !valid(record) {
		// Valid gives no reason; Compact finds it, on this rare path.
		var discard bytes.Buffer
		return w.invalid(json.Compact(&discard, record))
	}
	err := w.writeValid(line)
	if w.buf.Cap() > maxRetainedBuffer {
		w.buf = bytes.Buffer{}
	}
	return err
}

// WriteValid writes line as the next record of w, as [Writer.WriteRecord]
// does, but without validating it: line must be exactly one JSON value,
// without a line break, as the caller has checked. The offload core reads
// every record once, to describe it, and that read validates it: a second
// validation would cost about as much again as the read itself. It returns
// the errors of WriteRecord other than its ErrInvalidRecord.
func WriteValid(w *Writer, line []byte) error { return w.writeValid(line) }

// writeValid writes line, one JSON value without a line break, as the next
// record: WriteRecord once it has validated the record, or [WriteValid].
func (w *Writer) writeValid(line []byte) error {
	if err := w.checkRecord(); err != nil {
		return err
	}
	if err := w.writeLine(line); err != nil {
		return err
	}
	w.count++
	return nil
}

// invalid returns the error of WriteRecord for an invalid record.
func (w *Writer) invalid(reason error) error {
	return fmt.Errorf("%w: %s: record %d: %w", ErrInvalidRecord, w.label(), w.count+1, reason)
}

// WriteValue writes v, encoded as by [json.Marshal], as one record line. It
// is the faster alternative to json.Marshal followed by
// [Writer.WriteRecord]: the encoding is copied into the file's buffer without
// a new slice per record, and is not validated a second time. Unlike
// json.Marshal, it does not escape <, > and & in strings, so that grep finds
// them as they are.
//
// WriteValue returns the encoding error of a value json.Marshal rejects,
// after which nothing was written and the Writer is still usable;
// [ErrNoHeader] before WriteHeader; [ErrClosed] after Commit or Abort; and
// otherwise any error writing the file.
func (w *Writer) WriteValue(v any) error {
	if err := w.checkRecord(); err != nil {
		return err
	}
	if w.enc == nil {
		w.enc = json.NewEncoder(sink{w})
		w.enc.SetEscapeHTML(false)
	}
	// Encode marshals v completely before its single Write of the value and
	// a '\n', so an encoding error leaves the file untouched.
	if err := w.enc.Encode(v); err != nil {
		if w.err != nil {
			return w.err
		}
		return fmt.Errorf("jsonl: %s: record %d: %w", w.label(), w.count+1, err)
	}
	w.count++
	return nil
}

// sink is the io.Writer WriteValue's encoder writes to.
type sink struct{ w *Writer }

func (s sink) Write(p []byte) (int, error) {
	if err := s.w.write(p); err != nil {
		return 0, err
	}
	return len(p), nil
}

// check returns the error that forbids any further write, if any.
func (w *Writer) check() error {
	if w.done {
		return ErrClosed
	}
	return w.err
}

// checkRecord is check plus the requirement of a header.
func (w *Writer) checkRecord() error {
	if err := w.check(); err != nil {
		return err
	}
	if !w.headerWritten {
		return ErrNoHeader
	}
	return nil
}

// write writes p, whole lines only, and records the first error.
func (w *Writer) write(p []byte) error {
	n, err := w.bw.Write(p)
	w.size += int64(n)
	return w.fail(err)
}

// writeLine writes p and a '\n', and records the first error.
func (w *Writer) writeLine(p []byte) error {
	if err := w.write(p); err != nil {
		return err
	}
	err := w.bw.WriteByte('\n')
	if err == nil {
		w.size++
	}
	return w.fail(err)
}

// fail records err, if not nil, as the Writer's sticky error.
func (w *Writer) fail(err error) error {
	if err != nil {
		w.err = fmt.Errorf("jsonl: %w", err) // *fs.PathError names the file
	}
	return w.err
}

// Count returns the number of records written so far.
func (w *Writer) Count() int { return w.count }

// Size returns the bytes written so far, header line included: after a
// successful Commit, the size of the file.
func (w *Writer) Size() int64 { return w.size }

// Commit finishes the file and moves it to Path.
//
// Commit checks that the number of records written equals the header's
// count, flushes the temporary file, renames it to [Writer.Path] and closes
// it, which releases its lock (where there is no flock(2), it is closed
// before the rename, as Windows requires). The rename is atomic: a reader
// sees no file at Path before it and the complete file after it. Commit does
// not fsync: the files are ephemeral results, syncing would cost
// milliseconds per call, and after a crash at most a temporary file is left,
// which a janitor removes (see package [github.com/zircote/lro-go/cleanup]).
//
// If any step fails, Commit removes the temporary file and returns the error,
// so nothing is left on disk. It returns [ErrNoHeader] if WriteHeader was not
// called, an error wrapping [ErrCountMismatch] naming the path and both
// counts, the first error of an earlier write, any error flushing, closing or
// renaming, and [ErrClosed] if the Writer was already committed or aborted.
//
// For a Writer of [NewWriter], Commit flushes the buffer to the Sink and
// commits it instead of renaming; if anything fails before, it aborts the
// Sink. It returns only once the Sink's Commit has, and succeeds only if
// that did.
func (w *Writer) Commit() error {
	if w.done {
		return ErrClosed
	}
	err := w.err
	switch {
	case err != nil:
	case !w.headerWritten:
		err = ErrNoHeader
	case w.count != w.headerCount:
		err = fmt.Errorf("%w: %s: header count %d, %d records written",
			ErrCountMismatch, w.label(), w.headerCount, w.count)
	default:
		err = w.bw.Flush()
		if err == nil {
			err = w.finish()
		}
		if err != nil {
			err = fmt.Errorf("jsonl: %w", err)
		}
	}
	if err != nil {
		if rmErr := w.discard(); rmErr != nil {
			err = errors.Join(err, rmErr)
		}
		return err
	}
	w.release()
	return nil
}

// Abort discards the file: it closes and removes the temporary file. Abort is
// idempotent and does nothing after a successful Commit, so it is meant to be
// deferred right after [Create]. Abort of a nil *Writer does nothing too. It
// returns an error only if the temporary file exists and could not be
// removed. For a Writer of [NewWriter], it aborts the Sink and returns its
// error.
func (w *Writer) Abort() error {
	if w == nil || w.done {
		return nil
	}
	return w.discard()
}

// finish closes the flushed temporary file and renames it to the final
// path. Where Writers lock their files, the rename comes first: the file is
// locked until it has its final name, which a janitor never opens, so no
// janitor can take it for a leftover in between. After a rename, a failed
// close (a network file system may report a deferred write error there)
// removes the final file: it may be incomplete.
func (w *Writer) finish() error {
	if w.sink != nil {
		sink := w.sink
		w.sink = nil // committed or failed: not to be aborted
		return sink.Commit()
	}
	if !locks {
		err := w.f.Close()
		w.f = nil
		if err != nil {
			return err
		}
		return os.Rename(w.tmp, w.path)
	}
	if err := os.Rename(w.tmp, w.path); err != nil {
		return err
	}
	err := w.f.Close()
	w.f = nil
	if err != nil {
		os.Remove(w.path)
	}
	return err
}

// discard removes and closes the temporary file and releases the Writer.
// Where Writers lock their files, the file is removed before it is closed,
// so that it stays locked (and no janitor's business) until it is gone.
func (w *Writer) discard() error {
	if w.tmp == "" { // a Writer of NewWriter
		var err error
		if w.sink != nil {
			err = w.sink.Abort()
			w.sink = nil
		}
		w.release()
		if err != nil {
			return fmt.Errorf("jsonl: %s: abort: %w", w.name, err)
		}
		return nil
	}
	if w.f != nil && !locks {
		w.f.Close() // error irrelevant: the file is being removed
		w.f = nil
	}
	err := os.Remove(w.tmp)
	if w.f != nil {
		w.f.Close()
		w.f = nil
	}
	w.release()
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("jsonl: %w", err)
	}
	return nil
}

// release marks the Writer done and returns its buffers.
func (w *Writer) release() {
	w.done = true
	if w.bw != nil {
		w.bw.Reset(nil)
		bufPool.Put(w.bw)
		w.bw = nil
	}
	w.buf = bytes.Buffer{}
	w.enc = nil
}

// ValidatePrefix reports whether prefix can be used as [Options.Prefix]: it
// returns an error wrapping [ErrInvalidPrefix] and naming prefix unless
// prefix is empty (meaning [DefaultPrefix]) or is at most 64 bytes of
// [A-Za-z0-9_.-] not starting with a dot. Such a prefix cannot form a hidden
// file, a path or, with the operation and ULID, a name of more than 255
// bytes.
func ValidatePrefix(prefix string) error {
	if len(prefix) > maxPrefixLen {
		return fmt.Errorf("%w %q: longer than %d bytes", ErrInvalidPrefix, prefix, maxPrefixLen)
	}
	if strings.HasPrefix(prefix, ".") {
		return fmt.Errorf("%w %q: starts with a dot", ErrInvalidPrefix, prefix)
	}
	for i := 0; i < len(prefix); i++ {
		if c := prefix[i]; !isLowerAlnum(c) && !('A' <= c && c <= 'Z') && c != '_' && c != '.' && c != '-' {
			return fmt.Errorf("%w %q: byte %q not in [A-Za-z0-9_.-]", ErrInvalidPrefix, prefix, c)
		}
	}
	return nil
}

// SanitizeOperation makes op safe for a file name.
//
// It lower-cases ASCII letters, keeps ASCII digits and letters, and turns
// every other rune (and '_') into a '_' separator; runs of separators become
// one '_' and separators at either end are dropped. The result is cut to at
// most 48 bytes, again without a trailing '_'. If nothing is left, it returns
// "result". So "Recall" gives "recall", "search memories" and
// "search-memories" give "search_memories", "記憶" gives "result".
//
// The result matches ^[a-z0-9]+(_[a-z0-9]+)*$, in particular contains no '-'
// (which separates the parts of a file name), and SanitizeOperation returns
// it unchanged. SanitizeOperation allocates nothing when op is already
// sanitized.
func SanitizeOperation(op string) string {
	if isSanitized(op) {
		return op
	}
	b := make([]byte, 0, min(len(op), maxOperationLen))
	sep := false // a separator is pending before the next kept byte
	for i := 0; i < len(op); i++ {
		c := op[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if !isLowerAlnum(c) {
			// Bytes of multi-byte runes land here too: each rune is
			// one run of separators, so it becomes one '_'.
			sep = len(b) > 0 // dropped at the start
			continue
		}
		n := 1
		if sep {
			n = 2
		}
		if len(b)+n > maxOperationLen {
			break
		}
		if sep {
			b = append(b, '_')
			sep = false
		}
		b = append(b, c)
	}
	if len(b) == 0 {
		return fallbackOperation
	}
	return string(b)
}

// isSanitized reports whether SanitizeOperation(op) == op.
func isSanitized(op string) bool {
	if len(op) == 0 || len(op) > maxOperationLen || op[0] == '_' || op[len(op)-1] == '_' {
		return false
	}
	for i := 0; i < len(op); i++ {
		if c := op[i]; c == '_' {
			if op[i-1] == '_' {
				return false
			}
		} else if !isLowerAlnum(c) {
			return false
		}
	}
	return true
}

// isLowerHex reports whether s is all lower-case hex digits.
func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func isLowerAlnum(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }

// Name returns the base name of an offloaded file:
// "{prefix}-{operation}-{ulid}.jsonl", with operation passed through
// [SanitizeOperation] and the ULID in its canonical 26-character form. An
// empty prefix means [DefaultPrefix]; prefix is otherwise used as is, so it
// should satisfy [ValidatePrefix]. [ParseName] reverses Name.
func Name(prefix, operation string, id ulid.ULID) string {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	return prefix + "-" + SanitizeOperation(operation) + "-" + id.String() + ext
}

// ParseName parses a base name made by Name.
//
// It reports ok only for "{prefix}-{operation}-{ulid}.jsonl", or
// "{prefix}-{operation}-{ulid}-{random}.jsonl" (see [Options.Random]) where
// random is 32 lower-case hex digits, where prefix is
// the given one (empty means [DefaultPrefix]), operation is in the form
// [SanitizeOperation] gives (words of [a-z0-9] joined by single '_', at most
// 48 bytes), and ulid is a valid ULID in canonical upper-case form, as [Name]
// writes them. It returns false for anything else, in particular for
// temporary files ("." + name + ".tmp") and for files of another prefix, even
// one that extends this prefix with "-": operations contain no '-'. When ok,
// Name(prefix, operation, id) == base (once its random part, if any, is
// cut), and id.Time() is the file's creation time, which a janitor compares
// with its TTL.
func ParseName(base, prefix string) (operation string, id ulid.ULID, ok bool) {
	if prefix == "" {
		prefix = DefaultPrefix
	}
	rest, found := strings.CutPrefix(base, prefix)
	if !found || !strings.HasPrefix(rest, "-") {
		return "", ulid.ULID{}, false
	}
	rest, found = strings.CutSuffix(rest[1:], ext)
	if n := len(rest) - 2*randomBytes - 1; found && n > 0 && rest[n] == '-' && isLowerHex(rest[n+1:]) {
		rest = rest[:n] // the random part of Options.Random
	}
	// rest is now "{operation}-{ulid}" with a non-empty operation.
	if !found || len(rest) < 1+1+ulid.EncodedSize {
		return "", ulid.ULID{}, false
	}
	op, idText := rest[:len(rest)-ulid.EncodedSize-1], rest[len(rest)-ulid.EncodedSize:]
	if rest[len(op)] != '-' {
		return "", ulid.ULID{}, false
	}
	if SanitizeOperation(op) != op { // allocates nothing for a sanitized op
		return "", ulid.ULID{}, false
	}
	id, err := ulid.ParseStrict(idText)
	if err != nil || id.String() != idText { // also rejects lower case
		return "", ulid.ULID{}, false
	}
	return op, id, true
}

// ReadHeader reads the header line from r.
//
// The line may be of any length. If r is a *bufio.Reader, ReadHeader reads
// exactly the header line from it, so the caller can go on reading records
// from the same reader; otherwise it may read past the first line.
//
// ReadHeader returns an error wrapping [ErrNotOffloadFile] if the input is
// empty, the line is not a JSON object or its "type" is not [HeaderType]; an
// error wrapping [ErrInvalidHeader] for a negative count; and any error
// reading r.
func ReadHeader(r io.Reader) (FileHeader, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	name := "input"
	if f, ok := r.(interface{ Name() string }); ok { // *os.File
		name = f.Name()
	}
	line, err := br.ReadBytes('\n')
	if err != nil && !(errors.Is(err, io.EOF) && len(line) > 0) {
		if errors.Is(err, io.EOF) {
			return FileHeader{}, fmt.Errorf("%w: %s: empty", ErrNotOffloadFile, name)
		}
		return FileHeader{}, fmt.Errorf("jsonl: reading header of %s: %w", name, err)
	}
	return parseHeader(line, name)
}

// parseHeader parses the header line, with or without its line ending, of
// the file called name in errors.
func parseHeader(line []byte, name string) (FileHeader, error) {
	var h FileHeader
	if err := json.Unmarshal(line, &h); err != nil {
		return FileHeader{}, fmt.Errorf("%w: %s: first line: %w", ErrNotOffloadFile, name, err)
	}
	if h.Type != HeaderType {
		return FileHeader{}, fmt.Errorf("%w: %s: first line has type %q, want %q", ErrNotOffloadFile, name, h.Type, HeaderType)
	}
	if h.Count < 0 {
		return FileHeader{}, fmt.Errorf("%w: %s: negative count %d", ErrInvalidHeader, name, h.Count)
	}
	return h, nil
}

// ReadFile reads a whole offloaded file.
//
// It returns the header and one [json.RawMessage] per record line, in order.
// Lines may be of any length and may end in "\r\n"; the last line needs no
// line ending. The records share one buffer holding the file but each is
// capped to its line, so appending to one cannot overwrite another.
//
// ReadFile returns the errors of [ReadHeader] and, naming the path and the
// line, an error wrapping [ErrInvalidRecord] for a line (an empty one
// included) that is not exactly one JSON value, and an error wrapping
// [ErrCountMismatch] if the number of record lines is not the header's count.
func ReadFile(path string) (FileHeader, []json.RawMessage, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return FileHeader{}, nil, fmt.Errorf("jsonl: %w", err)
	}
	line, data, _ := bytes.Cut(data, []byte{'\n'})
	h, err := parseHeader(line, path)
	if err != nil {
		return FileHeader{}, nil, err
	}
	records := make([]json.RawMessage, 0, min(h.Count, bytes.Count(data, []byte{'\n'})+1))
	for n := 2; len(data) > 0; n++ {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			i = len(data)
		}
		rec := data[:i:i]
		rec = bytes.TrimSuffix(rec, []byte{'\r'})
		if !valid(rec) {
			return FileHeader{}, nil, fmt.Errorf("%w: %s: line %d is not one JSON value", ErrInvalidRecord, path, n)
		}
		records = append(records, json.RawMessage(rec))
		data = data[min(i+1, len(data)):]
	}
	if len(records) != h.Count {
		return FileHeader{}, nil, fmt.Errorf("%w: %s: header count %d, %d record lines",
			ErrCountMismatch, path, h.Count, len(records))
	}
	return h, records, nil
}

// valid reports whether b is exactly one JSON value, as [json.Valid] does:
// duplicate names and invalid UTF-8 in strings are allowed.
func valid(b []byte) bool {
	return jsontext.Value(b).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
}
