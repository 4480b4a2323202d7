package jsonlfile

import (
	"bufio"
	"bytes"
	"cmp"
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

	"github.com/oklog/ulid/v2"

	"github.com/zircote/lro-go/internal/expiry"
	"github.com/zircote/lro-go/internal/tempname"
)

const (
	timestampLayout   = "2006-01-02T15:04:05.000Z07:00" // RFC 3339, UTC, milliseconds
	bufferSize        = 64 << 10                        // a typical file takes a few writes
	maxRetainedBuffer = 1 << 20                         // a larger compaction buffer is dropped
	createAttempts    = 8                               // retries of Create on a name collision
	// Results may contain private data.
	fileMode fs.FileMode = 0o600
	dirMode  fs.FileMode = 0o700
)

// locks reports that this system has flock(2): a Writer holds an exclusive
// lock on its temporary file until Commit or Abort, so that a janitor tells
// a live write from the leftover of a dead process. Without it, a temporary
// file is closed before it is renamed or removed, as Windows requires.
const locks = tempname.Locks

// Writer writes one offloaded file (see package jsonl). Not safe for
// concurrent use.
//
// Until Commit the data lives in a hidden temporary file next to
// [Writer.Path], "." + its name + ".tmp". After an error from a write, the
// Writer should be aborted; after any error from Commit, the temporary file
// is already gone. A panic in a write leaves the Writer abortable too.
type Writer struct {
	name string // final base name
	path string // final absolute path; "" for a Sink of NewWriter
	sink Sink   // a temporary file, or the Sink of NewWriter; nil once done
	id   ulid.ULID
	op   string // operation as given to Create, for the header's default
	now  func() time.Time

	bw  *bufio.Writer
	buf bytes.Buffer  // reused to compact records
	enc *json.Encoder // made on first WriteValue

	headerCount   int
	headerWritten bool
	count         int
	size          int64
	err           error // first write error; sticky
	done          bool  // committed or aborted
}

// bufPool recycles the write buffers of finished Writers.
var bufPool = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, bufferSize) }}

// Create starts a new file for operation in opts.Dir made absolute, or
// [os.TempDir], which it makes with every missing parent with mode 0700
// (and never changes the mode of a directory that exists). The file's name
// is [Name](prefix, operation, id) with a new ULID of time opts.Now(); the
// data is written to a temporary file in the same directory, created
// exclusively with mode 0600 whatever the umask, and locked until Commit or
// Abort. Create retries with a new ULID should either name exist, or a
// janitor remove the new temporary file before it is locked.
//
// Create returns the *fs.PathError of a directory or file it could not
// create.
func Create(operation string, opts *Options) (*Writer, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	o.Dir = cmp.Or(o.Dir, os.TempDir())
	dir, err := filepath.Abs(o.Dir)
	if err != nil {
		return nil, fmt.Errorf("jsonl: directory %q: %w", o.Dir, err)
	}
	if err := prepareDir(dir); err != nil {
		return nil, err
	}
	var expires func() time.Time
	if o.TTL > 0 {
		expires = func() time.Time { return o.Now().Add(o.TTL) }
	}
	return NewWriter(operation, func(name string) (Sink, error) { return createTemp(dir, name, expires) }, &o)
}

// NewWriter starts a new file for operation, named as by Create (opts.Dir is
// not used), that is written to the Sink open returns for its name instead
// of a folder: [Writer.Path] is empty, [Writer.Commit] commits the Sink and
// [Writer.Abort], or a Commit that fails, aborts it. When Create's temporary
// file cannot take its name, NewWriter draws a new one, up to
// createAttempts times. If opts.WrapWriter panics,
// the Sink is aborted before the panic goes on.
func NewWriter(operation string, open func(name string) (Sink, error), opts *Options) (*Writer, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	now := o.Now()
	for attempt := 1; ; attempt++ {
		id, err := newID(ulid.Timestamp(now))
		if err != nil {
			return nil, fmt.Errorf("jsonl: file id for time %v: %w", now, err)
		}
		name := Name(o.Prefix, operation, id)
		if o.Random {
			var b [randomBytes]byte
			rand.Read(b[:]) // never fails
			name = strings.TrimSuffix(name, ext) + "-" + hex.EncodeToString(b[:]) + ext
		}
		sink, err := open(name)
		if r, ok := err.(retry); ok {
			if attempt < createAttempts {
				continue
			}
			err = r.error
		}
		if err != nil {
			return nil, err
		}
		w := &Writer{name: name, id: id, op: operation, now: o.Now, sink: sink}
		if t, ok := sink.(*tempFile); ok {
			w.path = t.path
		}
		defer func() {
			if w.bw == nil { // WrapWriter panicked
				w.discard()
			}
		}()
		dst := io.Writer(sink)
		if o.WrapWriter != nil {
			dst = o.WrapWriter(dst)
		}
		w.bw = bufPool.Get().(*bufio.Writer)
		w.bw.Reset(dst)
		return w, nil
	}
}

// retry is the error of a Sink that open could not make under its name,
// but could under another.
type retry struct{ error }

