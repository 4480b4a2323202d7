package recipes_test

import (
	"fmt"

	"github.com/zircote/lro-go/internal/recipes"
)

func ExampleShellQuote() {
	fmt.Println(recipes.ShellQuote("/tmp/it's here.jsonl"))
	// Output:
	// '/tmp/it'\''s here.jsonl'
}
