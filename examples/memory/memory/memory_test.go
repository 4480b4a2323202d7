package memory

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// keys returns the sorted top-level keys of v's JSON form.
func keys(t *testing.T, v any) []string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		t.Fatal(err)
	}
	ks := make([]string, 0, len(obj))
	for k := range obj {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// richMemory has every field set.
func richMemory() Memory {
	created := time.Date(2025, 3, 4, 10, 11, 12, 0, time.UTC)
	until := created.Add(48 * time.Hour)
	return Memory{
		ID:            "00000000-0000-4000-8000-000000000001",
		MemoryType:    Semantic,
		Content:       "Use Redis for the job scheduler.",
		Created:       created,
		Modified:      created.Add(time.Hour),
		Namespace:     "_semantic/decisions",
		Title:         "Use Redis",
		Tags:          []string{"decision", "redis"},
		Status:        "active",
		Entities:      []Entity{{Name: "Redis", Type: "technology"}},
		Relationships: []Relationship{{Type: "relates_to", Target: "00000000-0000-4000-8000-000000000002"}},
		WikiLinks:     []string{"job scheduler"},
		Embedding:     []float32{0.5, -0.25},
		Summary:       "Redis for locks.",
		Provenance:    &Provenance{Confidence: 0.87, TrustLevel: "high", SourceType: "conversation", Agent: "claude-code"},
		Temporal:      &Temporal{Decay: &Decay{Model: "exponential", HalfLifeDays: 30, Strength: 0.9}, TTL: "P90D", ValidFrom: &created, ValidUntil: &until},
		Extensions:    map[string]any{"team": "platform"},
		Blocks:        []Block{{Type: "code", Text: "redis-cli ping"}},
		Citations:     []Citation{{Title: "ADR-001", URL: "https://wiki.example.com/adr/001"}},
	}
}

var (
	lightKeys  = []string{"content", "created", "id", "memory_type", "modified", "namespace", "status", "tags", "title"}
	mediumKeys = []string{"confidence", "content", "created", "id", "memory_type", "modified", "namespace", "status", "summary", "tags", "title"}
	fullKeys   = []string{"blocks", "citations", "content", "created", "embedding", "entities", "extensions", "id", "memory_type", "modified", "namespace", "provenance", "relationships", "status", "summary", "tags", "temporal", "title", "wiki_links"}
	sparseFull = []string{"content", "created", "id", "memory_type", "modified", "namespace", "provenance", "status", "summary", "tags", "title"}
)

func TestProjectFields(t *testing.T) {
	rich := richMemory()
	sparse := Memory{ID: "x", MemoryType: Episodic, Content: "c", Namespace: "_episodic/sessions", Title: "t"}
	tests := []struct {
		name   string
		m      Memory
		detail Detail
		want   []string
	}{
		{"light keeps the nine core fields", rich, Light, lightKeys},
		{"medium adds summary and a top-level confidence", rich, Medium, mediumKeys},
		{"full has every field and no top-level confidence", rich, Full, fullKeys},
		{"light of a sparse memory still has content and tags", sparse, Light, lightKeys},
		{"medium of a memory without provenance has confidence 0", sparse, Medium, mediumKeys},
		{"full leaves out empty enrichment but keeps summary and provenance", sparse, Full, sparseFull},
		{"an unknown level is light", rich, Detail("huge"), lightKeys},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Project(&tt.m, tt.detail)
			if diff := cmp.Diff(tt.want, keys(t, r)); diff != "" {
				t.Errorf("keys of Project(%s) mismatch (-want +got):\n%s", tt.detail, diff)
			}
		})
	}
}

func TestProjectValues(t *testing.T) {
	m := richMemory()
	tests := []struct {
		name   string
		detail Detail
		want   string
	}{
		{"light content is the empty string", Light,
			`{"id":"00000000-0000-4000-8000-000000000001","memory_type":"semantic","content":"","created":"2025-03-04T10:11:12Z","modified":"2025-03-04T11:11:12Z","namespace":"_semantic/decisions","title":"Use Redis","tags":["decision","redis"],"status":"active"}`},
		{"medium flattens the provenance's confidence", Medium,
			`{"id":"00000000-0000-4000-8000-000000000001","memory_type":"semantic","content":"Use Redis for the job scheduler.","created":"2025-03-04T10:11:12Z","modified":"2025-03-04T11:11:12Z","namespace":"_semantic/decisions","title":"Use Redis","tags":["decision","redis"],"status":"active","confidence":0.87,"summary":"Redis for locks."}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(Project(&m, tt.detail))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(b)); diff != "" {
				t.Errorf("JSON mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// The full record of a stored memory is the memory's own JSON, byte for byte.
func TestProjectFullIsMemoryJSON(t *testing.T) {
	ms := append([]Memory{richMemory()}, Generate(50, 7)...)
	for i := range ms {
		want, err := json.Marshal(ms[i])
		if err != nil {
			t.Fatal(err)
		}
		got, err := json.Marshal(Project(&ms[i], Full))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Fatalf("memory %d: full record differs from memory JSON (-want +got):\n%s", i, diff)
		}
	}
}

func TestRecordMemoryRoundTrip(t *testing.T) {
	m := richMemory()
	for _, d := range []Detail{Medium, Full} {
		r := Project(&m, d)
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		var back Record
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		got := back.Memory()
		if got.Confidence() != m.Confidence() {
			t.Errorf("%s: confidence after round trip = %v, want %v", d, got.Confidence(), m.Confidence())
		}
		if d == Full {
			if diff := cmp.Diff(m, got); diff != "" {
				t.Errorf("full round trip mismatch (-want +got):\n%s", diff)
			}
		}
	}
}

func TestParseDetail(t *testing.T) {
	tests := []struct {
		in      string
		want    Detail
		wantErr bool
	}{
		{"light", Light, false},
		{"medium", Medium, false},
		{"full", Full, false},
		{"", "", true},
		{" Full ", Full, false},
		{"verbose", "", true},
	}
	for _, tt := range tests {
		got, err := ParseDetail(tt.in)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("ParseDetail(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}
