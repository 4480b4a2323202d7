package memory

import (
	"bytes"
	"encoding/json"
	"regexp"
	"testing"

	"github.com/zircote/lro-go/estimate"
)

func marshalAll(t *testing.T, ms []Memory) []byte {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for i := range ms {
		if err := enc.Encode(&ms[i]); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

func TestGenerateDeterministic(t *testing.T) {
	a := marshalAll(t, Generate(DefaultCorpusSize, DefaultSeed))
	b := marshalAll(t, Generate(DefaultCorpusSize, DefaultSeed))
	if !bytes.Equal(a, b) {
		t.Fatal("two corpora of the same seed differ")
	}
	if c := marshalAll(t, Generate(DefaultCorpusSize, DefaultSeed+1)); bytes.Equal(a, c) {
		t.Fatal("corpora of different seeds are equal")
	}
	if small := marshalAll(t, Generate(10, DefaultSeed)); !bytes.HasPrefix(a, small) {
		t.Error("a smaller corpus is not a prefix of a larger one")
	}
	if n := len(Generate(0, 1)); n != 0 {
		t.Errorf("Generate(0) returned %d memories", n)
	}
}

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestGenerateShape(t *testing.T) {
	ms := Generate(DefaultCorpusSize, DefaultSeed)
	if len(ms) != DefaultCorpusSize {
		t.Fatalf("len = %d, want %d", len(ms), DefaultCorpusSize)
	}
	ids := make(map[string]bool)
	namespaces := make(map[string]int)
	types := make(map[MemoryType]int)
	enrichment := make(map[string]int)
	for i, m := range ms {
		if !uuidV4.MatchString(m.ID) {
			t.Errorf("memory %d: id %q is not a version 4 UUID", i, m.ID)
		}
		if ids[m.ID] {
			t.Errorf("memory %d: duplicate id %s", i, m.ID)
		}
		ids[m.ID] = true
		if !m.MemoryType.Valid() || m.Title == "" || m.Content == "" || m.Summary == "" || len(m.Tags) == 0 || m.Provenance == nil {
			t.Errorf("memory %d lacks a core field: %+v", i, m)
		}
		if m.Modified.Before(m.Created) {
			t.Errorf("memory %d modified before created", i)
		}
		namespaces[m.Namespace]++
		types[m.MemoryType]++
		for _, k := range keys(t, m) {
			enrichment[k]++
		}
	}
	if len(namespaces) != len(kinds) {
		t.Errorf("namespaces = %v, want all %d", namespaces, len(kinds))
	}
	if len(types) != 3 {
		t.Errorf("types = %v, want all three", types)
	}
	for _, k := range fullKeys {
		if enrichment[k] == 0 {
			t.Errorf("no memory has field %q", k)
		}
	}
}

// A full-detail record averages about 155 tokens (620 characters), like the
// corpus of the LRO paper; light and medium records are smaller.
func TestGenerateRecordSize(t *testing.T) {
	ms := Generate(DefaultCorpusSize, DefaultSeed)
	avg := func(d Detail) float64 {
		total := 0
		for i := range ms {
			b, err := json.Marshal(Project(&ms[i], d))
			if err != nil {
				t.Fatal(err)
			}
			total += estimate.Tokens(string(b))
		}
		return float64(total) / float64(len(ms))
	}
	light, medium, full := avg(Light), avg(Medium), avg(Full)
	t.Logf("average tokens per record: light %.1f, medium %.1f, full %.1f", light, medium, full)
	if full < 140 || full > 170 {
		t.Errorf("average full record = %.1f tokens, want 140..170", full)
	}
	if !(light < medium && medium < full) {
		t.Errorf("averages not increasing with detail: %.1f, %.1f, %.1f", light, medium, full)
	}
}

func BenchmarkGenerate(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		Generate(DefaultCorpusSize, DefaultSeed)
	}
}
