package recipes

import (
	"bytes"
	"strings"
	"testing"
)

// refKeywords is keywords as it was written with a set of each document's
// words, kept as the oracle of FuzzKeywords.
type refKeywords struct {
	docs int
	df   map[string]int
}

func (k *refKeywords) add(ss ...string) {
	set := map[string]bool{}
	seen := false
	for _, s := range ss {
		seen = true
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

func (k *refKeywords) pick() (string, bool) {
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

func TestStopWordsFitMaxStopWord(t *testing.T) {
	for w := range stopWords {
		if len(w) > maxStopWord {
			t.Errorf("stop word %q is longer than maxStopWord %d: words that long would not be looked up", w, maxStopWord)
		}
	}
}

// FuzzKeywords checks that keywords picks the word the set-based version
// picked, and counts the same documents and frequencies, on any documents
// (one per line, strings separated by tabs).
func FuzzKeywords(f *testing.F) {
	f.Add([]byte("We decided to Invalidate the cache\tcache THE Cache\nabout cache; should keywords\n\nZebra zebra\tzebras"))
	f.Add([]byte("aaaa bbbb\naaaa\n" + strings.Repeat("x", maxScanBytes+10) + " tail"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<14 {
			return
		}
		var got keywords
		var want refKeywords
		for _, line := range bytes.Split(data, []byte("\n")) {
			var ss []string
			if len(line) > 0 {
				for _, s := range bytes.Split(line, []byte("\t")) {
					ss = append(ss, string(s))
				}
			}
			got.add(ss...)
			want.add(ss...)
		}
		if got.docs != want.docs || len(got.df) != len(want.df) {
			t.Fatalf("docs %d, %d words; want %d, %d", got.docs, len(got.df), want.docs, len(want.df))
		}
		for w, n := range want.df {
			if c := got.df[w]; c == nil || c.docs != n {
				t.Fatalf("word %q: %v, want %d documents", w, c, n)
			}
		}
		ww, wok := want.pick()
		if gw := got.pick(); gw != ww || (gw != "") != wok {
			t.Fatalf("pick = %q; want %q, %v", gw, ww, wok)
		}
	})
}
