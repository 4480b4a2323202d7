package redact

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestLinear counts the bytes the expressions read on one line of a
// keyword repeated: at most a few times the line, whatever its length.
func TestLinear(t *testing.T) {
	r, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"0Q~", "T3BlbkFJ", "bearer ", "-eyJ", "authorization=-", "basic ", "://a:b@", "xoxb-1-"} {
		s := strings.Repeat(k, (256<<10)/len(k))
		read := 0
		r.onRead = func(n int) { read += n }
		r.String(s, Counts{})
		r.onRead = nil
		if read == 0 {
			t.Errorf("%q repeated: no expression read anything (onRead not called?)", k)
		}
		if read > 2*len(s) {
			t.Errorf("%q repeated: the expressions read %d bytes of %d, want at most %d", k, read, len(s), 2*len(s))
		}
	}
}

// TestWindows finds the secrets that follow or sit among keywords whose
// match failed, on one line.
func TestWindows(t *testing.T) {
	r, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	jwt := "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.c2lnbmF0dXJlX2hlcmU"
	azure := "abc8Q~" + strings.Repeat("aB3_", 9)[:34]
	openai := "sk-" + strings.Repeat("aB3d", 5) + "T3BlbkFJ" + strings.Repeat("xY9z", 5)
	tok := "Abcdefghijklmnop1234"
	for _, c := range []struct{ in, want string }{
		{strings.Repeat("-eyJ", 1000) + " " + jwt, strings.Repeat("-eyJ", 1000) + " [REDACTED:jwt]"},
		{"bearer abc bearer " + tok + " bearer x", "bearer abc bearer [REDACTED:bearer-token] bearer x"},
		{strings.Repeat("0Q~", 1000) + " " + azure + " 1Q~", strings.Repeat("0Q~", 1000) + " [REDACTED:azure-ad-client-secret] 1Q~"},
		{strings.Repeat("T3BlbkFJ", 500) + " " + openai + " " + openai, strings.Repeat("T3BlbkFJ", 500) + " [REDACTED:openai-api-key] [REDACTED:openai-api-key]"},
		{"x " + azure + "\n" + azure, "x [REDACTED:azure-ad-client-secret]\n[REDACTED:azure-ad-client-secret]"},
		{"a://u:p@h " + strings.Repeat("x", 5000) + " b://v:q@h", "a://u:[REDACTED:url-password]@h " + strings.Repeat("x", 5000) + " b://v:[REDACTED:url-password]@h"},
		// A token longer than the window of its rule is not cut at its end.
		{" " + azure + strings.Repeat("a", 200), " " + azure + strings.Repeat("a", 200)},
	} {
		got := r.String(c.in, Counts{})
		if diff := cmp.Diff(c.want, got); diff != "" {
			t.Errorf("String(%.40q…) (-want +got):\n%s", c.in, diff)
		}
	}
}
