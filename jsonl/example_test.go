package jsonl_test

import (
	"bytes"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/zircote/lro-go/jsonl"
)

func ExampleCreate() {
	dir, err := os.MkdirTemp("", "lro-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	w, err := jsonl.Create("recall", &jsonl.Options{Dir: dir})
	if err != nil {
		log.Fatal(err)
	}
	defer w.Abort() // removes the temporary file unless Commit succeeded

	query := "why offload?"
	err = w.WriteHeader(jsonl.Header{
		Query:           &query,
		Count:           2,
		SchemaVersion:   "1.0",
		Timestamp:       "2026-11-21T13:31:00.123Z", // if empty, the current time
		EstimatedTokens: 2400,
		Detail:          "light",
	})
	if err != nil {
		log.Fatal(err)
	}
	if err := w.WriteRecord([]byte(`{"id":"m1","title":"Context is finite"}`)); err != nil {
		log.Fatal(err)
	}
	// Indented JSON is compacted to one line.
	if err := w.WriteRecord([]byte("{\n  \"id\": \"m2\",\n  \"title\": \"Files are cheap\"\n}")); err != nil {
		log.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		log.Fatal(err)
	}

	name := filepath.Base(w.Path()) // atlatl-recall-{ulid}.jsonl
	fmt.Println(strings.HasPrefix(name, "atlatl-recall-"), len(name), w.Size())
	data, err := os.ReadFile(w.Path())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(data))
	h, records, err := jsonl.ReadFile(w.Path())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(h.Operation, h.Count, len(records))
	// Output:
	// true 46 257
	// {"type":"lro_header","operation":"recall","query":"why offload?","count":2,"schema_version":"1.0","timestamp":"2026-11-21T13:31:00.123Z","estimated_tokens":2400,"detail":"light"}
	// {"id":"m1","title":"Context is finite"}
	// {"id":"m2","title":"Files are cheap"}
	// recall 2 2
}

func ExampleNewWriter() {
	var buf bytes.Buffer // or a bucket's upload, with Commit and Abort methods
	w := jsonl.NewWriter(&buf, "recall.jsonl", "recall")
	defer w.Abort()
	if err := w.WriteHeader(jsonl.Header{Count: 1, Timestamp: "2026-11-21T13:31:00.123Z"}); err != nil {
		log.Fatal(err)
	}
	if err := w.WriteRecord([]byte(`{"id":"m1"}`)); err != nil {
		log.Fatal(err)
	}
	if err := w.Commit(); err != nil {
		log.Fatal(err)
	}
	fmt.Print(buf.String())
	// Output:
	// {"type":"lro_header","operation":"recall","query":null,"count":1,"schema_version":"","timestamp":"2026-11-21T13:31:00.123Z","estimated_tokens":0,"detail":""}
	// {"id":"m1"}
}
