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

// maxHeaderBytes bounds the header line, which the offloader keeps small.
const maxHeaderBytes = 1 << 20

// source reads one offloaded file line by line, within the limits of a call.
type source struct {
	ctx    context.Context
	f      *os.File
	br     *bufio.Reader
	path   string // absolute path, for messages
	header jsonl.Header
	head   string // the header line as written
	line   int    // number of the last line read; the header is line 1
	read   int64  // bytes read so far
	limit  int64  // MaxInputBytes
	buf    []byte
}

// errLineTooLong is wrapped when a line is longer than the caller's limit.
var errLineTooLong = errors.New("line too long")

// openSource opens path and reads its header.
func (c *config) openSource(ctx context.Context, path string) (*source, error) {
	f, abs, err := c.openFile(path)
	if err != nil {
		return nil, err
	}
	s, err := newSource(ctx, f, abs, c.MaxInputBytes)
	if err != nil {
		f.Close()
		if errors.Is(err, io.EOF) {
			return nil, errorf("file_path %q is empty, not an offloaded file", path)
		}
		return nil, errorf("file_path %q is not an offloaded file: line 1 is not a valid header (%v)", path, err)
	}
	return s, nil
}

// newSource reads the open file f from its start, header first, within
// limit bytes. It reads at offsets (pread), so that the server and a
// worker that share f do not share a position.
func newSource(ctx context.Context, f *os.File, path string, limit int64) (*source, error) {
	s := &source{ctx: ctx, f: f, br: bufio.NewReaderSize(io.NewSectionReader(f, 0, math.MaxInt64), 64<<10), path: path, limit: limit}
	line, err := s.next(maxHeaderBytes)
	if err != nil {
		return nil, err
	}
	s.head = string(line)
	s.header, err = jsonl.ReadHeader(bytes.NewReader(line))
	return s, err
}

func (s *source) Close() error { return s.f.Close() }

// lines is the number of lines the header announces, header included.
func (s *source) lines() int { return s.header.Count + 1 }

// next returns the next line without its line ending, or io.EOF after the
// last one. A line longer than maxLen is skipped and reported with an error
// wrapping errLineTooLong; reading past MaxInputBytes or after the call's
// deadline fails. The returned slice is valid until the next call.
func (s *source) next(maxLen int) ([]byte, error) {
	if err := s.ctx.Err(); err != nil {
		return nil, err
	}
	s.buf = s.buf[:0]
	tooLong := false
	size := 0
	for {
		chunk, err := s.br.ReadSlice('\n')
		s.read += int64(len(chunk))
		size += len(chunk)
		if s.read > s.limit {
			return nil, s.inputLimit()
		}
		if err == nil && size == len(chunk) && size <= maxLen+1 {
			// The whole line in one piece, the usual case: no copy. The
			// slice is valid until the next read, as documented.
			s.line++
			return trimEOL(chunk), nil
		}
		if !tooLong {
			if size > maxLen+1 { // +1 for the '\n'
				tooLong = true
				s.buf = s.buf[:0]
			} else {
				s.buf = append(s.buf, chunk...)
			}
		}
		switch {
		case err == nil:
			s.line++
			if tooLong {
				return nil, fmt.Errorf("%w: line %d is %d bytes", errLineTooLong, s.line, size-1)
			}
			return trimEOL(s.buf), nil
		case errors.Is(err, bufio.ErrBufferFull):
			if err := s.ctx.Err(); err != nil {
				return nil, err
			}
			continue
		case errors.Is(err, io.EOF):
			if size == 0 {
				return nil, io.EOF
			}
			s.line++
			if tooLong {
				return nil, fmt.Errorf("%w: line %d is %d bytes", errLineTooLong, s.line, size)
			}
			return trimEOL(s.buf), nil
		default:
			return nil, errorf("reading %s: %v", s.path, err)
		}
	}
}

func (s *source) inputLimit() error {
	return errorf("stopped after reading %d bytes of %s, the limit of one call (MaxInputBytes); narrow the request (lro_read with a line range) or ask the server's owner to raise the limit", s.limit, s.path)
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

// skipLine skips the next line. ok is false at the end of the file.
func (s *source) skipLine() (ok bool, err error) {
	if err := s.ctx.Err(); err != nil {
		return false, err
	}
	size := 0
	for {
		chunk, err := s.br.ReadSlice('\n')
		s.read += int64(len(chunk))
		size += len(chunk)
		if s.read > s.limit {
			return false, s.inputLimit()
		}
		switch {
		case err == nil:
			s.line++
			return true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			if err := s.ctx.Err(); err != nil {
				return false, err
			}
		case errors.Is(err, io.EOF):
			if size == 0 {
				return false, nil
			}
			s.line++
			return true, nil
		default:
			return false, errorf("reading %s: %v", s.path, err)
		}
	}
}

// lineRange reads the next line piece by piece and returns its characters
// (runes) from offset, at most count of them, and the length of the whole line
// in characters. It holds at most count characters in memory, however long
// the line. ok is false at the end of the file.
func (s *source) lineRange(offset, count int) (text string, total int, ok bool, err error) {
	if err := s.ctx.Err(); err != nil {
		return "", 0, false, err
	}
	var out []byte
	var carry []byte // an incomplete rune at the end of the last chunk
	pos := 0         // characters seen so far
	sawAny := false
	for {
		chunk, rerr := s.br.ReadSlice('\n')
		s.read += int64(len(chunk))
		if s.read > s.limit {
			return "", 0, false, s.inputLimit()
		}
		if len(chunk) > 0 {
			sawAny = true
		}
		last := rerr == nil || errors.Is(rerr, io.EOF)
		if rerr == nil {
			chunk = chunk[:len(chunk)-1]
			if n := len(chunk); n > 0 && chunk[n-1] == '\r' {
				chunk = chunk[:n-1]
			}
		}
		data := chunk
		if len(carry) > 0 {
			data = append(carry, chunk...)
			carry = nil
		}
		if !last {
			// Keep an incomplete rune for the next chunk.
			cut := len(data)
			for i := 1; i <= utf8.UTFMax && i <= len(data); i++ {
				if utf8.RuneStart(data[len(data)-i]) {
					if !utf8.FullRune(data[len(data)-i:]) {
						cut = len(data) - i
					}
					break
				}
			}
			carry = append([]byte(nil), data[cut:]...)
			data = data[:cut]
		}
		n := utf8.RuneCount(data)
		if a, b := max(pos, offset), min(pos+n, offset+count); a < b {
			i := runeOffset(data, a-pos)
			j := i + runeOffset(data[i:], b-a)
			out = append(out, data[i:j]...)
		}
		pos += n
		switch {
		case rerr == nil:
			s.line++
			return string(out), pos, true, nil
		case errors.Is(rerr, io.EOF):
			if !sawAny {
				return "", 0, false, nil
			}
			s.line++
			return string(out), pos, true, nil
		case errors.Is(rerr, bufio.ErrBufferFull):
			if err := s.ctx.Err(); err != nil {
				return "", 0, false, err
			}
		default:
			return "", 0, false, errorf("reading %s: %v", s.path, rerr)
		}
	}
}

// runeOffset returns the byte offset in b after its first k runes.
func runeOffset(b []byte, k int) int {
	i := 0
	for ; k > 0 && i < len(b); k-- {
		_, size := utf8.DecodeRune(b[i:])
		i += size
	}
	return i
}
