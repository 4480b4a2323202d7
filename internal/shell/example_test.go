package shell_test

import (
	"fmt"

	"github.com/zircote/lro-go/internal/shell"
)

func ExampleQuote() {
	fmt.Println(shell.Quote("/tmp/it's here.jsonl"))
	// Output:
	// '/tmp/it'\''s here.jsonl'
}
