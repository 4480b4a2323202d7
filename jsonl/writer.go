package jsonl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zircote/lro-go/internal/disk"
	"github.com/zircote/lro-go/internal/rawjson"
	"github.com/zircote/lro-go/internal/spec"
)

const (
	bufferSize        = 64 << 10 // a typical file takes a few writes
	maxRetainedBuffer = 1 << 20  // a larger compaction buffer is dropped
)

// Writer writes one offloaded file. Not safe for concurrent use.
//
// A Writer is made by [Create] or [NewWriter]. Call WriteHeader once, then
// WriteRecord once per record, then Commit. Defer Abort right after Create:
// it removes the temporary file on every path that does not reach a
// successful Commit, and does nothing after one.
//
// Until Commit the data lives in a hidden temporary file next to
// [Writer.Path], "." + its name + ".tmp". After an error from a write the
// Writer should be aborted; after any error from Commit the temporary file
// is already gone. A panic in a write leaves the Writer abortable too.
type Writer struct {
	path string    // where the file is once committed
	sink disk.Sink // the destination, if it can Commit and Abort; nil once done
	op   string    // operation as given to Create, for the header's default
	now  func() time.Time

	bw  *bufio.Writer
	buf bytes.Buffer // the header's encoding, then records compacted

	headerCount   int
	headerWritten bool
	count         int
	size          int64
	err           error // first write error; sticky
	done          bool  // committed or aborted
}

// bufPool recycles the write buffers of finished Writers.
var bufPool = sync.Pool{New: func() any { return bufio.NewWriterSize(nil, bufferSize) }}

// NewWriter returns a Writer of the file of operation that writes to w,
// rather than to a folder of its own: to a bucket's upload, a pipe or a
// buffer. path is where the file is once committed (Path returns it; it may
// be a bucket's object name), which errors name. The Writer buffers its
// lines; Commit flushes them to w once the count is right, then, if w has a
// method Commit() error, calls it and returns once it has. Abort, or a
// Commit that fails, calls w's method Abort() error, if it has one, in
// place of Commit: w hears one of them, once.
func NewWriter(w io.Writer, path, operation string) *Writer {
	wr := &Writer{path: path, op: operation, now: time.Now}
	switch d := w.(type) {
	case disk.Sink:
		wr.sink = d
	case committer, aborter:
		wr.sink = partialSink{w}
	}
	wr.bw = bufPool.Get().(*bufio.Writer)
	wr.bw.Reset(w)
	return wr
}

type (
	committer interface{ Commit() error }
	aborter   interface{ Abort() error }
)

// partialSink is the Sink of a destination of NewWriter with a method
// Commit or Abort but not both: the one it lacks does nothing.
type partialSink struct{ io.Writer }

func (p partialSink) Commit() error {
	if c, ok := p.Writer.(committer); ok {
		return c.Commit()
	}
	return nil
}

func (p partialSink) Abort() error {
	if a, ok := p.Writer.(aborter); ok {
		return a.Abort()
	}
	return nil
}

// Path returns where the file is once committed: its absolute path for a
// Writer of [Create], the path given to [NewWriter] otherwise.
func (w *Writer) Path() string { return w.path }

// WriteHeader writes the header line, exactly once, before any record:
// "type":"lro_header" first, then the fields of h, h.Operation being the
// operation given to Create or NewWriter if empty and h.Timestamp the
// current time in UTC with milliseconds if empty, then the members of
// h.Extension. Strings are written without escaping <, > and &.
// It returns an error for a second call, a negative count or an extension
// that is not one JSON object, and any error writing the file.
func (w *Writer) WriteHeader(h Header) error {
	if err := w.check(); err != nil {
		return err
	}
	if w.headerWritten {
		return errHeaderWritten
	}
	if h.Count < 0 {
		return fmt.Errorf("%w: %s: negative count %d", errInvalidHeader, w.path, h.Count)
	}
	if h.Operation == "" {
		h.Operation = w.op
	}
	if h.Timestamp == "" {
		h.Timestamp = w.now().UTC().Format(disk.TimestampLayout)
	}
	w.buf.Reset()
	enc := json.NewEncoder(&w.buf) // as json.Marshal, but that <, > and & stay
	enc.SetEscapeHTML(false)
	err := enc.Encode(wireHeader{spec.HeaderType, h})
	line := w.buf.Bytes()
	if err == nil && len(h.Extension) > 0 {
		line, err = extend(line, h.Extension)
	}
	if err != nil {
		return fmt.Errorf("jsonl: %s: header: %w", w.path, err)
	}
	if err := w.write(line); err != nil { // Encode ended it with '\n'
		return err
	}
	w.headerWritten = true
	w.headerCount = h.Count
	return nil
}

