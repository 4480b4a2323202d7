package extract_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/jsonlfile"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/extract"
)

// TestRefusesUnsafeFolder: the tools are not added over a folder that
// another user could write to: they would read, and write answers, where
// that user chooses.
func TestRefusesUnsafeFolder(t *testing.T) {
	open := filepath.Join(t.TempDir(), "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "v0"}, nil)
	err := extract.AddTools(server, &extract.Options{LRO: &lro.Options{OutputDir: open}})
	if !errors.Is(err, lro.ErrInvalidOption) || !errors.Is(err, jsonlfile.ErrUnsafeDir) || !strings.Contains(err.Error(), "Options.LRO.OutputDir") {
		t.Errorf("AddTools over %s = %v; want ErrInvalidOption and ErrUnsafeDir naming Options.LRO.OutputDir", open, err)
	}
}