// withDefaults returns a copy of opts, which may be nil, with the defaults
// of Prefix and Now, or the error of an invalid Prefix.
func (opts *Options) withDefaults() (Options, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	o.Prefix = cmp.Or(o.Prefix, DefaultPrefix)
	if o.Now == nil {
		o.Now = time.Now
	}
	return o, ValidatePrefix(o.Prefix)
}

// tempFile is the Sink of [Create]: a hidden temporary file, renamed to
// path on Commit.
type tempFile struct {
	f         *os.File
	tmp, path string
	expires   func() time.Time // the expiry to record on Commit; nil for none
}

func (t *tempFile) Write(p []byte) (int, error) { return t.f.Write(p) }

// createTemp creates, exclusively, and locks the temporary file of the
// file named name in dir.
func createTemp(dir, name string, expires func() time.Time) (Sink, error) {
	t := &tempFile{path: filepath.Join(dir, name), tmp: filepath.Join(dir, tempname.Of(name)), expires: expires}
	// Rename replaces an existing file: the final name must be free too.
	if _, err := os.Lstat(t.path); err == nil {
		return nil, retry{fmt.Errorf("jsonl: %w", &fs.PathError{Op: "create", Path: t.path, Err: fs.ErrExist})}
	}
	f, err := os.OpenFile(t.tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, fileMode)
	if errors.Is(err, fs.ErrExist) {
		return nil, retry{fmt.Errorf("jsonl: %w", err)}
	}
	if err != nil {
		return nil, fmt.Errorf("jsonl: %w", err)
	}
	t.f = f
	if afterCreate != nil {
		afterCreate(t.tmp)
	}
	// The lock waits for a janitor that holds it (only to remove the file).
	// A janitor tells a live Writer from a leftover by the lock alone: one
	// that found the file unlocked in between has removed it. A file system
	// without locks leaves the file unlocked, which is no reason to fail: a
	// janitor that cannot lock it either keeps it for a long grace period.
	var removed bool
	if locks {
		if err = tempname.Lock(f, true); err == nil || errors.Is(err, tempname.ErrNoLock) {
			removed, err = tempname.Unlinked(f)
		}
	}
	if removed && err == nil {
		f.Close()
		return nil, retry{fmt.Errorf("jsonl: %w", &fs.PathError{Op: "lock", Path: t.tmp, Err: fs.ErrNotExist})}
	}
	if err == nil {
		err = f.Chmod(fileMode) // OpenFile's mode is reduced by the umask: set it exactly
	}
	if err != nil {
		t.Abort()
		return nil, fmt.Errorf("jsonl: %w", err)
	}
	return t, nil
}

// Commit records the expiry on the flushed temporary file, then closes it
// and renames it, or removes it when either fails. Where Writers lock their
// files, the rename comes first: the file is locked until it has its final
// name, which a janitor never opens. After a rename, a failed close (a
// deferred write error) removes the final file: it may be incomplete.
// Nothing is done to the file by its path after the rename: in a folder
// that another user could write to, the name could lead elsewhere by then.
func (t *tempFile) Commit() error {
	if t.expires != nil {
		// Best effort, as a file system without modes may refuse: a file
		// without the mark is judged by the time of its name.
		expiry.Record(t.f, t.expires())
	}
	if !locks {
		err := t.f.Close()
		if err == nil {
			err = os.Rename(t.tmp, t.path)
		}
		if err != nil {
			return errors.Join(err, t.remove())
		}
		return nil
	}
	if err := os.Rename(t.tmp, t.path); err != nil {
		return errors.Join(err, t.Abort())
	}
	err := t.f.Close()
	if err != nil {
		os.Remove(t.path)
	}
	return err
}

// Abort removes and closes the temporary file. Where Writers lock their
// files, the file is removed before it is closed, so that it stays locked
// until it is gone.
func (t *tempFile) Abort() error {
	if !locks {
		t.f.Close() // error irrelevant: the file is being removed
	}
	err := t.remove()
	if locks {
		t.f.Close()
	}
	return err
}

