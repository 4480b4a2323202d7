package extract_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/extract"
)

// TestToolsRefuseAForeignFile: in an output folder that other users may
// write to (sticky, as the system temp folder), a file named as an
// offloaded file that another user put there is not read: the tools read
// only files the offloader wrote. Run as root, which can give a file away.
func TestToolsRefuseAForeignFile(t *testing.T) {
	if os.Geteuid() != 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI must run as root to give a file to another user")
		}
		t.Skip("only root can give a file to another user")
	}
	const nobody = 65534
	dir := filepath.Join(t.TempDir(), "out")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, os.ModeSticky|0o777); err != nil {
		t.Fatal(err)
	}
	var paths []string
	for range 2 {
		w, err := jsonl.Create("recall", &jsonl.Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteHeader(jsonl.Header{Count: 1}); err != nil {
			t.Fatal(err)
		}
		if err := w.WriteRecord([]byte(`{"id":"planted"}`)); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, w.Path())
	}
	if err := os.Chown(paths[1], nobody, nobody); err != nil {
		t.Fatal(err)
	}
	cs := session(t, &extract.Options{LRO: &lro.Options{OutputDir: dir}})
	if out, isErr := call(t, cs, "lro_read", map[string]any{"file_path": paths[0]}); isErr {
		t.Fatalf("lro_read of the server's own file: %q", out)
	}
	for _, tool := range []string{"lro_read", "lro_search", "lro_extract"} {
		args := map[string]any{"file_path": paths[1]}
		switch tool {
		case "lro_search":
			args["pattern"] = "planted"
		case "lro_extract":
			args["query"] = "."
		}
		out, isErr := call(t, cs, tool, args)
		if !isErr || !strings.Contains(strings.Join(out, "\n"), "owned by another user") || strings.Contains(strings.Join(out, "\n"), "planted\"") {
			t.Errorf("%s of another user's file: %q, error %v; want a tool error naming its owner", tool, out, isErr)
		}
	}
}
