package extract_test

import (
	"strings"
	"testing"

	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/extract"
)

// TestLargestIntegerArguments gives the integer arguments the largest
// value a caller may write, math.MaxInt64, which a float64 rounds to 2^63:
// each means "no bound" and the answer is that of a large value, where the
// rounded value converted to int wrapped to a negative (lro_search with
// max_results=9223372036854775807 answered that no record matches).
func TestLargestIntegerArguments(t *testing.T) {
	dir := t.TempDir()
	path := offload(t, dir, "light", memories(5, "light"))
	cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir}})
	const largest = 9223372036854775807
	texts, isErr := call(t, cs, extract.ToolSearch, map[string]any{"file_path": path, "pattern": "Decision", "max_results": largest})
	if all := strings.Join(texts, "\n"); isErr || strings.Count(all, `"file_line"`) != 5 {
		t.Errorf("search with max_results=%d: %v %q", largest, isErr, all)
	}
	texts, isErr = call(t, cs, extract.ToolRead, map[string]any{"file_path": path, "line": 2, "limit": largest})
	if isErr || len(texts) == 0 || len(lines(texts[0])) != 5 {
		t.Errorf("read with limit=%d: %v %q", largest, isErr, texts)
	}
	texts, isErr = call(t, cs, extract.ToolRead, map[string]any{"file_path": path, "line": largest})
	if all := strings.Join(texts, "\n"); !isErr || !strings.Contains(all, "past the end of the file, which has 6 lines") {
		t.Errorf("read from line %d: %v %q", largest, isErr, all)
	}
	texts, isErr = call(t, cs, extract.ToolSearch, map[string]any{"file_path": path, "pattern": "Decision", "start_line": largest})
	if all := strings.Join(texts, "\n"); isErr || strings.Contains(all, `"file_line"`) || strings.Contains(all, "-") {
		t.Errorf("search from line %d: %v %q", largest, isErr, all)
	}
	texts, isErr = call(t, cs, extract.ToolRead, map[string]any{"file_path": path, "line": 2, "limit": 1, "char_offset": largest})
	if all := strings.Join(texts, "\n"); isErr || texts[0] != "2: \n" || strings.Contains(all, "-9") {
		t.Errorf("read from character %d: %v %q", largest, isErr, all)
	}
}

