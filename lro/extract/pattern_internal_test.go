package extract

import (
	"encoding/json"
	"github.com/zircote/lro-go/lro"
	"runtime"
	"strings"
	"testing"
)

// TestPatternsLeftToTheWorker parses calls with large regular expressions
// as the server does: it neither compiles nor parses them (which costs up
// to hundreds of MB for a pattern within maxQueryBytes), the worker does,
// within the limits of the call.
func TestPatternsLeftToTheWorker(t *testing.T) {
	c, err := newConfig(&Options{LRO: &lro.Options{OutputDir: t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	raw := func(v any) json.RawMessage {
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	classes := strings.Repeat(`\pL`, maxQueryBytes/len(`\pL`)) // about 290 MB to parse
	tests := []struct {
		name  string
		parse func(args) error
		args  args
	}{
		{"lro_search, a pattern of classes", func(a args) error { _, _, err := c.parseSearch(a); return err },
			args{argFilePath: raw("/x"), argPattern: raw(classes)}},
		{"lro_search, a pattern of repeated classes", func(a args) error { _, _, err := c.parseSearch(a); return err },
			args{argFilePath: raw("/x"), argPattern: raw(strings.Repeat(`\pL{1000}`, 3000))}},
		{"where matches, a pattern of classes", func(a args) error { _, err := parseWhere(a); return err },
			args{argWhere: raw(map[string]any{"n": map[string]any{"matches": strings.Repeat(`\pL`, 10000)}})}},
		{"where matches, a pattern of repeated classes", func(a args) error { _, err := parseWhere(a); return err },
			args{argWhere: raw(map[string]any{"n": map[string]any{"matches": strings.Repeat(`\pL{1000}`, 3000)}})}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			err := tt.parse(tt.args)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 2<<20 {
				t.Errorf("parsing the call allocated %d bytes", alloc)
			}
		})
	}
}
