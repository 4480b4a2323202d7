package estimate_test

import (
	"fmt"

	"github.com/zircote/lro-go/estimate"
)

func Example() {
	fmt.Println(estimate.Tokens(""))
	fmt.Println(estimate.Tokens("Large result offloading"))   // 23 characters
	fmt.Println(estimate.Tokens("大型结果卸载"))                    // 6 ideographs
	fmt.Println(estimate.Heuristic{}.Tokens([]byte("안녕하세요"))) // 5 Hangul syllables
	// Output:
	// 0
	// 6
	// 6
	// 5
}

// A real tokenizer can replace the heuristic wherever a [estimate.Tokenizer]
// is accepted.
func ExampleTokenizer() {
	var tok estimate.Tokenizer = estimate.Heuristic{}
	const threshold = 1600
	result := make([]byte, 8000) // 8000 characters ≈ 2000 tokens
	for i := range result {
		result[i] = 'x'
	}
	n := tok.Tokens(result)
	fmt.Println(n, n > threshold)
	// Output: 2000 true
}
