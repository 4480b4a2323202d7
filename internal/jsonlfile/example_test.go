package jsonlfile_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/oklog/ulid/v2"
	"github.com/zircote/lro-go/internal/jsonlfile"
)

func ExampleCreate() {
	dir, err := os.MkdirTemp("", "lro-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// A fixed clock makes the header's timestamp reproducible.
	now := func() time.Time { return time.Date(2026, 11, 21, 13, 31, 0, 123e6, time.UTC) }
	w, err := jsonlfile.Create("recall", &jsonlfile.Options{Dir: dir, Now: now})
	if err != nil {
		log.Fatal(err)
	}
	defer w.Abort() // removes the temporary file unless Commit succeeded

	query := "why offload?"
	err = w.WriteHeader(jsonlfile.Header{
		Query:           &query,
		Count:           2,
		SchemaVersion:   "1.0",
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

	op, _, _ := jsonlfile.ParseName(filepath.Base(w.Path()), jsonlfile.DefaultPrefix)
	fmt.Println(op, w.CreatedAt().Format(time.RFC3339Nano), w.Size())
	data, err := os.ReadFile(w.Path())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(data))
	// Output:
	// recall 2026-11-21T13:31:00.123Z 257
	// {"type":"lro_header","operation":"recall","query":"why offload?","count":2,"schema_version":"1.0","timestamp":"2026-11-21T13:31:00.123Z","estimated_tokens":2400,"detail":"light"}
	// {"id":"m1","title":"Context is finite"}
	// {"id":"m2","title":"Files are cheap"}
}

func ExampleParseName() {
	for _, base := range []string{
		"atlatl-recall-01M7Z4V5MVAEP07QR38R3NRT04.jsonl",
		"atlatl-inject_context-01M7Z4V5MVAEP07QR38R3NRT04.jsonl",
		".atlatl-recall-01M7Z4V5MVAEP07QR38R3NRT04.jsonl.tmp", // in progress
		"other-recall-01M7Z4V5MVAEP07QR38R3NRT04.jsonl",       // another prefix
		"notes.jsonl",
	} {
		op, id, ok := jsonlfile.ParseName(base, jsonlfile.DefaultPrefix)
		if !ok {
			fmt.Println("not an offloaded file:", base)
			continue
		}
		created := ulid.Time(id.Time()).UTC()
		fmt.Println(op, created.Format(time.RFC3339Nano))
	}
	// Output:
	// recall 2026-11-21T13:31:00.123Z
	// inject_context 2026-11-21T13:31:00.123Z
	// not an offloaded file: .atlatl-recall-01M7Z4V5MVAEP07QR38R3NRT04.jsonl.tmp
	// not an offloaded file: other-recall-01M7Z4V5MVAEP07QR38R3NRT04.jsonl
	// not an offloaded file: notes.jsonl
}

func ExampleSanitizeOperation() {
	fmt.Println(jsonlfile.SanitizeOperation("recall"))
	fmt.Println(jsonlfile.SanitizeOperation("Search-Memories"))
	fmt.Println(jsonlfile.SanitizeOperation("../../etc/passwd"))
	fmt.Println(jsonlfile.SanitizeOperation("記憶"))
	// Output:
	// recall
	// search_memories
	// etc_passwd
	// result
}
