package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/store"
)

// TestOutputDir checks the folder the start-up log names: the one files
// are written to, never "" (which the log said without -output-dir).
func TestOutputDir(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	folder := t.TempDir()
	st, err := store.Open(context.Background(), folder, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tests := []struct {
		name   string
		opts   *lro.Options
		want   string
		reason string
	}{
		{"no folder set", &lro.Options{}, tmp, "the default is the system's temporary folder"},
		{"a folder", &lro.Options{OutputDir: "/srv/lro"}, "/srv/lro", "as given"},
		{"a folder store", &lro.Options{Store: st}, folder, "the store's folder"},
	}
	for _, tt := range tests {
		if got := outputDir(tt.opts); got != tt.want {
			t.Errorf("%s: outputDir = %q, want %q: %s", tt.name, got, tt.want, tt.reason)
		}
	}
	a, err := setup([]string{"-records", "1"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if got := outputDir(a.opts); !filepath.IsAbs(got) || got != tmp {
		t.Errorf("outputDir of the default configuration = %q, want %q", got, tmp)
	}
}

// TestStdioHint checks the line printed when stdin is a terminal (a
// character device), and only then.
func TestStdioHint(t *testing.T) {
	tty, err := os.Open(os.DevNull) // a character device, as a terminal is
	if err != nil {
		t.Fatal(err)
	}
	defer tty.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "in"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	tests := []struct {
		name  string
		stdin *os.File
		hint  bool
	}{
		{"terminal", tty, true},
		{"regular file", file, false},
		{"pipe from a client", r, false},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		stdioHint(&out, tt.stdin)
		got := out.String()
		if tt.hint != (got != "") {
			t.Errorf("%s: hint %q, want one: %v", tt.name, got, tt.hint)
		}
		if tt.hint && (strings.Count(got, "\n") != 1 || !strings.Contains(got, "waiting for an MCP client on stdin")) {
			t.Errorf("%s: hint %q, want one line saying it waits for an MCP client on stdin", tt.name, got)
		}
	}
}
