package extract

import (
	"bufio"
	"bytes"
	"encoding/gob"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestResultsFrame: the output of a worker's results follows their frame
// as it is, not encoded by gob, which would hold one more copy of an answer
// of MaxOutputBytes in the worker, where it counts against its memory, and
// one more in the server; the server reads it back whole, and refuses a
// size past MaxOutputBytes.
func TestResultsFrame(t *testing.T) {
	out := []byte(`"` + strings.Repeat("<", 1<<20) + `"` + "\n" + `{"a":1}`)
	res := &results{buf: out, Spans: []span{{0, 1<<20 + 2, true}, {1<<20 + 3, len(out), false}}, Records: 3, Errs: 1, FirstErr: "e"}
	var stream bytes.Buffer
	bw := bufio.NewWriter(&stream)
	enc := gob.NewEncoder(bw)
	if !writeFrame(enc, bw, &frame{Line: 7, Match: []byte("m")}) || !writeFrame(enc, bw, &frame{Results: res, Label: "q"}) {
		t.Fatal("writeFrame failed")
	}
	// The output ends the stream, unencoded.
	if !bytes.HasSuffix(stream.Bytes(), out) {
		t.Errorf("the stream does not end with the output as it is: %d bytes for an output of %d", stream.Len(), len(out))
	}
	data := slices.Clone(stream.Bytes())

	tests := []struct {
		name string
		max  int
		want bool // whether the results frame is read
	}{
		{"output of at most max", len(out), true},
		{"output past max", len(out) - 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			br := bufio.NewReader(bytes.NewReader(data))
			dec := gob.NewDecoder(br)
			var first, second frame
			if !readFrame(dec, br, &first, tt.max) || first.Line != 7 || string(first.Match) != "m" {
				t.Fatalf("first frame: %+v", first)
			}
			if got := readFrame(dec, br, &second, tt.max); got != tt.want {
				t.Fatalf("readFrame of the results: %v, want %v", got, tt.want)
			}
			if !tt.want {
				return
			}
			got := second.Results
			if diff := cmp.Diff(res, got, cmp.AllowUnexported(results{}), sameBytes); diff != "" {
				t.Errorf("results (-want +got):\n%s", diff)
			}
			if second.Label != "q" {
				t.Errorf("label %q, want q", second.Label)
			}
		})
	}
}

// sameBytes compares byte slices as cmp does by default (both nil, or both
// not nil with the same elements), in one call rather than a reflective
// step per byte: the output of TestResultsFrame is 1 MiB, which took cmp
// 20 s under the race detector.
var sameBytes = cmp.Comparer(func(a, b []byte) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) })

// TestWorkerEnvironment: a worker keeps C allocations in one arena
// (glibc), so that a thread it starts after setting its limit of address
// space does not reserve 64 MiB more of it.
func TestWorkerEnvironment(t *testing.T) {
	env := workerEnvironment(limits{MaxMemoryBytes: 128 << 20, MaxOutputBytes: 16 << 20})
	for _, want := range []string{workerEnv + "=1", "GOMAXPROCS=1", "MALLOC_ARENA_MAX=1", "GOMEMLIMIT=75497472"} {
		if !slices.Contains(env, want) {
			t.Errorf("worker environment %q lacks %q", env, want)
		}
	}
}
