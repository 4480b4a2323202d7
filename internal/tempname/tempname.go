// Package tempname names the hidden temporary file under which package
// jsonl writes an offloaded file until the write ends, "." + name + ".tmp",
// and holds the flock(2) calls by which its Writer ([Lock], [Unlinked]) and
// package cleanup ([OpenForLock], [Lock]) tell a live write from the
// leftover of a dead process (see docs/cleanup.md).
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
	if base, ok2 := strings.CutSuffix(name, suffix); ok && ok2 {
		return base, true
	}
	return "", false
}
