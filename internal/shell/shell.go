// Package shell writes the words of POSIX shell commands: the jq recipes'
// command lines and the commands that descriptors and tests print.
package shell

import "strings"

// Word returns s unchanged when it is a plain word that a POSIX shell
// leaves as it is (letters, digits and _ . / + , : @ % = -, not empty, not
// starting with '-' or '='), and [Quote](s) otherwise.
func Word(s string) string {
	if s == "" || s[0] == '-' || s[0] == '=' {
		return Quote(s)
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || strings.ContainsRune("_./+,:@%=-", c)) {
			return Quote(s)
		}
	}
	return s
}

// Quote quotes s in single quotes for a POSIX shell, as one word whose
// value is exactly s (no shell word holds a NUL byte):
//
//	Quote("it's") == `'it'\''s'`
func Quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
