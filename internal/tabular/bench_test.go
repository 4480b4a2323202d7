package tabular

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// pythonRowsText returns what Python's str() prints for n rows of a query
// (str([dict(row) for row in rows])), about 120 bytes a row.
func pythonRowsText(n int) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "{'id': %d, 'customer': 'Customer number %d', 'city': 'Lyon', 'total': %d.44, 'paid': %d, 'note': None, 'tags': ['a', 'b']}", i, i%97, i%500, i%2)
	}
	b.WriteString("]\n")
	return b.String()
}

// BenchmarkReadPython reads 16 MB of a Python literal of rows, beside
// decoding the same rows as JSON (BenchmarkReadPythonJSON): the ratio of
// their times, and of bytes allocated, is what reading the text costs.
// peak-heap-MB is the most the live heap grew over one read, sampled every
// millisecond after a collection.
func BenchmarkReadPython(b *testing.B) {
	text := pythonRowsText(130_000)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	var peak uint64
	for b.Loop() {
		runtime.GC()
		base := heapObjects()
		done := make(chan struct{})
		var top atomic.Uint64
		go func() {
			for {
				top.Store(max(top.Load(), heapObjects()))
				select {
				case <-done:
					return
				case <-time.After(time.Millisecond):
				}
			}
		}()
		if _, ok := Read(text); !ok {
			b.Fatal("not read as rows")
		}
		close(done)
		peak = max(peak, top.Load()-min(base, top.Load()))
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}

// heapObjects reads the bytes of the heap's objects, live or not yet swept.
func heapObjects() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// BenchmarkReadPythonJSON decodes the rows of BenchmarkReadPython as JSON.
func BenchmarkReadPythonJSON(b *testing.B) {
	t, ok := Read(pythonRowsText(130_000))
	if !ok {
		b.Fatal("not read as rows")
	}
	var doc strings.Builder
	doc.WriteByte('[')
	for i, r := range t.Records {
		if i > 0 {
			doc.WriteByte(',')
		}
		doc.Write(r)
	}
	doc.WriteByte(']')
	text := []byte(doc.String())
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		var rows []json.RawMessage
		if err := json.Unmarshal(text, &rows); err != nil {
			b.Fatal(err)
		}
	}
}
