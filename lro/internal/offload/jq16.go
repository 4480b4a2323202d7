package offload

import (
	"bytes"
	"fmt"
	"strings"
)

// jq16Depth is jq 1.6's MAX_PARSING_DEPTH: it refuses to open an array or
// an object once its parser's stack holds that many entries, each open
// container and the key of each object whose member is being read
// counting one. jq 1.7 and gojq read far deeper values.
const jq16Depth = 256

// Reasons a record is unreadable by jq 1.6.
const (
	reasonSurrogate = "a lone surrogate escape such as \\ud800"
	reasonDepth     = "nesting deeper than jq 1.6 reads"
)

// jq16Unreadable returns why jq 1.6, the oldest jq in wide use, cannot
// parse the valid JSON line, or "" if it can. jq 1.6 fails the whole file
// at such a line: every recipe then exits with an error, and streaming ones
// print only the records before it. It costs one scan of line for each
// backslash and, only when line opens over 128 containers, one more.
func jq16Unreadable(line []byte) string {
	for i := bytes.IndexByte(line, '\\'); i >= 0; {
		// In valid JSON a backslash only starts an escape in a string.
		if line[i+1] == 'u' && isHighSurrogate(line[i+2:i+6]) {
			next := line[i+6:]
			if len(next) < 6 || next[0] != '\\' || next[1] != 'u' || !isLowSurrogate(next[2:6]) {
				return reasonSurrogate
			}
			i += 12
		} else {
			i += 2
		}
		j := bytes.IndexByte(line[i:], '\\')
		if j < 0 {
			break
		}
		i += j
	}
	// Opening the k-th nested container finds at most 2(k-1) entries.
	if bytes.Count(line, []byte{'['})+bytes.Count(line, []byte{'{'}) <= jq16Depth/2 {
		return ""
	}
	var open []bool // for each open container: it is an object with a key pending
	inString := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			depth := len(open)
			for _, key := range open {
				if key {
					depth++
				}
			}
			if depth >= jq16Depth {
				return reasonDepth
			}
			open = append(open, false)
		case ':':
			open[len(open)-1] = true
		case ',':
			open[len(open)-1] = false
		case ']', '}':
			open = open[:len(open)-1]
		}
	}
	return ""
}

// isHighSurrogate and isLowSurrogate report whether the four hex digits h
// are a UTF-16 high (D800-DBFF) or low (DC00-DFFF) surrogate.
func isHighSurrogate(h []byte) bool { return surrogate(h, "89abAB") }
func isLowSurrogate(h []byte) bool  { return surrogate(h, "cdefCDEF") }

func surrogate(h []byte, second string) bool {
	return len(h) == 4 && (h[0] == 'd' || h[0] == 'D') && strings.IndexByte(second, h[1]) >= 0
}

// jq16Lines collects the file lines of the records jq 1.6 cannot parse.
type jq16Lines struct {
	lines   []int // the first few, 1-based lines of the file
	count   int
	reasons []string // distinct, in order of appearance
}

// maxNamedLines is how many unreadable lines the descriptor names.
const maxNamedLines = 5

// add checks the record line, the file's line number n.
func (u *jq16Lines) add(line []byte, n int) {
	reason := jq16Unreadable(line)
	if reason == "" {
		return
	}
	u.count++
	if len(u.lines) < maxNamedLines {
		u.lines = append(u.lines, n)
	}
	for _, r := range u.reasons {
		if r == reason {
			return
		}
	}
	u.reasons = append(u.reasons, reason)
}

// warning returns the descriptor's sentence on the lines jq 1.6 cannot
// parse, or "" when there are none; native says that the extraction tools
// are there.
func (u *jq16Lines) warning(native bool) string {
	if u.count == 0 {
		return ""
	}
	var lines strings.Builder
	for i, n := range u.lines {
		if i > 0 {
			lines.WriteString(", ")
		}
		fmt.Fprint(&lines, n)
	}
	if u.count > len(u.lines) {
		fmt.Fprintf(&lines, " and %d more", u.count-len(u.lines))
	}
	use := "jq 1.7 or later"
	if native {
		use = "lro_extract, or jq 1.7 or later"
	}
	return fmt.Sprintf("jq 1.6 cannot parse line %s (%s): use %s.", lines.String(), strings.Join(u.reasons, "; "), use)
}
