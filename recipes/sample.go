package recipes

import (
	"bytes"
	"encoding/json"
	"io"
	"sort"
	"strings"
)

// Bounds of the work done on a sample, so that a huge or hostile sample
// cannot make recipe generation slow. Records past maxSampleRecords or past
// maxSampleBytes in total, and text past maxScanBytes of one string, are not
// looked at; they only affect which recipes are chosen and their default
// parameter values, never whether a recipe runs.
const (
	maxSampleRecords = 1000
	maxSampleBytes   = 4 << 20
	maxScanBytes     = 4096
	maxDistinct      = 64
)

// bounded returns the leading records of sample that are examined.
func bounded(sample []json.RawMessage) []json.RawMessage {
	if len(sample) > maxSampleRecords {
		sample = sample[:maxSampleRecords]
	}
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

// decodeOne decodes one JSON value, with json.Number numbers.
func decodeOne(raw json.RawMessage) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil, false
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, false
	}
	return v, true
}

// stopWords are frequent English words that make poor search keywords.
var stopWords = map[string]bool{
	"about": true, "after": true, "also": true, "been": true, "before": true,
	"being": true, "could": true, "does": true, "each": true, "false": true,
	"from": true, "have": true, "into": true, "just": true, "like": true,
	"more": true, "most": true, "must": true, "null": true, "only": true,
	"other": true, "over": true, "should": true, "some": true, "such": true,
	"than": true, "that": true, "their": true, "them": true, "then": true,
	"there": true, "these": true, "they": true, "this": true, "those": true,
	"true": true, "very": true, "were": true, "what": true, "when": true,
	"where": true, "which": true, "while": true, "will": true, "with": true,
	"would": true, "your": true,
}

// words adds to set the candidate keywords of s: runs of 4 to 24 ASCII
// letters, lower-cased, that are not stop words. Only ASCII letters are used
// so that a keyword is a regular expression without metacharacters that
// matches the same way in Oniguruma (jq) and RE2 (gojq).
func words(s string, set map[string]bool) {
	if len(s) > maxScanBytes {
		s = s[:maxScanBytes]
	}
	start := -1
	for i := 0; i <= len(s); i++ {
		letter := i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || s[i] >= 'A' && s[i] <= 'Z')
		switch {
		case letter && start < 0:
			start = i
		case !letter && start >= 0:
			if n := i - start; n >= 4 && n <= 24 {
				w := strings.ToLower(s[start:i])
				if !stopWords[w] {
					set[w] = true
				}
			}
			start = -1
		}
	}
}

// keywords counts, for each candidate word, the documents it occurs in.
type keywords struct {
	docs int             // documents with at least one string
	df   map[string]int  // document frequency of each word
	set  map[string]bool // the words of one document, reused
}

// add records one document made of the strings ss.
func (k *keywords) add(ss ...string) {
	if k.set == nil {
		k.set = map[string]bool{}
	}
	set := k.set
	clear(set)
	seen := false
	for _, s := range ss {
		seen = true
		words(s, set)
	}
	if !seen {
		return
	}
	k.docs++
	if k.df == nil {
		k.df = map[string]int{}
	}
	for w := range set {
		k.df[w]++
	}
}

// pick returns a distinctive word: the most frequent one among the words that
// occur in at most half of the documents (so that a search on it selects),
// or the most frequent word when every word is more common than that. Ties go
// to the alphabetically first word. ok is false when there is no word.
func (k *keywords) pick() (w string, ok bool) {
	best, bestDF := "", 0
	for _, half := range []bool{true, false} {
		for word, df := range k.df {
			if half && 2*df > k.docs {
				continue
			}
			if df > bestDF || df == bestDF && word < best {
				best, bestDF = word, df
			}
		}
		if bestDF > 0 {
			return best, true
		}
	}
	return "", false
}

// mostCommon returns the key with the highest count, ties going to the
// alphabetically first key. ok is false when counts is empty.
func mostCommon(counts map[string]int) (key string, ok bool) {
	best, bestN := "", 0
	for k, n := range counts {
		if n > bestN || n == bestN && k < best {
			best, bestN = k, n
		}
	}
	return best, bestN > 0
}

// sortedKeys returns the keys of m in increasing order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
