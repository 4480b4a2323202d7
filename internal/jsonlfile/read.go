package jsonlfile

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/go-json-experiment/json/jsontext"
)

// ReadHeader reads the header line from r, with this module's fields, as
// package jsonl's ReadHeader says; a negative count is an error wrapping
// [ErrInvalidHeader].
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

// parseHeader parses the header line of the file called name in errors.
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

// ReadFile reads a whole offloaded file, with this module's header fields,
// as package jsonl's ReadFile says: its errors wrap [ErrInvalidRecord] and
// [ErrCountMismatch]. The records share one buffer, each capped to its line.
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
	for line := range bytes.Lines(data) {
		rec := bytes.TrimSuffix(bytes.TrimSuffix(line, []byte{'\n'}), []byte{'\r'})
		if !valid(rec) {
			return FileHeader{}, nil, fmt.Errorf("%w: %s: line %d is not one JSON value", ErrInvalidRecord, path, len(records)+2)
		}
		records = append(records, json.RawMessage(rec[:len(rec):len(rec)]))
	}
	if len(records) != h.Count {
		return FileHeader{}, nil, fmt.Errorf("%w: %s: header count %d, %d record lines",
			ErrCountMismatch, path, h.Count, len(records))
	}
	return h, records, nil
}

// valid reports whether b is exactly one JSON value, as [json.Valid] does.
func valid(b []byte) bool {
	return jsontext.Value(b).IsValid(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
}
