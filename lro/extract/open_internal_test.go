package extract

import (
	"context"
	"github.com/zircote/lro-go/lro"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenRefusesAFileReplaced replaces an offloaded file between its check
// and its opening, by a symbolic link to another file of the folder (which
// os.Root follows, O_NOFOLLOW or not) or by another file: the file opened
// is not the file checked, and the call is refused.
func TestOpenRefusesAFileReplaced(t *testing.T) {
	const secret = "TOP-SECRET-51c2"
	tests := []struct {
		name    string
		replace func(t *testing.T, path, other string)
	}{
		{"by a symbolic link", func(t *testing.T, path, other string) {
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(filepath.Base(other), path); err != nil {
				t.Fatal(err)
			}
		}},
		{"by another file", func(t *testing.T, path, other string) {
			if err := os.Rename(other, path); err != nil {
				t.Fatal(err)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := writeFile(t, dir, "public")
			other := writeFile(t, dir, secret)
			c, err := newConfig(&Options{LRO: &lro.Options{OutputDir: dir}})
			if err != nil {
				t.Fatal(err)
			}
			c.beforeOpen = func(base string) {
				if base == filepath.Base(path) {
					tt.replace(t, path, other)
				}
			}
			f, _, err := c.openFile(context.Background(), ref{argFilePath, path})
			if err == nil {
				b := make([]byte, 4096)
				n, _ := f.Read(b)
				f.Close()
				t.Fatalf("opened, reads %q", b[:n])
			}
			if !strings.Contains(err.Error(), "was replaced while it was opened") {
				t.Errorf("error %q", err)
			}
		})
	}
}
