package offload

import (
	"encoding/json"
	"fmt"

	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro/internal/describe"
)

// FileHeader is the header line as the engine writes it: the
// specification's fields, then, in jsonl.Header.Extension, "result",
// "records_at", "copies" and "redacted", with which [Rebuild] puts a result
// back together.
type FileHeader struct {
	jsonl.Header
	Shape
}

// Shape is the engine's part of a header line: the shape of the result the
// records were taken out of.
type Shape struct {
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
// [Shape.Result].
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

// Copy is a value of a [Shape.Result] that repeats another of its
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

// writeHeader writes h as the header line of w.
func writeHeader(w *jsonl.Writer, h FileHeader) error {
	ext, err := describe.Marshal(h.Shape) // not escaped for HTML, as jsonl writes the rest of the line
	if err != nil {
		return fmt.Errorf("jsonl: %s: header: %w", w.Path(), err)
	}
	h.Header.Extension = ext
	return w.WriteHeader(h.Header)
}

// ReadFile reads the offloaded file at path (see [jsonl.ReadFile]), with
// the header's extension decoded into its Shape.
func ReadFile(path string) (FileHeader, []json.RawMessage, error) {
	h, lines, err := jsonl.ReadFile(path)
	if err != nil {
		return FileHeader{}, nil, err
	}
	fh := FileHeader{Header: h}
	fh.Extension = nil
	if len(h.Extension) > 0 {
		err = json.Unmarshal(h.Extension, &fh.Shape)
	}
	return fh, lines, err
}
