package extract

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/zircote/lro-go/internal/disk"
	"github.com/zircote/lro-go/lro/store"
)

// toolError is an error whose message is shown to the model as a tool error.
type toolError struct {
	msg      string
	timedOut bool // the call's time limit (see stopped)
}

func (e *toolError) Error() string { return e.msg }

func errorf(format string, args ...any) error {
	return &toolError{msg: fmt.Sprintf(format, args...)}
}

// openFile opens the offloaded file r names in the output folder (with a
// folder Store, a live handle), through an os.Root on the folder, without
// blocking on a FIFO; it must be a regular file, not a symbolic link, the
// file it was checked to be, with a single hard link, and in a folder that
// others may write to the server's user's (disk.OpenChecked).
func (c *config) openFile(ctx context.Context, r ref) (*os.File, string, error) {
	base, err := c.checkPath(r)
	if err != nil {
		return nil, "", err
	}
	if c.Store != nil {
		rd, _, err := c.Store.NewRangeReader(ctx, base, 0, 0)
		if err != nil {
			return nil, "", c.storeError(ctx, r, err)
		}
		rd.Close()
	}
	root, err := os.OpenRoot(c.Dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, "", errorf("%s: the output folder %s does not exist (nothing has been offloaded yet)", r, c.Dir)
		}
		return nil, "", errorf("%s: cannot open the output folder: %v", r, err)
	}
	defer root.Close()
	openError := func(err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return errorf("%s: no such file in the output folder (offloaded files are deleted when their time to live passes)", r)
		}
		return errorf("%s: cannot open: %v", r, err)
	}
	checked, err := root.Lstat(base)
	if err != nil {
		return nil, "", openError(err)
	} else if checked.Mode()&fs.ModeSymlink != 0 {
		return nil, "", errorf("%s is a symbolic link: only regular files written by the offloader are read", r)
	}
	if c.beforeOpen != nil {
		c.beforeOpen(base)
	}
	f, fi, err := disk.OpenChecked(root, base, checked)
	switch {
	case errors.Is(err, disk.ErrNotRegular):
		return nil, "", errorf("%s is not a regular file", r)
	case errors.Is(err, disk.ErrReplaced):
		return nil, "", errorf("%s was replaced while it was opened: only files written by the offloader, which are never replaced, are read", r)
	case errors.Is(err, disk.ErrLinked):
		return nil, "", errorf("%s has %d hard links: only files written by the offloader, which have one, are read", r, disk.Links(fi))
	case errors.Is(err, disk.ErrForeign):
		return nil, "", errorf("%s is owned by another user, in an output folder that others may write to: only files written by the offloader, which are its user's, are read", r)
	case err != nil:
		return nil, "", openError(err)
	}
	return f, filepath.Join(c.Dir, base), nil
}

// checkPath returns the base name of the file r names after checking that
// it is an offloaded file directly in the output folder: a file_path is an
// absolute path in the folder or a bare name, a handle a bare name.
func (c *config) checkPath(r ref) (string, error) {
	path, base := r.value, r.value
	switch {
	case !strings.ContainsFunc(path, isSeparator) && path != "." && path != "..": // a bare name
	case r.arg == argHandle:
		return "", errorf("%s is not a handle: give the handle of the offload descriptor, a name without a folder", r)
	case filepath.IsAbs(path):
		if slices.Contains(strings.FieldsFunc(path, isSeparator), "..") {
			return "", errorf("%s contains a '..' element", r)
		}
		clean := filepath.Clean(path)
		if clean == c.Dir {
			return "", errorf("%s is the output folder, not an offloaded file in it", r)
		}
		dir := filepath.Dir(clean)
		if dir != c.Dir && !sameDir(dir, c.Dir) {
			return "", errorf("%s is outside the output folder %s: only offloaded files in that folder can be read", r, c.Dir)
		}
		base = filepath.Base(clean)
	default:
		return "", errorf("%s is a relative path: give the absolute file_path of the descriptor (or the bare file name)", r)
	}
	if _, _, ok := disk.ParseName(base, c.Prefix); !ok && c.Store == nil { // the Store checks its names
		return "", errorf("%s is not an offloaded file: offloaded files are named %s-{operation}-{ULID}.jsonl", r, c.Prefix)
	}
	return base, nil
}

// objectName returns the handle r names in a bucket: a handle, or the base
// name of a file_path. The Store checks it.
func objectName(r ref) string {
	if r.arg == argHandle {
		return r.value
	}
	return r.value[strings.LastIndexAny(r.value, `/\`)+1:]
}

// storeError is the tool error for the error of the Store about the file r
// names: an unknown or expired handle in the Store's words.
func (c *config) storeError(ctx context.Context, r ref, err error) error {
	switch {
	case errors.Is(err, store.ErrUnknownHandle), errors.Is(err, store.ErrExpiredHandle):
		if r.arg == argHandle {
			return errorf("%v", err)
		}
		if _, _, ok := disk.ParseName(objectName(r), c.Store.Prefix()); ok && c.Store.Bucket() != nil && errors.Is(err, store.ErrUnknownHandle) {
			return errorf("%s: %v; give the descriptor's handle: for a result kept in a bucket, file_path is where a downloaded copy is kept", r, err)
		}
		return errorf("%s: %v", r, err)
	case ctx.Err() != nil:
		return c.stopped(ctx)
	}
	return errorf("%s: cannot read the result from the store: %v", r, err)
}

func isSeparator(r rune) bool { return r == '/' || r == filepath.Separator }

// sameDir reports whether a and b are the same folder once symbolic links
// are resolved (/tmp on macOS).
func sameDir(a, b string) bool {
	ra, errA := filepath.EvalSymlinks(a)
	rb, errB := filepath.EvalSymlinks(b)
	return errA == nil && errB == nil && ra == rb
}
