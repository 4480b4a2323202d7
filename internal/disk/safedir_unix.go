//go:build unix

package disk

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxLinks bounds the symlinks CheckDir follows, as the kernel's ELOOP.
const maxLinks = 40

// readFlags make OpenRead fail on a symbolic link (ELOOP) and return at
// once on a FIFO instead of waiting for a writer.
const readFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK

// Links returns the number of hard links to the file fi describes.
func Links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// Foreign reports whether the file fi of the folder open as root is owned
// by a user other than this process's while other users may write to the
// folder (sticky, as CheckDir allows), or the folder is another user's
// (not root's), as CheckDir refuses: one made, or a symbolic link put in
// its place, after the folder was checked. A folder of this user alone may
// hold files of another owner that no other user put there (root-squashed
// NFS).
func Foreign(root *os.Root, fi fs.FileInfo) bool {
	euid := uint32(os.Geteuid())
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || st.Uid == euid {
		return false
	}
	dir, err := root.Stat(".")
	if err != nil || dir.Mode().Perm()&0o022 != 0 {
		return true
	}
	dst, ok := dir.Sys().(*syscall.Stat_t)
	return ok && dst.Uid != euid && dst.Uid != 0
}

// CheckDir reports why the absolute path dir is no safe place for offloaded
// files: a folder on it (the folder itself or one above it, symlinks
// followed) is owned by a user other than this process's or root, or is
// writable by group or others without the sticky bit; or a symlink on it is
// owned by another user. Any of these lets another user replace the folder
// or the files in it, and so choose what a read serves or what a write
// touches. The system temp folder (root's, sticky) is safe. A part of dir
// that does not exist yet is not checked: [Create] makes it, with mode 0700.
func CheckDir(dir string) error {
	_, err := checkDir(dir)
	return err
}

// checkDir is CheckDir, and reports whether all of dir exists: else a
// part of it was not checked.
func checkDir(dir string) (whole bool, err error) {
	if !filepath.IsAbs(dir) {
		return false, fmt.Errorf("jsonl: folder %q is not absolute", dir)
	}
	euid := uint32(os.Geteuid())
	trusted := func(p string, fi fs.FileInfo) error {
		st, ok := fi.Sys().(*syscall.Stat_t)
		if !ok {
			return nil
		}
		what := "folder"
		if fi.Mode()&fs.ModeSymlink != 0 {
			what = "symlink"
		}
		if st.Uid != euid && st.Uid != 0 {
			return fmt.Errorf("%w: %s %s is owned by another user (uid %d), who could replace what is in it", ErrUnsafeDir, what, p, st.Uid)
		}
		if what == "folder" && fi.Mode().Perm()&0o022 != 0 && fi.Mode()&fs.ModeSticky == 0 {
			by := "group"
			if fi.Mode().Perm()&0o002 != 0 {
				by = "others"
			}
			return fmt.Errorf("%w: folder %s is writable by %s without the sticky bit, so another user could replace the files in it (chmod go-w or chmod +t)", ErrUnsafeDir, p, by)
		}
		return nil
	}
	cur := "/"
	fi, err := os.Lstat(cur)
	if err != nil {
		return false, fmt.Errorf("jsonl: %w", err)
	}
	if err := trusted(cur, fi); err != nil {
		return false, err
	}
	todo := strings.Split(strings.Trim(dir, "/"), "/")
	for links := 0; len(todo) > 0; {
		part := todo[0]
		todo = todo[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur) // cur is a real folder: no symlink on it
			continue
		}
		next := filepath.Join(cur, part)
		fi, err := os.Lstat(next)
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil // the rest is made by Create, ours
		}
		if err != nil {
			return false, fmt.Errorf("jsonl: %w", err)
		}
		if err := trusted(next, fi); err != nil {
			return false, err
		}
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			if links++; links > maxLinks {
				return false, fmt.Errorf("jsonl: %w", &fs.PathError{Op: "check", Path: dir, Err: syscall.ELOOP})
			}
			target, err := os.Readlink(next)
			if err != nil {
				return false, fmt.Errorf("jsonl: %w", err)
			}
			if filepath.IsAbs(target) {
				cur = "/"
			}
			todo = append(strings.Split(target, "/"), todo...)
		case fi.IsDir():
			cur = next
		default:
			return true, nil // not a folder: opening a file in it fails
		}
	}
	return true, nil
}
