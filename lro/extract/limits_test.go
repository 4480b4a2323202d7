package extract_test

import (
	"math"
	"strings"
	"testing"

	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/extract"
)

// TestLargestOptionsWork: with every option at the largest value Validate
// accepts, the three tools answer as with the defaults (issue 34, item
// 10: limits computed from them used to wrap around).
func TestLargestOptionsWork(t *testing.T) {
	dir := t.TempDir()
	path := offload(t, dir, "light", memories(30, "light"))
	cs := session(t, &extract.Options{
		LRO:            &lro.Options{OutputDir: dir, ThresholdTokens: math.MaxInt},
		Timeout:        math.MaxInt64,
		MaxInputBytes:  math.MaxInt64,
		MaxRecordBytes: math.MaxInt,
		MaxOutputBytes: math.MaxInt64 / 8,
		MaxMemoryBytes: math.MaxInt64,
		Workers:        math.MaxInt,
	})
	for _, tt := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{extract.ToolExtract, map[string]any{"query": ".id"}, `"01J00000000000000000000029"`},
		{extract.ToolExtract, map[string]any{"recipe": 1}, "Decision 29"},
		{extract.ToolRead, map[string]any{"line": 31}, "31: "},
		{extract.ToolSearch, map[string]any{"pattern": "Decision 29:"}, `"file_line":31`},
	} {
		tt.args["file_path"] = path
		texts, isErr := call(t, cs, tt.tool, tt.args)
		if isErr || !strings.Contains(strings.Join(texts, "\n"), tt.want) {
			t.Errorf("%s(%v) = %v %.300q, want %q", tt.tool, tt.args, isErr, texts, tt.want)
		}
	}
}
