package jsonl

// What the external tests of the package reach inside it.
var (
	CreateWith = create // Create with a clock and a wrapping writer

	ErrNoHeader      = errNoHeader
	ErrHeaderWritten = errHeaderWritten
	ErrInvalidHeader = errInvalidHeader
	ErrInvalidRecord = errInvalidRecord
	ErrCountMismatch = errCountMismatch
	ErrClosed        = errClosed
)

// BufferSize is the size of a Writer's buffer.
const BufferSize = bufferSize
const HeaderType = headerType
