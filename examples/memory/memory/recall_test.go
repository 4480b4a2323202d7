package memory

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// fixture returns a small store whose matches are easy to work out by hand.
func fixture(t *testing.T) *Store {
	t.Helper()
	at := func(day int) time.Time { return time.Date(2025, 1, day, 0, 0, 0, 0, time.UTC) }
	ms := []Memory{
		{ID: "a", Namespace: "_semantic/decisions", Title: "Use Redis for locks", Content: "Redis gives us cheap locks.", Tags: []string{"redis"}, Created: at(1), Modified: at(1)},
		{ID: "b", Namespace: "_semantic/architecture", Title: "Cache layer", Content: "The cache layer sits on redis.", Tags: []string{"cache"}, Created: at(2), Modified: at(2)},
		{ID: "c", Namespace: "_episodic/incidents", Title: "Kafka lag", Content: "Consumers fell behind.", Tags: []string{"kafka"}, Summary: "redis was fine", Created: at(3), Modified: at(3)},
		{ID: "d", Namespace: "_procedural/runbooks", Title: "Restart Kafka", Content: "Drain, then restart.", Tags: []string{"kafka", "ops"}, Entities: []Entity{{Name: "Redis"}}, Created: at(4), Modified: at(4)},
		{ID: "e", Namespace: "_semantic/decisions", Title: "Use Redis for locks", Content: "Redis gives us cheap locks.", Tags: []string{"redis"}, Created: at(5), Modified: at(5)},
		{ID: "f", Namespace: "_semantic/decisions", Title: "Use Redis for locks", Content: "Redis gives us cheap locks.", Tags: []string{"redis"}, Created: at(5), Modified: at(5)},
	}
	s, err := NewStore(ms)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type hit struct {
	ID    string
	Score float64
}

func hitsOf(hs []SearchHit) []hit {
	out := []hit{}
	for _, h := range hs {
		out = append(out, hit{h.Memory.ID, h.Score})
	}
	return out
}

func TestRecall(t *testing.T) {
	s := fixture(t)
	r := &RecallService{Store: s}
	tests := []struct {
		name      string
		query     string
		limit     int
		namespace string
		want      []hit
	}{
		{"title, tags and content score 0.9; ties newest modified first, then by id", "redis", 0, "",
			[]hit{{"e", 0.9}, {"f", 0.9}, {"a", 0.9}, {"b", 0.2}}},
		{"matching is case-insensitive", "REDIS", 0, "",
			[]hit{{"e", 0.9}, {"f", 0.9}, {"a", 0.9}, {"b", 0.2}}},
		{"every term must occur", "redis locks", 0, "",
			[]hit{{"e", 0.75}, {"f", 0.75}, {"a", 0.75}}},
		{"a term found nowhere drops the memory", "redis nothing", 0, "", []hit{}},
		{"recall ignores summaries and entities", "redis", 0, "_episodic", []hit{}},
		{"namespace terms match", "incidents", 0, "", []hit{{"c", 0.1}}},
		{"namespace is a prefix filter", "redis", 0, "_semantic/arch", []hit{{"b", 0.2}}},
		{"limit keeps the best", "redis", 2, "", []hit{{"e", 0.9}, {"f", 0.9}}},
		{"substring occurrences match", "kaf", 0, "", []hit{{"d", 0.7}, {"c", 0.7}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := r.Recall(tt.query, tt.limit, tt.namespace)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, hitsOf(got)); diff != "" {
				t.Errorf("Recall(%q, %d, %q) mismatch (-want +got):\n%s", tt.query, tt.limit, tt.namespace, diff)
			}
		})
	}
}

func TestSearch(t *testing.T) {
	s := fixture(t)
	svc := &SearchService{Store: s}
	tests := []struct {
		name      string
		query     string
		limit     int
		namespace string
		want      []hit
	}{
		{"summaries and entity names count too", "redis", 0, "",
			[]hit{{"e", 0.9}, {"f", 0.9}, {"a", 0.9}, {"d", 0.3}, {"c", 0.2}, {"b", 0.2}}},
		{"any term matches; missing terms count zero", "redis ops", 0, "_procedural",
			[]hit{{"d", 0.3}}},
		{"a memory with both terms outranks one with one", "cache redis", 0, "_semantic",
			[]hit{{"b", 0.55}, {"e", 0.45}, {"f", 0.45}, {"a", 0.45}}},
		{"no term anywhere, no hit", "postgres", 0, "", []hit{}},
		{"limit", "redis", 1, "", []hit{{"e", 0.9}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := svc.Search(tt.query, tt.limit, tt.namespace)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, hitsOf(got)); diff != "" {
				t.Errorf("Search(%q, %d, %q) mismatch (-want +got):\n%s", tt.query, tt.limit, tt.namespace, diff)
			}
		})
	}
}

func TestEmptyQuery(t *testing.T) {
	s := fixture(t)
	for _, q := range []string{"", "   ", `"" ...`} {
		if _, err := (&RecallService{Store: s}).Recall(q, 10, ""); !errors.Is(err, ErrEmptyQuery) {
			t.Errorf("Recall(%q) error = %v, want ErrEmptyQuery", q, err)
		}
		if _, err := (&SearchService{Store: s}).Search(q, 10, ""); !errors.Is(err, ErrEmptyQuery) {
			t.Errorf("Search(%q) error = %v, want ErrEmptyQuery", q, err)
		}
		if _, err := (&PromptIntegration{Recall: &RecallService{Store: s}}).InjectContext(q, 100); !errors.Is(err, ErrEmptyQuery) {
			t.Errorf("InjectContext(%q) error = %v, want ErrEmptyQuery", q, err)
		}
	}
}

