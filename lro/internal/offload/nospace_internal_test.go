package offload

import "testing"

// TestNoSpace checks the rule that lets a compact JSON text skip being
// printed back: white space outside strings, and only there, says the
// text is not compact.
func TestNoSpace(t *testing.T) {
	for _, c := range []struct {
		doc  string
		want bool
		why  string
	}{
		{`[1,2,{"a":"b c"}]`, true, "a space inside a string"},
		{`[1, 2]`, false, "a space after a comma"},
		{"{\"a\":\n1}", false, "a newline after a colon"},
		{`["a\"", "b"]`, false, "an escaped quote, then a space outside"},
		{`["a\\",1]`, true, "an escaped backslash ends the string"},
		{`["a\\\" ",1]`, true, "an escaped backslash, an escaped quote and a space inside"},
		{`{"a":"x\ty"}`, true, "a tab inside a string"},
		{`[]`, true, "no string at all"},
		{"[\t]", false, "a tab, no string at all"},
	} {
		if got := noSpace([]byte(c.doc)); got != c.want {
			t.Errorf("noSpace(%q) = %v, want %v (%s)", c.doc, got, c.want, c.why)
		}
	}
}
