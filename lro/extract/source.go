package extract

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"unicode/utf8"

	"github.com/zircote/lro-go/jsonl"
)

const (
	maxHeaderBytes = 1 << 20  // bounds the header line, which the offloader keeps small
	readBuffer     = 64 << 10 // the size of a source's read buffer
)

// source reads one offloaded file line by line, within the limits of a call.
type source struct {
	ctx    context.Context
	f      *os.File      // the file in a folder; nil for an object of a bucket
	obj    *object       // the object of a bucket; nil for a file
	closer io.Closer     // what Close closes
	br     *bufio.Reader // reads the file or the object
	path   string        // absolute path, or handle, for messages
	header jsonl.Header
	head   string // the header line as written
	line   int    // number of the last line read; the header is line 1
	read   int64  // bytes read so far
	limit  int64  // MaxInputBytes
	buf    []byte
	unread [][]byte // lines read ahead, which next returns first
}

// errLineTooLong is wrapped when a line is longer than the caller's limit.
var errLineTooLong = errors.New("line too long")

// withSource runs f on the file r names, opened with its header read.
func (c *config) withSource(ctx context.Context, r ref, f func(ctx context.Context, src *source) error) error {
	src, err := c.openSource(ctx, r)
	if err != nil {
		return err
	}
	defer src.Close()
	return f(ctx, src)
}

// openSource opens the file r names, in the folder or the bucket, and
// reads its header.
func (c *config) openSource(ctx context.Context, r ref) (*source, error) {
	if c.Store != nil && c.Store.Bucket() != nil {
		return c.openObject(ctx, r)
	}
	f, abs, err := c.openFile(ctx, r)
	if err != nil {
		return nil, err
	}
	// pread: the server and a worker share f, not a position.
	s, err := newSource(ctx, io.NewSectionReader(f, 0, math.MaxInt64), f, abs, c.MaxInputBytes)
	if err != nil {
		return nil, c.headerError(ctx, r, err)
	}
	s.f = f
	return s, nil
}

// headerError is the tool error for a file whose header could not be read.
func (c *config) headerError(ctx context.Context, r ref, err error) error {
	var te *toolError
	switch {
	case errors.As(err, &te):
		return err
	case ctx.Err() != nil:
		return c.stopped(ctx)
	case errors.Is(err, io.EOF):
		return errorf("%s is empty, not an offloaded file", r)
	}
	return errorf("%s is not an offloaded file: line 1 is not a valid header (%v)", r, err)
}

// newSource reads r from its start, header first, within limit bytes;
// closer is closed by Close or an error.
func newSource(ctx context.Context, r io.Reader, closer io.Closer, path string, limit int64) (*source, error) {
	s := &source{ctx: ctx, br: bufio.NewReaderSize(r, readBuffer), closer: closer, path: path, limit: limit}
	line, err := s.next(maxHeaderBytes)
	if err == nil {
		s.head = string(line)
		s.header, err = jsonl.ReadHeader(bytes.NewReader(line))
	}
	if err != nil {
		closer.Close()
		return nil, err
	}
	return s, nil
}

// Close closes the file, or ends the read of the object.
func (s *source) Close() error { return s.closer.Close() }

// lines is the number of lines the header announces, header included (a
// header's count is not checked: within 1 and math.MaxInt).
func (s *source) lines() int { return addSat(max(s.header.Count, 0), 1, math.MaxInt) }

// next returns the next line without its line ending, valid until the next
// call, or io.EOF after the last one; lines of unread come first. A line
// longer than maxLen is skipped with an error wrapping errLineTooLong (with
// maxLen < 0, without one); reading past MaxInputBytes or the call's end
// fails.
func (s *source) next(maxLen int) ([]byte, error) {
	if len(s.unread) > 0 {
		line := s.unread[0]
		s.unread = s.unread[1:]
		s.line++
		return line, nil
	}
	s.buf = s.buf[:0]
	size := 0
	for {
		chunk, err := s.chunk()
		if err != nil && err != bufio.ErrBufferFull && err != io.EOF {
			return nil, err
		}
		size += len(chunk)
		tooLong := size-1 > maxLen // a byte for the '\n'; maxLen+1 would overflow at math.MaxInt
		switch {
		case err == nil && size == len(chunk) && !tooLong:
			// The whole line in one piece, the usual case: no copy.
			s.line++
			return trimEOL(chunk), nil
		case !tooLong:
			s.buf = append(s.buf, chunk...)
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case size == 0:
			return nil, io.EOF
		}
		s.line++
		if tooLong && maxLen >= 0 {
			if err == nil {
				size-- // the '\n'
			}
			return nil, fmt.Errorf("%w: line %d is %d bytes", errLineTooLong, s.line, size)
		}
		return trimEOL(s.buf), nil
	}
}

// chunk reads the next piece of a line, within MaxInputBytes and the call's
// time. Its error is nil at the end of a line, bufio.ErrBufferFull if the
// line goes on, io.EOF at the end of the file, or why the read failed: the
// call's own end, or the failure as a tool error.
func (s *source) chunk() ([]byte, error) {
	b, err := s.br.ReadSlice('\n')
	s.read += int64(len(b))
	switch {
	case s.read > s.limit:
		return nil, errorf("stopped after reading %d bytes of %s, the limit of one call (MaxInputBytes); narrow the request (lro_read with a line range) or ask the server's owner to raise the limit", s.limit, s.path)
	case errors.Is(err, io.EOF):
		return b, io.EOF
	case s.ctx.Err() != nil:
		return nil, s.ctx.Err()
	case err != nil && err != bufio.ErrBufferFull:
		return nil, errorf("reading %s: %v", s.path, err)
	}
	return b, err
}

func trimEOL(b []byte) []byte {
	return bytes.TrimSuffix(bytes.TrimSuffix(b, []byte("\n")), []byte("\r"))
}

// lineRange reads the next line piece by piece and returns at most count
// of its characters (runes) from offset, holding no more, and the length of
// the line in characters. ok is false at the end of the file.
func (s *source) lineRange(offset, count int) (text string, total int, ok bool, err error) {
	var out []byte
	var carry []byte // an incomplete rune at the end of the last chunk
	pos := 0         // characters seen so far
	sawAny := false
	for {
		chunk, rerr := s.chunk()
		if rerr != nil && rerr != bufio.ErrBufferFull && rerr != io.EOF {
			return "", 0, false, rerr
		}
		sawAny = sawAny || len(chunk) > 0
		last := rerr != bufio.ErrBufferFull
		data := chunk
		if len(carry) > 0 {
			data = append(carry, chunk...)
			carry = nil
		}
		if last {
			data = trimEOL(data) // as next does
		}
		// Keep an incomplete rune for the next chunk, and a '\r' that may
		// be the first byte of the line's CRLF.
		cut := len(data)
		for i := cut - 1; !last && i >= max(cut-utf8.UTFMax, 0); i-- {
			if utf8.RuneStart(data[i]) {
				if !utf8.FullRune(data[i:]) || data[i] == '\r' && i == cut-1 {
					cut = i
				}
				break
			}
		}
		carry, data = bytes.Clone(data[cut:]), data[:cut]
		n := utf8.RuneCount(data)
		if a, b := max(pos, offset), min(pos+n, offset+count); a < b {
			part := string(data) // a chunk of the few in range
			i := runeOffset(part, a-pos)
			out = append(out, part[i:i+runeOffset(part[i:], b-a)]...)
		}
		pos += n
		switch {
		case rerr == bufio.ErrBufferFull:
			continue
		case !sawAny:
			return "", 0, false, nil
		}
		s.line++
		return string(out), pos, true, nil
	}
}
