package recipes

import (
	"cmp"
	"encoding/json"
	"iter"
	"strings"
	"unicode"
)

// Bounds of the work done on a sample, so that a huge or hostile sample
// cannot make recipe generation slow. What they leave out only affects
// which recipes are chosen and their default values, never whether a
// recipe runs.
const (
	maxSampleRecords = 1000
	maxSampleBytes   = 4 << 20
	maxScanBytes     = 4096
	maxDistinct      = 64
	maxValueBytes    = 200
	maxDerived       = 64   // fields of a record compared with each other
	maxFields        = 1024 // leading fields of a record examined
)

// bounded returns the leading records of sample that are examined.
func bounded(sample []json.RawMessage) []json.RawMessage {
	sample = sample[:min(len(sample), maxSampleRecords)]
	total := 0
	for i, raw := range sample {
		if total += len(raw); total > maxSampleBytes {
			return sample[:i]
		}
	}
	return sample
}

// Fallback parameter values, the literals of the specification's table.
const (
	defaultNamespace  = "_semantic"
	defaultKeyword    = "keyword"
	defaultTag        = "TAG"
	defaultMemoryType = "semantic"
)

// wordSet returns the set of the words of s, separated by white space.
func wordSet(s string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.Fields(s) {
		set[w] = true
	}
	return set
}

// stopWords are frequent English words that make poor search keywords.
var stopWords = wordSet(`
	about after also been before being could does each false from have into just like more most must
	null only other over should some such than that their them then there these they this those true
	very were what when where which while will with would your
`)

// keywords counts, for each candidate word, the documents it occurs in. The
// candidate words of a text are its runs of 4 to 24 ASCII letters,
// lower-cased, that are not stop words. Only ASCII letters are used so that
// a keyword is a regular expression without metacharacters that matches the
// same way in Oniguruma (jq) and RE2 (gojq).
type keywords struct {
	docs int                   // documents with at least one string
	df   map[string]*wordCount // document frequency of each word
}

// wordCount is the document frequency of a word, and the last document it
// was counted in, so that a word is counted once per document without a set
// of the document's words.
type wordCount struct{ docs, last int }

// maxStopWord is the length of the longest stop word.
const maxStopWord = 6

// add records one document made of the strings ss.
func (k *keywords) add(ss ...string) {
	if len(ss) == 0 {
		return
	}
	k.docs++
	if k.df == nil {
		k.df = map[string]*wordCount{}
	}
	for _, s := range ss {
		k.words(s)
	}
}

// words counts the candidate words of s in the current document.
func (k *keywords) words(s string) {
	s = s[:min(len(s), maxScanBytes)]
	var lower [24]byte
	start := -1
	for i := 0; i <= len(s); i++ {
		letter := i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z')
		switch {
		case letter && start < 0:
			start = i
		case !letter && start >= 0:
			if n := i - start; n >= 4 && n <= len(lower) {
				w := lower[:n]
				for j := range w {
					c := s[start+j]
					if c <= 'Z' {
						c += 'a' - 'A'
					}
					w[j] = c
				}
				// Map lookups with string(w) do not allocate; only a new
				// word's key does.
				if n > maxStopWord || !stopWords[string(w)] {
					c := k.df[string(w)]
					if c == nil {
						c = &wordCount{}
						k.df[string(w)] = c
					}
					if c.last != k.docs {
						c.docs++
						c.last = k.docs
					}
				}
			}
			start = -1
		}
	}
}

// pick returns a distinctive word: the most frequent one among the words that
// occur in at most half of the documents (so that a search on it selects),
// or the most frequent word when every word is more common than that. Ties go
// to the alphabetically first word. It returns "" when there is no word.
func (k *keywords) pick() string {
	docs := func(rare bool) iter.Seq2[string, int] {
		return func(yield func(string, int) bool) {
			for w, c := range k.df {
				if (!rare || 2*c.docs <= k.docs) && !yield(w, c.docs) {
					return
				}
			}
		}
	}
	return cmp.Or(mostCommon(docs(true)), mostCommon(docs(false)))
}

// mostCommon returns the key with the highest count, ties going to the
// alphabetically first key, of those fit for an example value (see
// exampleValue), or "" when there is none.
func mostCommon(counts iter.Seq2[string, int]) string {
	best, bestN := "", 0
	for k, n := range counts {
		if !exampleValue(k) {
			continue
		}
		if n > bestN || n == bestN && k < best {
			best, bestN = k, n
		}
	}
	return best
}

// exampleValue reports whether s can be a recipe's default value: at most
// maxValueBytes (a descriptor holds it in full), and without a control
// character, which a command's argument cannot carry (a NUL) or a terminal
// would act on.
func exampleValue(s string) bool {
	return len(s) <= maxValueBytes && !strings.ContainsFunc(s, unicode.IsControl)
}
