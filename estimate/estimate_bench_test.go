package estimate_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/zircote/lro-go/estimate"
)

// benchTexts are about 64 KiB each, the size of a typical offloaded result.
var benchTexts = map[string]string{
	"ascii": strings.Repeat(`{"id":"01J","content":"Large result offloading keeps context small.","tags":["a","b"]}`, 750),
	"cjk":   strings.Repeat("大型结果卸载は、结果を파일로 씁니다。", 1400),
	"mixed": strings.Repeat(`{"content":"LRO 大型结果 — naïve café ☕ 👍"}`, 1300),
}

func BenchmarkTokens(b *testing.B) {
	for name, text := range benchTexts {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				estimate.Tokens(text)
			}
		})
	}
}

// BenchmarkRuneCountInString is a floor to compare with: it only counts
// runes. (utf8.RuneCount is no floor: it converts non-ASCII input to a
// string, which allocates.)
func BenchmarkRuneCountInString(b *testing.B) {
	for name, text := range benchTexts {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				utf8.RuneCountInString(text)
			}
		})
	}
}
