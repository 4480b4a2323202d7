package offload

import (
	"strings"
	"testing"
)

// TestCheckURI: a uri is refused exactly when go-sdk's %q of it is not
// JSON, naming the first character at fault.
func TestCheckURI(t *testing.T) {
	for _, tt := range []struct {
		uri, want string // want "" for a uri let through
		why       string
	}{
		{"lro://results/atlatl-recall-01J", "", "a handle"},
		{"file:///tmp/a b/é.txt", "", "printable characters, quoted as they are"},
		{"x\u00ad\u2028", "", "not printable below U+10000: %q writes \\u00ad, which is JSON"},
		{"x\t\n\r\b\f", "", "escapes JSON has"},
		{"x\x00", "U+0000 at byte 1", "NUL: %q writes \\x00"},
		{"x\a", "U+0007 at byte 1", "BEL: %q writes \\a"},
		{"é\x7f", "U+007F at byte 2", "DEL, after a two-byte character"},
		{"x\v", "U+000B at byte 1", "%q writes \\v"},
		{"x\U000E0001", "U+E0001 at byte 1", "not printable above U+FFFF: %q writes \\U000e0001"},
		{"x\xff", "the byte 0xff, which is not UTF-8, at byte 1", "%q writes \\xff"},
	} {
		err := checkURI(tt.uri)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%q (%s): %v, want nil", tt.uri, tt.why, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%q (%s): %v, want an error naming %s", tt.uri, tt.why, err, tt.want)
		}
	}
}
