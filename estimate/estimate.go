// Package estimate estimates how many tokens a text costs a language model.
package estimate

// A Tokenizer counts the tokens of a UTF-8 text. Implementations must be safe
// for concurrent use and must return at least 1 for non-empty text.
type Tokenizer interface {
	Tokens(text []byte) int
}

// Heuristic is the specification's estimator: about one token per four
// characters of Latin script, about one token per CJK, Hangul or Kana rune.
type Heuristic struct{}

// Tokens implements [Tokenizer].
func (Heuristic) Tokens(text []byte) int { return Bytes(text) }

// Tokens estimates the tokens of s with the [Heuristic].
func Tokens(s string) int { panic("TODO") }

// Bytes estimates the tokens of the UTF-8 text b with the [Heuristic].
func Bytes(b []byte) int { panic("TODO") }
