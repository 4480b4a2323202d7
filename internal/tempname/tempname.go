// Package tempname names the hidden temporary file under which package
// jsonl writes an offloaded file until the write ends: "." + name + ".tmp",
// in the same folder. Package cleanup recognizes by this name the temporary
// files that a process which died while writing left behind.
//
// A temporary file belongs to its jsonl.Writer until Commit renames it or
// Abort removes it, however long the write takes. Where flock(2) exists, the
// Writer holds an exclusive flock lock on it all that time, so that a
// janitor can tell a live write from a dead one: it opens the file (without
// following a symlink), tries flock(LOCK_EX|LOCK_NB), leaves the file alone
// if that would block, and otherwise removes it by name while it holds the
// lock; a Writer that finds its new file already removed when it gets the
// lock starts again under a new name. Where flock(2) does not exist, or the
// file system refuses locks, only the file's age can tell. [Lock] and
// [Unlinked] are the flock(2) calls of both sides.
package tempname

import "strings"

// suffix ends the name of every temporary file.
const suffix = ".tmp"

// Of returns the name of the temporary file of the file named base.
func Of(base string) string { return "." + base + suffix }

// Base returns the name of the file whose temporary file is named temp, and
// reports whether temp is the name of a temporary file at all.
func Base(temp string) (base string, ok bool) {
	name, ok := strings.CutPrefix(temp, ".")
	if !ok {
		return "", false
	}
	if base, ok = strings.CutSuffix(name, suffix); !ok {
		return "", false
	}
	return base, true
}