// extend returns line, a JSON object and '\n', with the members of the
// object ext after its own. A member of ext named as a field of the
// specification's header (without regard to case, as encoding/json reads
// names) is refused: after the field, it would replace it for every reader.
func extend(line, ext []byte) ([]byte, error) {
	var c bytes.Buffer
	if err := json.Compact(&c, ext); err != nil || c.Bytes()[0] != '{' {
		return nil, fmt.Errorf("extension %.40q is not one JSON object: %w", ext, err)
	}
	if c.Len() == 2 { // {}
		return line, nil
	}
	var field jsontext.Value
	rawjson.Members(c.Bytes(), func(name, _ jsontext.Value) bool {
		unquoted := rawjson.String(name[1 : len(name)-1]) // read only
		if bytes.IndexByte(name, '\\') >= 0 {
			unquoted = rawjson.Unquote(name)
		}
		if specName(unquoted) {
			field = name
		}
		return field == nil
	})
	if field != nil {
		return nil, fmt.Errorf("extension member %s is a field of the header", field)
	}
	out := make([]byte, 0, len(line)+c.Len())
	out = append(append(out, line[:len(line)-2]...), ',') // without "}\n"
	return append(append(out, c.Bytes()[1:]...), '\n'), nil
}

// WriteRecord writes one record line. record must be exactly one JSON
// value; white space around and inside it is allowed. A record with a line
// break is written in compact form, any other byte for byte, and the record
// is not retained. Every record is validated, so that one malformed line can
// never break jq on the whole file: after an error wrapping
// [errInvalidRecord], nothing was written and the Writer is still usable.
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
	return w.WriteValid(line)
}

// WriteValid writes line as the next record, as [Writer.WriteRecord] does,
// but without validating it, for a caller that has: line must be exactly
// one JSON value without a line break, such as one a JSON decoder has read
// (this module's offloaders write their records so: validating them again
// would take about as long as the rest of an offload). It returns the
// other errors of WriteRecord.
func (w *Writer) WriteValid(line []byte) error {
	if err := w.checkRecord(); err != nil {
		return err
	}
	if w.write(line) != nil || w.write(newline) != nil {
		return w.err
	}
	w.count++
	if w.buf.Cap() > maxRetainedBuffer {
		w.buf = bytes.Buffer{}
	}
	return nil
}

// invalid returns the error of WriteRecord for an invalid record.
func (w *Writer) invalid(reason error) error {
	return fmt.Errorf("%w: %s: record %d: %w", errInvalidRecord, w.path, w.count+1, reason)
}

// check returns the error that forbids any further write, if any.
func (w *Writer) check() error {
	if w.done {
		return errClosed
	}
	return w.err
}

// checkRecord is check plus the requirement of a header.
func (w *Writer) checkRecord() error {
	if err := w.check(); err != nil {
		return err
	}
	if !w.headerWritten {
		return errNoHeader
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

// Size returns the bytes written so far, header line included: after a
// successful Commit, the size of the file.
func (w *Writer) Size() int64 { return w.size }

// Commit checks that the number of records written equals the header's
// count, flushes the temporary file and renames it to [Writer.Path], at
// once: a reader sees no file at Path before and the complete file after.
// It does not fsync: the files are ephemeral, and after a crash at most a
// temporary file is left, which a janitor removes. For a Writer of
// [NewWriter], Commit flushes to its io.Writer and commits that instead
// (see NewWriter). If any step fails (or an earlier write did), Commit
// removes the temporary file (aborts the io.Writer) and returns the error.
func (w *Writer) Commit() error {
	if w.done {
		return errClosed
	}
	err := w.err
	switch {
	case err != nil:
	case !w.headerWritten:
		err = errNoHeader
	case w.count != w.headerCount:
		err = fmt.Errorf("%w: %s: header count %d, %d records written",
			errCountMismatch, w.path, w.headerCount, w.count)
	default:
		if err = w.bw.Flush(); err == nil {
			if sink := w.sink; sink != nil {
				w.sink = nil // committed or failed: not to be aborted
				err = sink.Commit()
			}
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

// Abort discards the file (removes the temporary file, or aborts the
// io.Writer of NewWriter). It is idempotent and does nothing after a
// successful Commit, or for a nil *Writer. It returns an error only if the
// temporary file exists and could not be removed, or the io.Writer's Abort
// failed.
func (w *Writer) Abort() error {
	if w == nil || w.done {
		return nil
	}
	return w.discard()
}

// discard aborts the destination and releases the Writer.
func (w *Writer) discard() error {
	var err error
	if w.sink != nil {
		err = w.sink.Abort()
		w.sink = nil
	}
	w.release()
	if err != nil {
		return fmt.Errorf("jsonl: %s: abort: %w", filepath.Base(w.path), err)
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
}
