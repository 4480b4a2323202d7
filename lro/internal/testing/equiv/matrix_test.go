package equiv

import (
	"flag"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"testing"
	"time"
)

var matrixFlag = flag.Bool("equiv.matrix", false, "also record the proxy's answers of the interop matrix (lro/internal/testing/interop TestMatrix: needs node and its node_modules)")

// interopDirs are where the interop tests are, relative to this folder,
// before and after they move under internal/testing.
var interopDirs = []string{"../../../../internal/interop", "../../../../internal/testing/interop", "../interop"}

// runMatrix runs the interop matrix, which writes the proxy's answers to
// a folder of root, and records them.
func runMatrix(t *testing.T, w *writer, root string) {
	var dir string
	for _, d := range interopDirs {
		if _, err := os.Stat(filepath.Join(d, "matrix.mjs")); err == nil {
			dir = d
			break
		}
	}
	if dir == "" {
		t.Errorf("no interop tests in %v", interopDirs)
		return
	}
	raw := filepath.Join(root, "mtx")
	if err := os.MkdirAll(raw, 0o700); err != nil {
		t.Error(err)
		return
	}
	start := time.Now().Truncate(time.Second)
	cmd := exec.Command("go", "test", "-count=1", "-run", "^TestMatrix$", ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "LRO_EQUIV_DIR="+raw)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("interop TestMatrix: %v\n%s", err, out)
	}
	answers := filepath.Join(raw, "answers")
	if _, err := os.Stat(answers); err != nil {
		t.Errorf("interop TestMatrix wrote no answers (a tree before its LRO_EQUIV_DIR hook?): %v", err)
		return
	}
	err := filepath.WalkDir(answers, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(answers, p)
		if err != nil {
			return err
		}
		// One norm per server: the numbers of ULIDs run over its answers.
		server, name, _ := cutPath(filepath.ToSlash(rel))
		n := w.norm("matrix/"+server, filepath.Join(raw, "out", server), start)
		w.recorder(path.Join("matrix", server), n, true).put(name, data)
		return nil
	})
	if err != nil {
		t.Error(err)
	}
}

// cutPath cuts a slash-separated path at its first slash.
func cutPath(p string) (first, rest string, ok bool) {
	for i := range len(p) {
		if p[i] == '/' {
			return p[:i], p[i+1:], true
		}
	}
	return p, "", false
}
