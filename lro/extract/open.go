package extract

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/zircote/lro-go/jsonl"
)

// toolError is an error whose message is shown to the model as a tool error.
type toolError struct{ msg string }

func (e *toolError) Error() string { return e.msg }

func errorf(format string, args ...any) error {
	return &toolError{fmt.Sprintf(format, args...)}
}

// openFile opens the offloaded file at path for reading. path must be the
// absolute path of a file directly in the output folder (as a descriptor's
// file_path is), or the bare name of one. The file is opened through an
// os.Root on the folder, without following a symbolic link and without
// blocking (a FIFO cannot hang the call), and must be a regular file named
// like an offloaded file, with a single hard link.
func (c *config) openFile(path string) (*os.File, string, error) {
	base, err := c.checkPath(path)
	if err != nil {
		return nil, "", err
	}
	root, err := os.OpenRoot(c.Dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, "", errorf("file_path %q: the output folder %s does not exist (nothing has been offloaded yet)", path, c.Dir)
		}
		return nil, "", errorf("file_path %q: cannot open the output folder: %v", path, err)
	}
	defer root.Close()
	if fi, err := root.Lstat(base); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, "", errorf("file_path %q is a symbolic link: only regular files written by the offloader are read", path)
	}
	// O_NOFOLLOW refuses a link swapped in after the check above.
	f, err := root.OpenFile(base, os.O_RDONLY|openFlags, 0)
	if err != nil {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, "", errorf("file_path %q: no such file in the output folder (offloaded files are deleted when their time to live passes)", path)
		case errors.Is(err, syscall.ELOOP):
			return nil, "", errorf("file_path %q is a symbolic link: only regular files written by the offloader are read", path)
		default:
			return nil, "", errorf("file_path %q: cannot open: %v", path, err)
		}
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, "", errorf("file_path %q is not a regular file", path)
	}
	// A hard link in the folder to a file elsewhere looks like a file of
	// the folder; the offloader's files have one link (each is written
	// under a temporary name and renamed).
	if n := links(fi); n > 1 {
		f.Close()
		return nil, "", errorf("file_path %q has %d hard links: only files written by the offloader, which have one, are read", path, n)
	}
	return f, filepath.Join(c.Dir, base), nil
}

// checkPath returns the base name of path after checking that it names an
// offloaded file directly in the output folder.
func (c *config) checkPath(path string) (string, error) {
	if path == "" {
		return "", errorf("file_path is empty: give the file_path of an offload descriptor")
	}
	if strings.IndexByte(path, 0) >= 0 {
		return "", errorf("file_path contains a NUL byte")
	}
	var base string
	if filepath.IsAbs(path) {
		if slices.Contains(strings.FieldsFunc(path, isSeparator), "..") {
			return "", errorf("file_path %q contains a '..' element", path)
		}
		clean := filepath.Clean(path)
		if clean == c.Dir {
			return "", errorf("file_path %q is the output folder, not an offloaded file in it", path)
		}
		dir := filepath.Dir(clean)
		if dir != c.Dir && !sameDir(dir, c.Dir) {
			return "", errorf("file_path %q is outside the output folder %s: only offloaded files in that folder can be read", path, c.Dir)
		}
		base = filepath.Base(clean)
	} else {
		if strings.ContainsFunc(path, isSeparator) || path == "." || path == ".." {
			return "", errorf("file_path %q is a relative path: give the absolute file_path of the descriptor (or the bare file name)", path)
		}
		base = path
	}
	if _, _, ok := jsonl.ParseName(base, c.Prefix); !ok {
		return "", errorf("file_path %q is not an offloaded file: offloaded files are named %s-{operation}-{ULID}.jsonl", path, c.Prefix)
	}
	return base, nil
}

func isSeparator(r rune) bool { return r == '/' || r == filepath.Separator }

// sameDir reports whether a and b are the same folder once symbolic links
// in them are resolved (the descriptor may name the folder through a link,
// /tmp on macOS for example).
func sameDir(a, b string) bool {
	ra, err := filepath.EvalSymlinks(a)
	if err != nil {
		return false
	}
	rb, err := filepath.EvalSymlinks(b)
	return err == nil && ra == rb
}
