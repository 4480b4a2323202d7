// Package jsonl writes offloaded result sets as JSONL files.
package jsonl

import (
	"encoding/json"
	"io"
	"time"

	"github.com/oklog/ulid/v2"
)

// HeaderType is the value of the header line's "type" field.
const HeaderType = "lro_header"

// DefaultPrefix is the file name prefix used when [Options.Prefix] is empty.
const DefaultPrefix = "atlatl"

// Header is the first line of an offloaded file.
type Header struct {
	Type            string  `json:"type"`
	Operation       string  `json:"operation"`
	Query           *string `json:"query"`
	Count           int     `json:"count"`
	SchemaVersion   string  `json:"schema_version"`
	Timestamp       string  `json:"timestamp"`
	EstimatedTokens int     `json:"estimated_tokens"`
	Detail          string  `json:"detail"`
}

// Options configure [Create]. A nil *Options uses every default.
type Options struct {
	Dir    string           // If empty, defaults to os.TempDir().
	Prefix string           // If empty, defaults to DefaultPrefix.
	Now    func() time.Time // If nil, defaults to time.Now.
}

// Writer writes one offloaded file. Not safe for concurrent use.
type Writer struct{}

// Create starts a new file for operation.
func Create(operation string, opts *Options) (*Writer, error) { panic("TODO") }

// Path returns the absolute path the file will have after Commit.
func (w *Writer) Path() string { panic("TODO") }

// CreatedAt returns the creation time carried by the file's ULID.
func (w *Writer) CreatedAt() time.Time { panic("TODO") }

// WriteHeader writes the header line.
func (w *Writer) WriteHeader(h Header) error { panic("TODO") }

// WriteRecord writes one record line.
func (w *Writer) WriteRecord(record []byte) error { panic("TODO") }

// Count returns the number of records written so far.
func (w *Writer) Count() int { panic("TODO") }

// Size returns the bytes written so far.
func (w *Writer) Size() int64 { panic("TODO") }

// Commit finishes the file and moves it to Path.
func (w *Writer) Commit() error { panic("TODO") }

// Abort discards the file.
func (w *Writer) Abort() error { panic("TODO") }

// SanitizeOperation makes op safe for a file name.
func SanitizeOperation(op string) string { panic("TODO") }

// Name returns the base name of an offloaded file.
func Name(prefix, operation string, id ulid.ULID) string { panic("TODO") }

// ParseName parses a base name made by Name.
func ParseName(base, prefix string) (operation string, id ulid.ULID, ok bool) { panic("TODO") }

// ReadHeader reads the header line from r.
func ReadHeader(r io.Reader) (Header, error) { panic("TODO") }

// ReadFile reads a whole offloaded file.
func ReadFile(path string) (Header, []json.RawMessage, error) { panic("TODO") }