func TestTerms(t *testing.T) {
	tests := []struct {
		query string
		want  []string
	}{
		{"Redis  locks", []string{"redis", "locks"}},
		{`"redis", (locks) redis!`, []string{"redis", "locks"}},
		{"", nil},
		{"... ,,", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, Terms(tt.query)); diff != "" {
			t.Errorf("Terms(%q) mismatch (-want +got):\n%s", tt.query, diff)
		}
	}
}

// Scores stay in (0, 1] and ranking is deterministic on the generated corpus.
func TestRankingOnCorpus(t *testing.T) {
	s, err := NewStore(Generate(DefaultCorpusSize, DefaultSeed))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"redis", "semantic", "kafka incident", "the"} {
		for name, run := range map[string]func() ([]SearchHit, error){
			"recall": func() ([]SearchHit, error) { return (&RecallService{Store: s}).Recall(q, 0, "") },
			"search": func() ([]SearchHit, error) { return (&SearchService{Store: s}).Search(q, 0, "") },
		} {
			a, err := run()
			if err != nil {
				t.Fatal(err)
			}
			b, _ := run()
			if diff := cmp.Diff(hitsOf(a), hitsOf(b)); diff != "" {
				t.Errorf("%s(%q) is not deterministic (-first +second):\n%s", name, q, diff)
			}
			for i, h := range a {
				if h.Score <= 0 || h.Score > 1 {
					t.Errorf("%s(%q): hit %d score %v outside (0, 1]", name, q, i, h.Score)
				}
				if i > 0 && a[i-1].Score < h.Score {
					t.Errorf("%s(%q): hit %d score %v above previous %v", name, q, i, h.Score, a[i-1].Score)
				}
			}
		}
	}
}

func TestStoreList(t *testing.T) {
	s := fixture(t)
	ids := func(ms []Memory) []string {
		out := []string{}
		for _, m := range ms {
			out = append(out, m.ID)
		}
		return out
	}
	tests := []struct {
		name      string
		opts      ListOptions
		want      []string
		wantTotal int
	}{
		{"all, newest created first, ties by id", ListOptions{}, []string{"e", "f", "d", "c", "b", "a"}, 6},
		{"limit", ListOptions{Limit: 2}, []string{"e", "f"}, 6},
		{"offset", ListOptions{Offset: 4, Limit: 10}, []string{"b", "a"}, 6},
		{"offset past the end", ListOptions{Offset: 9}, []string{}, 6},
		{"negative offset is zero", ListOptions{Offset: -3, Limit: 1}, []string{"e"}, 6},
		{"namespace prefix", ListOptions{Namespace: "_semantic"}, []string{"e", "f", "b", "a"}, 4},
		{"namespace prefix with paging", ListOptions{Namespace: "_semantic/dec", Offset: 1, Limit: 1}, []string{"f"}, 3},
		{"unknown namespace", ListOptions{Namespace: "_nope"}, []string{}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, total := s.List(tt.opts)
			if diff := cmp.Diff(tt.want, ids(page)); diff != "" {
				t.Errorf("List(%+v) page mismatch (-want +got):\n%s", tt.opts, diff)
			}
			if total != tt.wantTotal {
				t.Errorf("List(%+v) total = %d, want %d", tt.opts, total, tt.wantTotal)
			}
		})
	}
}

func TestStoreAdd(t *testing.T) {
	tests := []struct {
		name string
		ms   []Memory
		want error
	}{
		{"missing id", []Memory{{Title: "x"}}, ErrMissingID},
		{"duplicate in the batch", []Memory{{ID: "z"}, {ID: "z"}}, ErrDuplicateID},
		{"duplicate of a stored memory", []Memory{{ID: "a"}}, ErrDuplicateID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := fixture(t)
			if err := s.Add(tt.ms...); !errors.Is(err, tt.want) {
				t.Errorf("Add error = %v, want %v", err, tt.want)
			}
			if s.Len() != 6 {
				t.Errorf("Len after failed Add = %d, want 6 (nothing added)", s.Len())
			}
		})
	}
	s := fixture(t)
	if err := s.Add(Memory{ID: "g"}); err != nil {
		t.Fatal(err)
	}
	m, ok := s.Get("g")
	if !ok || m.Tags == nil || m.Provenance == nil {
		t.Errorf("Get(g) = %+v, %v; want a normalized memory", m, ok)
	}
}

func TestStoreConcurrent(t *testing.T) {
	s := fixture(t)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if err := s.Add(Memory{ID: fmt.Sprint("n", i), Title: "redis"}); err != nil {
				t.Error(err)
			}
			s.List(ListOptions{Limit: 3})
			(&RecallService{Store: s}).Recall("redis", 5, "")
			(&SearchService{Store: s}).Search("redis", 5, "")
			s.CountByNamespace()
		})
	}
	wg.Wait()
	if s.Len() != 14 {
		t.Errorf("Len = %d, want 14", s.Len())
	}
}

func BenchmarkRecall(b *testing.B) {
	s, err := NewStore(Generate(DefaultCorpusSize, DefaultSeed))
	if err != nil {
		b.Fatal(err)
	}
	r := &RecallService{Store: s}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Recall("semantic redis", 100, ""); err != nil {
			b.Fatal(err)
		}
	}
}