// remove removes the temporary file, if it is still there.
func (t *tempFile) remove() error {
	if err := os.Remove(t.tmp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// afterCreate, if not nil, is called with the temporary file's path between
// its creation and its lock. Tests set it to act as a janitor could.
var afterCreate func(tmp string)

// newID returns a new ULID for the time ms (Unix milliseconds), monotonic
// within a millisecond in this process, or from crypto/rand should the
// monotonic entropy overflow. A variable, so that tests can force name
// collisions.
var newID = func(ms uint64) (ulid.ULID, error) {
	id, err := ulid.New(ms, ulid.DefaultEntropy())
	if errors.Is(err, ulid.ErrMonotonicOverflow) {
		return ulid.New(ms, rand.Reader)
	}
	return id, err
}

// prepareDir checks that the folder dir is safe ([CheckDir]) and makes
// what is missing of it; the folder is then checked whole, with what
// another user may have made of it meanwhile.
func prepareDir(dir string) error {
	whole, err := checkDir(dir)
	if err != nil || whole {
		return err
	}
	if err := mkdirAll(dir); err != nil {
		return fmt.Errorf("jsonl: %w", err)
	}
	return CheckDir(dir)
}

// mkdirAll is os.MkdirAll with mode 0700 applied exactly, whatever the
// umask, to the directories it creates; those that exist are left alone.
// The folders above dir that exist must be safe (see [CheckDir]), so that
// nobody else can replace a folder between its making and its chmod.
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

// CreatedAt returns the creation time carried by the file's ULID, in UTC,
// truncated to the millisecond: what a janitor reads back with [ParseName].
func (w *Writer) CreatedAt() time.Time { return ulid.Time(w.id.Time()).UTC() }

// WriteHeader writes the header line, exactly once, before any record. It
// sets h.Type to [HeaderType], h.Operation to the operation given to Create
// if empty, and h.Timestamp to [Options.Now] in UTC with milliseconds if
// empty. Strings are written without escaping <, > and &. It returns the
// errors its sentinels name, or any error writing the file.
func (w *Writer) WriteHeader(h Header) error {
	return WriteFileHeader(w, FileHeader{Header: h})
}

// WriteFileHeader is [Writer.WriteHeader] of a header with this module's
// fields.
func WriteFileHeader(w *Writer, h FileHeader) error {
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
	line, err := w.encode(h)
	if err != nil { // cannot fail for this struct
		return fmt.Errorf("jsonl: %s: header: %w", w.label(), err)
	}
	if err := w.write(line); err != nil { // Encode ended it with '\n'
		return err
	}
	w.headerWritten = true
	w.headerCount = h.Count
	return nil
}

// WriteRecord writes one record line. record must be exactly one JSON
// value; white space around and inside it is allowed. A record with a line
// break is written in compact form, any other byte for byte, and the record
// is not retained. Every record is validated, so that one malformed line can
// never break jq on the whole file: after an error wrapping
// [ErrInvalidRecord], nothing was written and the Writer is still usable.
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
	return WriteValid(w, line)
}

// WriteValid writes line as the next record of w, as [Writer.WriteRecord]
// does, but without validating it: line must be exactly one JSON value
// without a line break, as the caller has checked (the offload pipeline's
// one read of each record validates it). It returns the errors of
// WriteRecord other than its ErrInvalidRecord.
func WriteValid(w *Writer, line []byte) error {
	if err := w.checkRecord(); err != nil {
		return err
	}
	if err := w.write(line); err != nil {
		return err
	}
	if err := w.write(newline); err != nil {
		return err
	}
	w.count++
	if w.buf.Cap() > maxRetainedBuffer {
		w.buf = bytes.Buffer{}
	}
	return nil
}

// invalid returns the error of WriteRecord for an invalid record.
func (w *Writer) invalid(reason error) error {
	return fmt.Errorf("%w: %s: record %d: %w", ErrInvalidRecord, w.label(), w.count+1, reason)
}

// WriteValue writes v, encoded as by [json.Marshal] but without escaping <,
// > and &, as one record line, without validating the encoding again. After
// an encoding error, nothing was written and the Writer is still usable.
func (w *Writer) WriteValue(v any) error {
	if err := w.checkRecord(); err != nil {
		return err
	}
	line, err := w.encode(v)
	if err != nil {
		return fmt.Errorf("jsonl: %s: record %d: %w", w.label(), w.count+1, err)
	}
	return WriteValid(w, line[:len(line)-1]) // without Encode's '\n'
}

// encode returns the JSON of v, as json.Marshal writes it but without
// escaping <, > and &, and a newline, in w.buf.
func (w *Writer) encode(v any) ([]byte, error) {
	w.buf.Reset()
	if w.enc == nil {
		w.enc = json.NewEncoder(&w.buf)
		w.enc.SetEscapeHTML(false)
	}
	err := w.enc.Encode(v)
	return w.buf.Bytes(), err
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

var newline = []byte{'\n'}

// write writes p and records the first error, sticky.
func (w *Writer) write(p []byte) error {
	n, err := w.bw.Write(p)
	w.size += int64(n)
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

// Commit checks that the number of records written equals the header's
// count, flushes the temporary file and renames it to [Writer.Path], at
// once: a reader sees no file at Path before and the complete file after.
// It does not fsync: the files are ephemeral, and after a crash at most a
// temporary file is left, which a janitor removes. For a Writer of
// [NewWriter], Commit commits the Sink instead, and returns once its Commit
// has. If any step fails (or an earlier write did), Commit removes the
// temporary file (aborts the Sink) and returns the error.
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
		if err = w.bw.Flush(); err == nil {
			sink := w.sink
			w.sink = nil // committed or failed: not to be aborted
			err = sink.Commit()
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

// Abort discards the file (removes the temporary file, or aborts the Sink).
// It is idempotent and does nothing after a successful Commit, or for a nil
// *Writer, so it is meant to be deferred right after [Create]. It returns an
// error only if the temporary file exists and could not be removed, or the
// Sink's Abort failed.
func (w *Writer) Abort() error {
	if w == nil || w.done {
		return nil
	}
	return w.discard()
}

// discard aborts the Sink and releases the Writer.
func (w *Writer) discard() error {
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
