package memory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLoadRoundTrip(t *testing.T) {
	want := Generate(40, 3)
	got, err := Load(strings.NewReader(string(marshalAll(t, want))), "corpus.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Load(marshalled corpus) mismatch (-want +got):\n%s", diff)
	}
}

func TestLoadFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.jsonl")
	if err := os.WriteFile(path, []byte(`{"id":"x"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	ms, err := LoadFile(path)
	if err != nil || len(ms) != 1 || ms[0].ID != "x" {
		t.Errorf("LoadFile = %+v, %v", ms, err)
	}
	if _, err := LoadFile(filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("LoadFile of a missing file succeeded")
	}
}

func TestLoad(t *testing.T) {
	const header = `{"type":"lro_header","operation":"recall","query":"redis","count":2,"schema_version":"1.0","timestamp":"2025-01-01T00:00:00Z","estimated_tokens":99,"detail":"medium"}`
	tests := []struct {
		name    string
		in      string
		wantIDs []string
		wantErr string
	}{
		{"empty file", "", nil, ""},
		{"blank lines are skipped", "\n{\"id\":\"a\"}\n\n  \n{\"id\":\"b\"}", []string{"a", "b"}, ""},
		{"an LRO header on line 1 is skipped", header + "\n{\"id\":\"a\",\"confidence\":0.5}\n{\"id\":\"b\"}\n", []string{"a", "b"}, ""},
		{"CRLF line ends", "{\"id\":\"a\"}\r\n{\"id\":\"b\"}\r\n", []string{"a", "b"}, ""},
		{"malformed JSON names the line", "{\"id\":\"a\"}\n{\"id\":\"b\"\n", nil, "f.jsonl:2: invalid JSON"},
		{"a memory without id", "{\"id\":\"a\"}\n\n{\"title\":\"t\"}\n", nil, `f.jsonl:3: memory without "id"`},
		{"a header after line 1 is a memory without id", "{\"id\":\"a\"}\n" + header, nil, `f.jsonl:2: memory without "id"`},
		{"a bad memory type", `{"id":"a","memory_type":"dream"}`, nil, `f.jsonl:1: memory a: memory_type "dream" is not`},
		{"a duplicate id", "{\"id\":\"a\"}\n{\"id\":\"b\"}\n{\"id\":\"a\"}", nil, "f.jsonl:3: duplicate id a (first on line 1)"},
		{"a JSON array is not a memory", `[1,2]`, nil, "f.jsonl:1: invalid JSON"},
		{"wrong field type", `{"id":"a","tags":"x"}`, nil, "f.jsonl:1: invalid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ms, err := Load(strings.NewReader(tt.in), "f.jsonl")
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("Load error = %v, want prefix %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, m := range ms {
				ids = append(ids, m.ID)
			}
			if diff := cmp.Diff(tt.wantIDs, ids); diff != "" {
				t.Errorf("ids mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// A medium-detail record's top-level confidence lands in the provenance.
func TestLoadMediumConfidence(t *testing.T) {
	ms, err := Load(strings.NewReader(`{"id":"a","confidence":0.75,"summary":"s"}`), "f")
	if err != nil {
		t.Fatal(err)
	}
	if got := ms[0].Confidence(); got != 0.75 {
		t.Errorf("confidence = %v, want 0.75", got)
	}
	if ms[0].Summary != "s" || ms[0].Tags == nil {
		t.Errorf("memory = %+v", ms[0])
	}
}

func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"id":"a"}` + "\n" + `{"id":"b","tags":["x"]}`))
	f.Add([]byte(`{"type":"lro_header"}` + "\n" + `{"id":"a"}`))
	f.Add([]byte("{\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 {
			return
		}
		ms, err := Load(strings.NewReader(string(data)), "fuzz")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz:") {
				t.Errorf("error %q does not start with the file name", err)
			}
			return
		}
		if _, err := NewStore(ms); err != nil {
			t.Errorf("loaded memories do not store: %v", err)
		}
	})
}
