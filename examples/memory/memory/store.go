package memory

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// ErrDuplicateID is returned by [Store.Add] for a memory whose id is already
// stored.
var ErrDuplicateID = errors.New("memory: duplicate id")

// ErrMissingID is returned by [Store.Add] for a memory without an id.
var ErrMissingID = errors.New("memory: missing id")

// Store holds memories in memory. The zero value is an empty store ready to
// use. A Store is safe for concurrent use.
//
// Memories are kept in list order: newest created first, ties broken by id.
type Store struct {
	mu      sync.RWMutex
	entries []*entry          // in list order
	byID    map[string]*entry // same entries, by id
}

// entry is a stored memory with its lower-cased search text, computed once.
type entry struct {
	m         Memory
	title     string
	content   string
	tags      []string
	namespace string
	summary   string
	entities  []string
}

// NewStore returns a store holding ms. It fails like [Store.Add].
func NewStore(ms []Memory) (*Store, error) {
	s := &Store{}
	if err := s.Add(ms...); err != nil {
		return nil, err
	}
	return s, nil
}

// Add stores memories. It stores none of them and returns an error wrapping
// [ErrMissingID] or [ErrDuplicateID] when one has no id or repeats an id.
func (s *Store) Add(ms ...Memory) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	seen := make(map[string]bool, len(ms))
	for i := range ms {
		id := ms[i].ID
		if id == "" {
			return fmt.Errorf("memory %d: %w", i, ErrMissingID)
		}
		if seen[id] || s.byID[id] != nil {
			return fmt.Errorf("memory %d: %w %s", i, ErrDuplicateID, id)
		}
		seen[id] = true
	}
	if s.byID == nil {
		s.byID = make(map[string]*entry, len(ms))
	}
	for _, m := range ms {
		e := newEntry(m)
		s.entries = append(s.entries, e)
		s.byID[m.ID] = e
	}
	slices.SortStableFunc(s.entries, func(a, b *entry) int {
		if c := b.m.Created.Compare(a.m.Created); c != 0 {
			return c
		}
		return cmp.Compare(a.m.ID, b.m.ID)
	})
	return nil
}

func newEntry(m Memory) *entry {
	e := &entry{
		m:         normalize(m),
		title:     strings.ToLower(m.Title),
		content:   strings.ToLower(m.Content),
		namespace: strings.ToLower(m.Namespace),
		summary:   strings.ToLower(m.Summary),
	}
	for _, t := range m.Tags {
		e.tags = append(e.tags, strings.ToLower(t))
	}
	for _, en := range m.Entities {
		e.entities = append(e.entities, strings.ToLower(en.Name))
	}
	return e
}

// Len returns the number of stored memories.
func (s *Store) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.entries)
}

// Get returns the memory with the given id.
func (s *Store) Get(id string) (Memory, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, ok := s.byID[id]
	if !ok {
		return Memory{}, false
	}
	return e.m, true
}

// ListOptions select a page of [Store.List].
type ListOptions struct {
	// Namespace keeps the memories whose namespace starts with it. If empty,
	// every memory is kept.
	Namespace string
	// Offset is the number of (kept) memories to skip. Negative means zero.
	Offset int
	// Limit is the largest number of memories returned. If zero or negative,
	// there is no limit.
	Limit int
}

// List returns a page of memories in list order (newest created first, ties
// broken by id) and the number of memories the namespace filter keeps, of
// which the page is the part from opts.Offset on.
func (s *Store) List(opts ListOptions) (page []Memory, total int) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	offset := max(opts.Offset, 0)
	for _, e := range s.entries {
		if !strings.HasPrefix(e.m.Namespace, opts.Namespace) {
			continue
		}
		total++
		if total <= offset || (opts.Limit > 0 && len(page) >= opts.Limit) {
			continue
		}
		page = append(page, e.m)
	}
	return page, total
}

// CountByNamespace returns how many memories each namespace holds.
func (s *Store) CountByNamespace() map[string]int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	counts := make(map[string]int)
	for _, e := range s.entries {
		counts[e.m.Namespace]++
	}
	return counts
}

// scan calls f for every memory whose namespace starts with namespace, in
// list order, holding the read lock.
func (s *Store) scan(namespace string, f func(*entry)) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, e := range s.entries {
		if strings.HasPrefix(e.m.Namespace, namespace) {
			f(e)
		}
	}
}
