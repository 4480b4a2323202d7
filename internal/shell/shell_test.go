package shell_test

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/zircote/lro-go/internal/shell"
)

var nasty = []string{
	"",
	"plain",
	"with space",
	"it's",
	"''",
	`'\''`,
	`"double" and 'single'`,
	"$HOME ${PATH} $(echo pwned) `echo pwned`",
	`back\slash \n \\`,
	"new\nline and\ttab\r",
	"glob * ? [a-z] ~ ~root",
	"semi; && || | > < & #comment",
	"-n",
	"--arg",
	"ünïcødé ✓ 日本語",
	"\x01\x7f control",
	"!history !!",
}

func TestQuote(t *testing.T) {
	tests := []struct {
		in, want, reason string
	}{
		{"", "''", "empty is an empty quoted word"},
		{"abc", "'abc'", "always quoted, even when plain"},
		{"it's", `'it'\''s'`, "a single quote closes, escapes and reopens"},
		{"'", `''\'''`, "a lone single quote"},
		{"$x `y` \\ \"z\"", "'$x `y` \\ \"z\"'", "nothing else is special inside single quotes"},
		{"a\nb", "'a\nb'", "newlines stay literal"},
	}
	for _, tt := range tests {
		if got := shell.Quote(tt.in); got != tt.want {
			t.Errorf("%s: Quote(%q) = %q, want %q", tt.reason, tt.in, got, tt.want)
		}
	}
}

// shellEcho returns what sh makes of the word w.
func shellEcho(t testing.TB, w string) string {
	t.Helper()
	out, err := exec.Command("sh", "-c", "printf %s "+w).Output()
	if err != nil {
		t.Fatalf("sh -c 'printf %%s %s': %v", w, err)
	}
	return string(out)
}

func TestQuoteRoundTrip(t *testing.T) {
	for _, s := range nasty {
		if got := shellEcho(t, shell.Quote(s)); got != s {
			t.Errorf("sh read Quote(%q) as %q", s, got)
		}
	}
}

func FuzzQuote(f *testing.F) {
	for _, s := range nasty {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 256 || strings.IndexByte(s, 0) >= 0 {
			t.Skip("no shell word holds NUL; bound the input")
		}
		q := shell.Quote(s)
		if !strings.HasPrefix(q, "'") || !strings.HasSuffix(q, "'") {
			t.Fatalf("Quote(%q) = %q is not single-quoted", s, q)
		}
		if got := shellEcho(t, q); got != s {
			t.Fatalf("sh read Quote(%q) = %s as %q", s, q, got)
		}
	})
}
