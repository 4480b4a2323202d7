package jsonl_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zircote/lro-go/jsonl"
)

// memory is a realistic offloaded record: a MIF memory at Medium detail,
// about 600 bytes of JSON.
type memory struct {
	ID         string     `json:"id"`
	MemoryType string     `json:"memory_type"`
	Title      string     `json:"title"`
	Content    string     `json:"content"`
	Namespace  string     `json:"namespace"`
	Tags       []string   `json:"tags"`
	Status     string     `json:"status"`
	Created    time.Time  `json:"created"`
	Modified   time.Time  `json:"modified"`
	Provenance provenance `json:"provenance"`
}

type provenance struct {
	Confidence float64 `json:"confidence"`
	TrustLevel string  `json:"trust_level"`
	SourceType string  `json:"source_type"`
	Agent      string  `json:"agent"`
}

func memories(n int) []memory {
	t := time.Date(2026, 11, 21, 13, 31, 0, 0, time.UTC)
	ms := make([]memory, n)
	for i := range ms {
		ms[i] = memory{
			ID:         fmt.Sprintf("01M7Z4V5MVAEP07QR38R3N%04d", i),
			MemoryType: "semantic",
			Title:      fmt.Sprintf("Design decision %d: offload large results", i),
			Content: "Large result offloading writes the full result set to a JSONL file and returns a " +
				"compact descriptor with the file path, so the agent extracts only what it needs with " +
				"jq or grep instead of reading every record into its context window. " +
				strings.Repeat("Detail. ", 1),
			Namespace:  "project/lro-go/decisions",
			Tags:       []string{"lro", "jsonl", "mcp", "context-window"},
			Status:     "active",
			Created:    t.Add(time.Duration(i) * time.Minute),
			Modified:   t.Add(time.Duration(i) * time.Hour),
			Provenance: provenance{Confidence: 0.92, TrustLevel: "verified", SourceType: "conversation", Agent: "claude"},
		}
	}
	return ms
}

// BenchmarkWrite500 writes 500 memories of about 600 bytes, from Go values
// to a file on disk, with each way of writing: the Writer (json.Marshal
// then WriteRecord, or WriteRecord of already marshaled records), against the naive json.Marshal of the whole slice followed by
// os.WriteFile, which is neither streaming, nor atomic, nor JSONL.
func BenchmarkWrite500(b *testing.B) {
	ms := memories(500)
	raw := make([][]byte, len(ms))
	size := 0
	for i, m := range ms {
		raw[i], _ = json.Marshal(m)
		size += len(raw[i]) + 1
	}
	dir := b.TempDir()
	header := jsonl.Header{Operation: "recall", Count: len(ms), SchemaVersion: "1.0", Detail: "medium"}
	opts := &jsonl.Options{Dir: dir}

	writer := func(b *testing.B, write func(w *jsonl.Writer, i int) error) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			w, err := jsonl.Create("recall", opts)
			if err != nil {
				b.Fatal(err)
			}
			if err := w.WriteHeader(header); err != nil {
				b.Fatal(err)
			}
			for i := range ms {
				if err := write(w, i); err != nil {
					b.Fatal(err)
				}
			}
			if err := w.Commit(); err != nil {
				b.Fatal(err)
			}
			os.Remove(w.Path())
		}
	}
	b.Run("json.Marshal+jsonl.WriteRecord", func(b *testing.B) {
		writer(b, func(w *jsonl.Writer, i int) error {
			rec, err := json.Marshal(ms[i])
			if err != nil {
				return err
			}
			return w.WriteRecord(rec)
		})
	})
	b.Run("jsonl.WriteRecord(premarshaled)", func(b *testing.B) {
		writer(b, func(w *jsonl.Writer, i int) error { return w.WriteRecord(raw[i]) })
	})
	b.Run("json.Marshal+os.WriteFile", func(b *testing.B) {
		path := filepath.Join(dir, "baseline.json")
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			data, err := json.Marshal(ms)
			if err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(path, data, 0o600); err != nil {
				b.Fatal(err)
			}
			os.Remove(path)
		}
	})
}

// BenchmarkManyRecords writes files of 1,000 and 100,000 small records. The
// allocations per file are the same for both: memory does not grow with the
// number of records.
func BenchmarkManyRecords(b *testing.B) {
	rec := []byte(`{"id":12345,"score":0.5,"tag":"x"}`)
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprintf("records=%d", n), func(b *testing.B) {
			opts := &jsonl.Options{Dir: b.TempDir()}
			b.SetBytes(int64(n * (len(rec) + 1)))
			b.ReportAllocs()
			for b.Loop() {
				w, err := jsonl.Create("list", opts)
				if err != nil {
					b.Fatal(err)
				}
				if err := w.WriteHeader(jsonl.Header{Count: n}); err != nil {
					b.Fatal(err)
				}
				for range n {
					if err := w.WriteRecord(rec); err != nil {
						b.Fatal(err)
					}
				}
				if err := w.Commit(); err != nil {
					b.Fatal(err)
				}
				os.Remove(w.Path())
			}
		})
	}
}
