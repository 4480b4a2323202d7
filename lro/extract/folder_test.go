package extract_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/disk"
	"github.com/zircote/lro-go/jsonl"
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
	if !errors.Is(err, lro.ErrInvalidOption) || !errors.Is(err, disk.ErrUnsafeDir) || !strings.Contains(err.Error(), "Options.LRO.OutputDir") {
		t.Errorf("AddTools over %s = %v; want ErrInvalidOption and ErrUnsafeDir naming Options.LRO.OutputDir", open, err)
	}
}

// TestAddToolsSweepsAtStart: the answers (and results) a stopped server
// left in the folder are deleted by the next one soon after AddTools, before
// anything is offloaded: the expired one at once, the other at its expiry.
func TestAddToolsSweepsAtStart(t *testing.T) {
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		leave := func(age time.Duration) string {
			w, err := createAt(dir, "", "lro_extract", time.Now().Add(-age), nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.WriteHeader(jsonl.Header{}); err != nil {
				t.Fatal(err)
			}
			if err := w.Commit(); err != nil {
				t.Fatal(err)
			}
			return w.Path()
		}
		expired, fresh := leave(2*time.Hour), leave(30*time.Minute)
		server := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "v0"}, nil)
		if err := extract.AddTools(server, &extract.Options{LRO: &lro.Options{OutputDir: dir}}); err != nil {
			t.Fatal(err)
		}
		synctest.Wait()
		if _, err := os.Stat(expired); !os.IsNotExist(err) {
			t.Errorf("the expired file at start: stat error %v, want it deleted", err)
		}
		if _, err := os.Stat(fresh); err != nil {
			t.Fatalf("the file with half an hour to live: %v, want it kept", err)
		}
		time.Sleep(31 * time.Minute)
		synctest.Wait()
		if _, err := os.Stat(fresh); !os.IsNotExist(err) {
			t.Errorf("after its TTL: stat error %v, want the file deleted", err)
		}
	})
}

// createAt starts the file of operation in dir, as jsonl.Create does, under
// a name of time at, writing through wrap if not nil.
func createAt(dir, prefix, operation string, at time.Time, wrap func(io.Writer) io.Writer) (*jsonl.Writer, error) {
	f, err := disk.Create(dir, prefix, operation, at, false, nil)
	if err != nil {
		return nil, err
	}
	return jsonl.NewWriter(disk.Wrap(f, wrap), f.Path(), operation), nil
}
