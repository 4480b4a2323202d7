package estimate_test

import (
	"bytes"
	"fmt"

	"github.com/zircote/lro-go/estimate"
)

func Example() {
	fmt.Println(estimate.Tokens(""))
	fmt.Println(estimate.Tokens("Large result offloading")) // 23 characters
	fmt.Println(estimate.Tokens("大型结果卸载"))                  // 6 ideographs
	fmt.Println(estimate.Tokens("안녕하세요"))                   // 5 Hangul syllables
	// Output:
	// 0
	// 6
	// 6
	// 5
}

// words counts one token per word, standing in for a model's tokenizer.
type words struct{}

func (words) Tokens(text []byte) int { return max(len(bytes.Fields(text)), 1) }

// A real tokenizer can replace the heuristic wherever a [estimate.Tokenizer]
// is accepted, such as lro.Options.Tokenizer; nil there means [estimate.Tokens].
func ExampleTokenizer() {
	var tok estimate.Tokenizer = words{}
	result := "Large result offloading keeps context small"
	fmt.Println(tok.Tokens([]byte(result)), estimate.Tokens(result))
	// Output: 6 11
}
