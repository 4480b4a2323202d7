package main

import (
	"context"
	"os"
	"testing"

	"github.com/zircote/lro-go/estimate"
	"github.com/zircote/lro-go/examples/memory/memory"
)

func TestBPE(t *testing.T) {
	c, err := newCounters()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		reason string
		tok    estimate.Tokenizer
		text   string
		want   int
	}{
		{"two common words are two o200k tokens", c.o200k, "hello world", 2},
		{"and two cl100k tokens", c.cl100k, "hello world", 2},
		{"empty text has no tokens", c.o200k, "", 0},
		{"the estimator: ceil(11/4)", c.est, "hello world", 3},
	}
	for _, tt := range tests {
		if got := tt.tok.Tokens([]byte(tt.text)); got != tt.want {
			t.Errorf("Tokens(%q) = %d, want %d: %s", tt.text, got, tt.want, tt.reason)
		}
	}
}

// TestMeasureTokens measures a small result set and checks the shape of
// what the report relies on: every profile's descriptor, the profiles in
// decreasing size, the estimator's counts matching package estimate, and
// no file left behind.
func TestMeasureTokens(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	c, err := newCounters()
	if err != nil {
		t.Fatal(err)
	}
	rows, err := measureTokens(context.Background(), c, []int{20})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(details) {
		t.Fatalf("%d rows, want one per detail level (%d)", len(rows), len(details))
	}
	for _, r := range rows {
		if len(r.Descriptors) != len(profiles) {
			t.Fatalf("%s: %d descriptors, want %d", r.Detail, len(r.Descriptors), len(profiles))
		}
		full, noRecipes, noSchema, bare, native := r.Descriptors[0], r.Descriptors[1], r.Descriptors[2], r.Descriptors[3], r.Descriptors[4]
		if native.Bytes == full.Bytes {
			t.Errorf("%s: the native-guidance descriptor is as long as the shell one (%d bytes): ExtractTools had no effect", r.Detail, full.Bytes)
		}
		if !(full.O200k > max(noRecipes.O200k, noSchema.O200k) && min(noRecipes.O200k, noSchema.O200k) > bare.O200k && bare.O200k > 0) {
			t.Errorf("%s: descriptor sizes %d, %d, %d, %d are not full > (no recipes, no schema) > bare pointer > 0", r.Detail, full.O200k, noRecipes.O200k, noSchema.O200k, bare.O200k)
		}
		if r.Inline.Bytes == 0 || r.Inline.O200k == 0 || r.Inline.Est == 0 {
			t.Errorf("%s: empty inline measurement %+v", r.Detail, r.Inline)
		}
		if r.PathBytes <= len(tmp) {
			t.Errorf("%s: path length %d, want more than the folder's %d", r.Detail, r.PathBytes, len(tmp))
		}
	}
	light, full := rows[0], rows[2]
	if light.Detail != memory.Light || full.Detail != memory.Full || light.Inline.Bytes >= full.Inline.Bytes {
		t.Errorf("light inline %d bytes, full %d: want light first and smaller", light.Inline.Bytes, full.Inline.Bytes)
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("left behind in the output folder: %s", e.Name())
	}
}

func TestMeasureRecords(t *testing.T) {
	c, err := newCounters()
	if err != nil {
		t.Fatal(err)
	}
	got, err := measureRecords(c, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].Detail != memory.Light || got[2].Detail != memory.Full {
		t.Fatalf("measureRecords() = %+v, want light, medium, full", got)
	}
	for i := 1; i < len(got); i++ {
		if got[i].Bytes <= got[i-1].Bytes || got[i].O200k <= got[i-1].O200k {
			t.Errorf("%s records (%v bytes, %v tokens) are not larger than %s ones (%v, %v)", got[i].Detail, got[i].Bytes, got[i].O200k, got[i-1].Detail, got[i-1].Bytes, got[i-1].O200k)
		}
	}
}
