package memory

import (
	"cmp"
	"errors"
	"math"
	"slices"
	"strings"
)

// ErrEmptyQuery is returned by [RecallService.Recall],
// [SearchService.Search] and [PromptIntegration.InjectContext] for a query
// without any term.
var ErrEmptyQuery = errors.New("memory: empty query")

// SearchHit is a memory matched by a query, with its relevance score in
// (0, 1]. The score belongs to the hit, not to the memory: it is never part
// of a [Record].
type SearchHit struct {
	Memory Memory
	Score  float64
}

// Field weights of a term occurrence. They add up to 1, so that a term found
// in every field scores 1.
const (
	weightTitle     = 0.4
	weightTags      = 0.3 // search also counts entity names here
	weightContent   = 0.2 // search also counts the summary here
	weightNamespace = 0.1
)

// Terms splits a query into its distinct lower-case terms, in order of first
// appearance. Punctuation around a term is dropped.
func Terms(query string) []string {
	var terms []string
	seen := make(map[string]bool)
	for _, f := range strings.Fields(strings.ToLower(query)) {
		t := strings.Trim(f, "\"'`.,;:!?()[]{}")
		if t != "" && !seen[t] {
			seen[t] = true
			terms = append(terms, t)
		}
	}
	return terms
}

// RecallService recalls the memories that match every term of a query. It is
// safe for concurrent use.
type RecallService struct {
	Store *Store
}

// Recall returns the memories whose namespace starts with namespace and in
// which every term of query occurs (case-insensitively, as a substring) in
// the title, the content, a tag or the namespace.
//
// A hit's score is the mean, over the terms, of the weights of the fields the
// term occurs in: title 0.4, tags 0.3, content 0.2, namespace 0.1, rounded
// to four decimals. Since every term occurs somewhere, the score is in
// [0.1, 1]. Hits are ordered by score, best first, then by modified time,
// newest first, then by id. At most limit hits are returned; limit <= 0
// means all of them. It returns [ErrEmptyQuery] when query has no term.
func (r *RecallService) Recall(query string, limit int, namespace string) ([]SearchHit, error) {
	terms := Terms(query)
	if len(terms) == 0 {
		return nil, ErrEmptyQuery
	}
	var hits []SearchHit
	r.Store.scan(namespace, func(e *entry) {
		sum := 0.0
		for _, t := range terms {
			w := e.weight(t, false)
			if w == 0 {
				return
			}
			sum += w
		}
		hits = append(hits, SearchHit{Memory: e.m, Score: round4(sum / float64(len(terms)))})
	})
	return rank(hits, limit), nil
}

// SearchService searches memories for any term of a query. It is safe for
// concurrent use.
//
// It differs from [RecallService] in two ways: a memory matches when any
// term occurs in it (recall needs every term), and it also looks at the
// summary and at entity names. Search is the broad, exploratory query;
// recall the precise one.
type SearchService struct {
	Store *Store
}

// Search returns the memories whose namespace starts with namespace and in
// which at least one term of query occurs (case-insensitively, as a
// substring) in the title, the content or summary, a tag or entity name, or
// the namespace.
//
// The score is the mean, over all terms, of the weights of the fields the
// term occurs in (title 0.4, tags and entities 0.3, content and summary 0.2,
// namespace 0.1), so a term that occurs nowhere counts 0; it is rounded to
// four decimals and lies in (0, 1]. Ordering and limit are as for
// [RecallService.Recall]. It returns [ErrEmptyQuery] when query has no term.
func (s *SearchService) Search(query string, limit int, namespace string) ([]SearchHit, error) {
	terms := Terms(query)
	if len(terms) == 0 {
		return nil, ErrEmptyQuery
	}
	var hits []SearchHit
	s.Store.scan(namespace, func(e *entry) {
		sum := 0.0
		for _, t := range terms {
			sum += e.weight(t, true)
		}
		if sum > 0 {
			hits = append(hits, SearchHit{Memory: e.m, Score: round4(sum / float64(len(terms)))})
		}
	})
	return rank(hits, limit), nil
}

// weight returns the summed weights of the fields term occurs in. With wide,
// entity names count with the tags and the summary with the content.
func (e *entry) weight(term string, wide bool) float64 {
	w := 0.0
	if strings.Contains(e.title, term) {
		w += weightTitle
	}
	if containsAny(e.tags, term) || (wide && containsAny(e.entities, term)) {
		w += weightTags
	}
	if strings.Contains(e.content, term) || (wide && strings.Contains(e.summary, term)) {
		w += weightContent
	}
	if strings.Contains(e.namespace, term) {
		w += weightNamespace
	}
	return w
}

func containsAny(ss []string, term string) bool {
	for _, s := range ss {
		if strings.Contains(s, term) {
			return true
		}
	}
	return false
}

// rank sorts hits best first (score, then newest modified, then id) and
// keeps at most limit of them (all when limit <= 0).
func rank(hits []SearchHit, limit int) []SearchHit {
	slices.SortFunc(hits, func(a, b SearchHit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		if c := b.Memory.Modified.Compare(a.Memory.Modified); c != 0 {
			return c
		}
		return cmp.Compare(a.Memory.ID, b.Memory.ID)
	})
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit:limit]
	}
	return hits
}

func round4(x float64) float64 { return math.Round(x*1e4) / 1e4 }
