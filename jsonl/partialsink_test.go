package jsonl_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/zircote/lro-go/jsonl"
)

// commitOnly is a destination with a method Commit() error and no Abort.
type commitOnly struct {
	bytes.Buffer
	commits int
	err     error
}

func (c *commitOnly) Commit() error { c.commits++; return c.err }

// abortOnly is a destination with a method Abort() error and no Commit.
type abortOnly struct {
	bytes.Buffer
	aborts int
}

func (a *abortOnly) Abort() error { a.aborts++; return nil }

// TestNewWriterOneMethod: as NewWriter says, a destination's Commit is
// called if it has one, and its Abort if it has one, each alone. Neither
// was called unless the destination had both: a Commit that failed (an
// upload that did not complete) was not even called, and the Writer's
// Commit reported the file committed.
func TestNewWriterOneMethod(t *testing.T) {
	boom := errors.New("upload failed")
	c := &commitOnly{err: boom}
	w := jsonl.NewWriter(c, "", "recall")
	if err := w.WriteHeader(jsonl.Header{}); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); !errors.Is(err, boom) || c.commits != 1 {
		t.Errorf("Commit to a destination with Commit alone = %v, its Commit called %d times; want its error, once", err, c.commits)
	}

	a := &abortOnly{}
	w = jsonl.NewWriter(a, "", "recall")
	if err := w.WriteHeader(jsonl.Header{}); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil || a.aborts != 1 {
		t.Errorf("Abort to a destination with Abort alone = %v, its Abort called %d times; want nil, once", err, a.aborts)
	}
	a = &abortOnly{}
	w = jsonl.NewWriter(a, "", "recall")
	if err := w.WriteHeader(jsonl.Header{}); err != nil {
		t.Fatal(err)
	}
	if err := w.Commit(); err != nil || a.aborts != 0 || a.Len() == 0 {
		t.Errorf("Commit to a destination with Abort alone = %v, its Abort called %d times, %d bytes written; want nil, none, the file", err, a.aborts, a.Len())
	}
}
