package jsonl_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zircote/lro-go/jsonl"
)

func TestReadHeader(t *testing.T) {
	long := strings.Repeat("q", 1<<20) // far beyond bufio.Scanner's 64 KiB
	tests := []struct {
		name    string
		in      string
		want    jsonl.Header
		wantErr error
		reason  string
	}{
		{"minimal", `{"type":"lro_header","count":2}` + "\n", jsonl.Header{Count: 2}, nil, "missing fields are zero"},
		{"no newline", `{"type":"lro_header"}`, jsonl.Header{}, nil, "a header-only file may lack the final newline"},
		{"crlf", "{\"type\":\"lro_header\"}\r\n{}\r\n", jsonl.Header{}, nil, "Windows line endings"},
		{"long", `{"type":"lro_header","query":"` + long + `"}` + "\n", jsonl.Header{Query: &long}, nil, "a header line of any length"},
		{"unknown field", `{"type":"lro_header","future":1}`, jsonl.Header{Extension: json.RawMessage(`{"future":1}`)}, nil, "newer writers may add fields, read as the extension"},
		{"empty", "", jsonl.Header{}, jsonl.ErrNotOffloadFile, "no first line"},
		{"record first", `{"id":"m1"}` + "\n", jsonl.Header{}, jsonl.ErrNotOffloadFile, "a JSONL file without header"},
		{"other type", `{"type":"lro_footer"}`, jsonl.Header{}, jsonl.ErrNotOffloadFile, "type must be lro_header"},
		{"not json", "hello\n", jsonl.Header{}, jsonl.ErrNotOffloadFile, "not JSON at all"},
		{"array", `[1]`, jsonl.Header{}, jsonl.ErrNotOffloadFile, "not an object"},
		{"negative count", `{"type":"lro_header","count":-1}`, jsonl.Header{}, jsonl.ErrInvalidHeader, "a count is never negative"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := jsonl.ReadHeader(strings.NewReader(tc.in))
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil) != (err == nil) {
				t.Fatalf("ReadHeader error = %v, want %v: %s", err, tc.wantErr, tc.reason)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s\nReadHeader mismatch (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

// TestReadHeaderBufio checks that a *bufio.Reader is left at the first record.
func TestReadHeaderBufio(t *testing.T) {
	br := bufio.NewReader(strings.NewReader(`{"type":"lro_header","count":1}` + "\n" + `{"id":1}` + "\n"))
	if _, err := jsonl.ReadHeader(br); err != nil {
		t.Fatal(err)
	}
	line, err := br.ReadString('\n')
	if err != nil || line != `{"id":1}`+"\n" {
		t.Errorf("next line = %q, %v; want the first record", line, err)
	}
}
