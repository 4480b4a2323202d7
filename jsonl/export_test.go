package jsonl

import (
	"github.com/zircote/lro-go/internal/disk"
	"github.com/zircote/lro-go/internal/spec"
)

// What the external tests of the package reach inside it.
var (
	CreateWith = create // Create with a clock and a wrapping writer

	ErrInvalidPrefix = disk.ErrInvalidPrefix // wrapped by Create's error for a bad prefix

	ErrNoHeader      = errNoHeader
	ErrHeaderWritten = errHeaderWritten
	ErrInvalidHeader = errInvalidHeader
	ErrInvalidRecord = errInvalidRecord
	ErrCountMismatch = errCountMismatch
	ErrClosed        = errClosed
)

// BufferSize is the size of a Writer's buffer.
const BufferSize = bufferSize
const HeaderType = spec.HeaderType
