package store_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"gocloud.dev/blob"

	"github.com/zircote/lro-go/internal/spec"
	"github.com/zircote/lro-go/internal/testing/s3test"
	"github.com/zircote/lro-go/internal/testing/sidebyside"
	"github.com/zircote/lro-go/jsonl"
)

// benchMemory is the full-detail memory record of lro's offload benchmarks
// (about 620 characters), copied here: this package does not import lro.
type benchMemory struct {
	ID         string         `json:"id"`
	MemoryType string         `json:"memory_type"`
	Title      string         `json:"title"`
	Content    string         `json:"content"`
	Namespace  string         `json:"namespace"`
	Tags       []string       `json:"tags"`
	Status     string         `json:"status"`
	Created    string         `json:"created"`
	Modified   string         `json:"modified"`
	Summary    string         `json:"summary"`
	Provenance map[string]any `json:"provenance"`
}

// benchLines returns the JSON of n records, one line each.
func benchLines(b *testing.B, n int) [][]byte {
	ns := []string{"_semantic/decisions", "_semantic/architecture", "_episodic/sessions", "_procedural/runbooks"}
	out := make([][]byte, n)
	for i := range out {
		line, err := json.Marshal(benchMemory{
			ID:         fmt.Sprintf("0b7c%04x-1f2e-4d3c-8b9a-%012x", i%65536, i),
			MemoryType: []string{"semantic", "episodic", "procedural"}[i%3],
			Title:      fmt.Sprintf("Decision %d: cache invalidation strategy for the read path", i),
			Content:    "We decided to invalidate cache entries on write rather than on a timer, because stale reads were observed in the session logs after deploys; the change keeps p99 latency flat and removes a class of consistency bugs.",
			Namespace:  ns[i%len(ns)],
			Tags:       []string{"cache", "architecture", fmt.Sprintf("team-%d", i%5)},
			Status:     "active",
			Created:    "2026-10-01T12:00:00Z",
			Modified:   "2026-11-01T08:30:00Z",
			Summary:    "Invalidate on write; p99 stays flat.",
			Provenance: map[string]any{"confidence": 0.5 + float64(i%50)/100, "trust_level": "verified", "source_type": "agent", "agent": "claude"},
		})
		if err != nil {
			b.Fatal(err)
		}
		out[i] = line
	}
	return out
}

// BenchmarkStore500 compares storing 500 full-detail records in a bucket of
// a real S3 server (versitygw, on this machine) through the store, as the
// offloader writes them (a jsonl Writer: header, each record validated,
// streamed to the blob writer, committed), with one PutObject of the same
// bytes held in memory (Bucket.Upload of a bytes.Reader; Bucket.WriteAll
// would add an MD5 of the bytes), each arm writing a new object.
// Target: store/put close to 1: the store adds its validation and its
// streaming to the upload.
func BenchmarkStore500(b *testing.B) {
	lines := benchLines(b, 500)
	url := s3test.Bucket(b)
	s := openURL(b, url, nil)
	ctx := context.Background()
	bucket, err := blob.OpenBucket(ctx, url)
	if err != nil {
		b.Fatal(err)
	}
	defer bucket.Close()
	h := jsonl.Header{Operation: "recall", Count: len(lines), SchemaVersion: "1.0", Detail: "full"}
	var file bytes.Buffer
	file.Write(headerLine(b, h))
	for _, l := range lines {
		file.Write(l)
		file.WriteByte('\n')
	}
	b.SetBytes(int64(file.Len()))
	n := 0
	sidebyside.Run(b, sidebyside.Arm{Name: "store", Run: func() {
		w, err := s.Create(ctx, "recall")
		if err != nil {
			b.Fatal(err)
		}
		defer w.Abort()
		if err := w.WriteHeader(h); err != nil {
			b.Fatal(err)
		}
		for _, l := range lines {
			if err := w.WriteRecord(l); err != nil {
				b.Fatal(err)
			}
		}
		if err := w.Commit(); err != nil {
			b.Fatal(err)
		}
	}}, sidebyside.Arm{Name: "put", Run: func() {
		n++
		key := fmt.Sprintf("put-%d.jsonl", n)
		if err := bucket.Upload(ctx, key, bytes.NewReader(file.Bytes()), &blob.WriterOptions{ContentType: spec.ContentType}); err != nil {
			b.Fatal(err)
		}
	}})
}

// BenchmarkStoreMemory writes 10,000 and 100,000 full-detail records (6 and
// 62 MB) to versitygw through the store and reports the peak heap in use
// while it writes, sampled every millisecond: flat in the record count,
// bounded by the S3 driver's buffers (see package blobstore).
func BenchmarkStoreMemory(b *testing.B) {
	lines := benchLines(b, 1000)
	s := openURL(b, s3test.Bucket(b), nil)
	ctx := context.Background()
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var peak atomic.Uint64
			stop := make(chan struct{})
			done := make(chan struct{})
			runtime.GC()
			var base runtime.MemStats
			runtime.ReadMemStats(&base)
			go func() {
				defer close(done)
				var m runtime.MemStats
				for {
					select {
					case <-stop:
						return
					case <-time.After(time.Millisecond):
					}
					runtime.ReadMemStats(&m)
					if m.HeapInuse > peak.Load() {
						peak.Store(m.HeapInuse)
					}
				}
			}()
			for b.Loop() {
				w, err := s.Create(ctx, "recall")
				if err != nil {
					b.Fatal(err)
				}
				if err := w.WriteHeader(jsonl.Header{Count: n}); err != nil {
					b.Fatal(err)
				}
				for i := range n {
					if err := w.WriteRecord(lines[i%len(lines)]); err != nil {
						b.Fatal(err)
					}
				}
				if err := w.Commit(); err != nil {
					b.Fatal(err)
				}
				b.SetBytes(w.Size())
			}
			close(stop)
			<-done
			b.ReportMetric(float64(peak.Load()-min(peak.Load(), base.HeapInuse))/(1<<20), "peak-heap-MiB")
		})
	}
}
