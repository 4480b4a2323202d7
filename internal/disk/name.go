package disk

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/oklog/ulid/v2"

	"github.com/zircote/lro-go/internal/spec"
)

const (
	maxPrefixLen      = 64       // with the rest, a temporary name stays far below 255 bytes
	randomBytes       = 16       // the random part of NewName's names, in twice as many hex digits
	maxOperationLen   = 48       // the operation part of a file name
	fallbackOperation = "result" // an operation with no usable character
	ext               = ".jsonl"
)

// ValidatePrefix returns an error wrapping [ErrInvalidPrefix] and naming
// prefix unless prefix is empty (meaning [spec.DefaultPrefix]) or is at most 64
// bytes of [A-Za-z0-9_.-] not starting with a dot: a prefix that cannot
// form a hidden file, a path or a name of more than 255 bytes.
func ValidatePrefix(prefix string) error {
	if len(prefix) > maxPrefixLen {
		return fmt.Errorf("%w %q: longer than %d bytes", ErrInvalidPrefix, prefix, maxPrefixLen)
	}
	if strings.HasPrefix(prefix, ".") {
		return fmt.Errorf("%w %q: starts with a dot", ErrInvalidPrefix, prefix)
	}
	for i := 0; i < len(prefix); i++ {
		if c := prefix[i]; !isLowerAlnum(c) && !('A' <= c && c <= 'Z') && c != '_' && c != '.' && c != '-' {
			return fmt.Errorf("%w %q: byte %q not in [A-Za-z0-9_.-]", ErrInvalidPrefix, prefix, c)
		}
	}
	return nil
}

// SanitizeOperation makes op safe for a file name: ASCII letters
// lower-cased, ASCII digits and letters kept, every run of other runes (and
// '_') one '_', none at either end, at most 48 bytes; "result" when nothing
// is left. So "search memories" gives "search_memories" and "記憶"
// "result". The result matches ^[a-z0-9]+(_[a-z0-9]+)*$ (no '-', which
// separates the parts of a name) and is its own SanitizeOperation, made
// without allocating.
func SanitizeOperation(op string) string {
	var buf [maxOperationLen]byte // on the stack: no allocation when op is kept
	b := buf[:0]
	sep := false // a separator is pending before the next kept byte
	for i := 0; i < len(op); i++ {
		c := op[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if !isLowerAlnum(c) {
			// Each byte of a multi-byte rune lands here: one '_' for the run.
			sep = len(b) > 0 // dropped at the start
			continue
		}
		if sep && len(b)+2 <= maxOperationLen {
			b, sep = append(b, '_'), false
		}
		if sep || len(b) == maxOperationLen { // no room for c (and its '_')
			break
		}
		b = append(b, c)
	}
	switch {
	case len(b) == 0:
		return fallbackOperation
	case string(b) == op:
		return op
	}
	return string(b)
}

func isLowerAlnum(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }

// Name returns the base name of an offloaded file,
// "{prefix}-{operation}-{ulid}.jsonl", with operation passed through
// [SanitizeOperation]. An empty prefix means [spec.DefaultPrefix]; prefix is
// otherwise used as is, and should satisfy [ValidatePrefix].
func Name(prefix, operation string, id ulid.ULID) string {
	return cmp.Or(prefix, spec.DefaultPrefix) + "-" + SanitizeOperation(operation) + "-" + id.String() + ext
}

// ParseName parses a base name made by [Name], with or without the random
// part of [NewName] (random set), for the given prefix (empty means
// [spec.DefaultPrefix]): ok is false for anything else, in particular temporary
// files and files of another prefix, even one that extends this one with
// "-" (operations contain no '-'). When ok, id.Time() is the file's creation
// time, which a janitor compares with its TTL.
func ParseName(base, prefix string) (operation string, id ulid.ULID, ok bool) {
	rest, found := strings.CutPrefix(base, cmp.Or(prefix, spec.DefaultPrefix))
	if !found || !strings.HasPrefix(rest, "-") {
		return "", ulid.ULID{}, false
	}
	rest, found = strings.CutSuffix(rest[1:], ext)
	if n := len(rest) - 2*randomBytes - 1; found && n > 0 && rest[n] == '-' && strings.Trim(rest[n+1:], "0123456789abcdef") == "" {
		rest = rest[:n] // the random part of NewName's names
	}
	// rest is now "{operation}-{ulid}" with a non-empty operation.
	if !found || len(rest) < 1+1+ulid.EncodedSize {
		return "", ulid.ULID{}, false
	}
	op, idText := rest[:len(rest)-ulid.EncodedSize-1], rest[len(rest)-ulid.EncodedSize:]
	if rest[len(op)] != '-' || SanitizeOperation(op) != op {
		return "", ulid.ULID{}, false
	}
	id, err := ulid.ParseStrict(idText)
	if err != nil || id.String() != idText { // also rejects lower case
		return "", ulid.ULID{}, false
	}
	return op, id, true
}
