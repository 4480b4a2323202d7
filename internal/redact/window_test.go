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

// TestKeywordsFoundAtEveryOffset: the scan finds each keyword of each
// rule, in upper and lower case when folded, at any offset, whichever of
// its two pairs starts at an even one (the url-password keyword where
// userinfo follows, as that rule requires).
func TestKeywordsFoundAtEveryOffset(t *testing.T) {
	r, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, ru := range builtin {
		for _, k := range ru.keywords {
			variants := []string{k}
			if ru.fold {
				variants = append(variants, strings.ToLower(k), strings.ToUpper(k))
			}
			for _, v := range variants {
				for pad := range 4 {
					s := strings.Repeat(" ", pad) + v + " "
					if ru.kind == "url-password" {
						s = strings.Repeat(" ", pad) + v + "u:p@h " // userinfo follows
					}
					found := false
					for _, h := range r.scan(s, false, nil) {
						found = found || h.pos == pad && h.rule == i
					}
					if !found {
						t.Errorf("%s: keyword %q at offset %d not found", ru.kind, v, pad)
					}
				}
			}
		}
	}
}

// TestScanStopsSeldom: the pairs that find keywords are rare in text, so
// that the scan of records without a credential stops at few of its
// pairs, below 2.5% of them in this English prose and JSON (4.6% when
// every keyword was found by its first two pairs).
func TestScanStopsSeldom(t *testing.T) {
	r, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	doc := strings.Repeat(`{"id":"0b7c0001-1f2e-4d3c-8b9a-000000000001","memory_type":"semantic","title":"Decision 1: cache invalidation strategy for the read path","content":"We decided to invalidate cache entries on write rather than on a timer, because stale reads were observed in the session logs after deploys; the change keeps p99 latency flat and removes a class of consistency bugs.","namespace":"_semantic/decisions","tags":["cache","architecture","team-1"],"status":"active","created":"2026-10-01T12:00:00Z","modified":"2026-11-01T08:30:00Z","summary":"Invalidate on write; p99 stays flat.","provenance":{"agent":"claude","confidence":0.51,"source_type":"agent","trust_level":"verified"}},`, 10)
	stops, pairs := 0, 0
	for i := 0; i+1 < len(doc); i += 2 {
		p := uint16(doc[i])<<8 | uint16(doc[i+1])
		pairs++
		if r.bits[p/64]&(1<<(p%64)) != 0 {
			stops++
		}
	}
	if got := float64(stops) / float64(pairs); got > 0.025 {
		t.Errorf("the scan stops at %.1f%% of the pairs, want at most 2.5%%", 100*got)
	}
}
