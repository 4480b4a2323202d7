// Package recordline lets the offload core (internal/offload) write record
// lines through a jsonl.Writer without jsonl validating them again: the core
// reads every record once, to describe it, and that read validates it. A
// second validation would cost about as much again as the read itself.
//
// It is internal to this module: [jsonl.Writer.WriteRecord] validates every
// record, and is what everyone else calls.
//
// [jsonl.Writer.WriteRecord]: https://pkg.go.dev/github.com/zircote/lro-go/jsonl#Writer.WriteRecord
package recordline

// Write writes line as the next record of w, which must be a *jsonl.Writer,
// as its WriteRecord does, but without validating line: line must be
// exactly one JSON value, without a line break, as the caller has checked.
// It returns the errors of WriteRecord other than its ErrInvalidRecord.
//
// Package jsonl sets Write when it is initialized; w's package is then
// initialized, so Write is never nil where a *jsonl.Writer exists.
var Write func(w any, line []byte) error
