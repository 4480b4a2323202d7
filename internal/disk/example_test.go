package disk_test

import (
	"fmt"
	"time"

	"github.com/oklog/ulid/v2"
	"github.com/zircote/lro-go/internal/disk"
	"github.com/zircote/lro-go/internal/spec"
)

func ExampleParseName() {
	for _, base := range []string{
		"atlatl-recall-01M7Z4V5MVAEP07QR38R3NRT04.jsonl",
		"atlatl-inject_context-01M7Z4V5MVAEP07QR38R3NRT04.jsonl",
		".atlatl-recall-01M7Z4V5MVAEP07QR38R3NRT04.jsonl.tmp", // in progress
		"other-recall-01M7Z4V5MVAEP07QR38R3NRT04.jsonl",       // another prefix
		"notes.jsonl",
	} {
		op, id, ok := disk.ParseName(base, spec.DefaultPrefix)
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
	fmt.Println(disk.SanitizeOperation("recall"))
	fmt.Println(disk.SanitizeOperation("Search-Memories"))
	fmt.Println(disk.SanitizeOperation("../../etc/passwd"))
	fmt.Println(disk.SanitizeOperation("記憶"))
	// Output:
	// recall
	// search_memories
	// etc_passwd
	// result
}
