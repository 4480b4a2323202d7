package jsonl

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/zircote/lro-go/internal/rawjson"
	"github.com/zircote/lro-go/internal/spec"
)

// ReadHeader reads the header line from r: the specification's fields, and
// the others in [Header.Extension].
//
// The line may be of any length. If r is a *bufio.Reader, ReadHeader reads
// exactly the header line from it, so the caller can go on reading records
// from the same reader; otherwise it may read past the first line.
//
// ReadHeader returns an error wrapping [ErrNotOffloadFile] if the input is
// empty, the line is not a JSON object or its "type" is not "lro_header",
// an error for a negative count, and any error reading r.
func ReadHeader(r io.Reader) (Header, error) {
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
			return Header{}, fmt.Errorf("%w: %s: empty", ErrNotOffloadFile, name)
		}
		return Header{}, fmt.Errorf("jsonl: reading header of %s: %w", name, err)
	}
	return parseHeader(line, name)
}

// parseHeader parses the header line of the file called name in errors.
func parseHeader(line []byte, name string) (Header, error) {
	var wire wireHeader
	if err := json.Unmarshal(line, &wire); err != nil {
		return Header{}, fmt.Errorf("%w: %s: first line: %w", ErrNotOffloadFile, name, err)
	}
	if wire.Type != spec.HeaderType {
		return Header{}, fmt.Errorf("%w: %s: first line has type %q, want %q", ErrNotOffloadFile, name, wire.Type, spec.HeaderType)
	}
	h := wire.Header
	if h.Count < 0 {
		return Header{}, fmt.Errorf("%w: %s: negative count %d", errInvalidHeader, name, h.Count)
	}
	h.Extension = extension(line)
	return h, nil
}

// specNames are the names of the specification's header fields, quoted.
var specNames = map[string]bool{`"type"`: true, `"operation"`: true, `"query"`: true, `"count"`: true,
	`"schema_version"`: true, `"timestamp"`: true, `"estimated_tokens"`: true, `"detail"`: true}

// specName reports whether the member name (unquoted) is one of the
// specification's header fields to encoding/json, which matches names
// without regard to case.
func specName(name string) bool {
	for quoted := range specNames {
		if strings.EqualFold(quoted[1:len(quoted)-1], name) {
			return true
		}
	}
	return false
}

// extension returns the members of the JSON object line whose names are
// not the specification's, as one object, or nil for none.
func extension(line []byte) json.RawMessage {
	var ext []byte
	rawjson.Members(line, func(name, value jsontext.Value) bool { // the line is valid JSON
		if !specNames[string(name)] {
			ext = append(append(append(append(ext, ','), name...), ':'), value...)
		}
		return true
	})
	if ext == nil {
		return nil
	}
	ext[0] = '{'
	return append(ext, '}')
}

// ReadFile reads a whole offloaded file.
//
// It returns the header and one [json.RawMessage] per record line, in order.
// Lines may be of any length and may end in "\r\n"; the last line needs no
// line ending. The records share one buffer, each capped to its line.
//
// ReadFile returns the errors of [ReadHeader] and, naming the path and the
// line, an error for a line (an empty one included) that is not exactly one
// JSON value, and an error if the number of record lines is not the
// header's count.
func ReadFile(path string) (Header, []json.RawMessage, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Header{}, nil, fmt.Errorf("jsonl: %w", err)
	}
	line, data, _ := bytes.Cut(data, []byte{'\n'})
	h, err := parseHeader(line, path)
	if err != nil {
		return Header{}, nil, err
	}
	records := make([]json.RawMessage, 0, min(h.Count, bytes.Count(data, []byte{'\n'})+1))
	for line := range bytes.Lines(data) {
		rec := bytes.TrimSuffix(bytes.TrimSuffix(line, []byte{'\n'}), []byte{'\r'})
		if !valid(rec) {
			return Header{}, nil, fmt.Errorf("%w: %s: line %d is not one JSON value", errInvalidRecord, path, len(records)+2)
		}
		records = append(records, json.RawMessage(rec[:len(rec):len(rec)]))
	}
	if len(records) != h.Count {
		return Header{}, nil, fmt.Errorf("%w: %s: header count %d, %d record lines",
			errCountMismatch, path, h.Count, len(records))
	}
	return h, records, nil
}

// valid reports whether b is exactly one JSON value, as [json.Valid] does.
func valid(b []byte) bool {
	return jsontext.Value(b).IsValid(rawjson.DecodeOptions...)
}
