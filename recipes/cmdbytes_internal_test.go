package recipes

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/zircote/lro-go/internal/shell"
)

// descriptorJSON returns s as a descriptor's JSON text writes it (its
// encoder does not escape HTML).
func descriptorJSON(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// TestCommandBytes: commandBytes counts the bytes a string takes in a
// descriptor's command as it is written there: as an argument, in single
// quotes and JSON; as a field name in a filter, a jq string (jqString) in
// single quotes and JSON; the quotes around it not counted.
func TestCommandBytes(t *testing.T) {
	cases := []string{
		"", "plain", "with space", "it's", "''''", `"quoted"`, `back\slash`, "<a&b>",
		"new\nline\ttab\r\b\f", "\x00\x01\x1f\x7f", "ünïcødé 日本語", "\u2028\u2029",
		"bad \xff utf-8 \xc3", strings.Repeat("'", 197) + "07",
	}
	alphabet := []string{"a", "Z", "0", " ", "'", `"`, `\`, "<", ">", "&", "\n", "\t", "\b", "\f", "\x01", "\x1f",
		"\x7f", "é", "日", "\u2028", "\u2029", "\xff", "\xe2\x80", "$", "`", "-", "🙂"}
	r := rand.New(rand.NewPCG(23, 7))
	for range 2000 {
		var b strings.Builder
		for range r.IntN(40) {
			b.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		cases = append(cases, b.String())
	}
	for _, s := range cases {
		arg := len(descriptorJSON(t, shell.Quote(s))) - len(`"''"`)
		if got := commandBytes(s, false); got != arg {
			t.Errorf("commandBytes(%q, false) = %d, want %d: %s", s, got, arg, descriptorJSON(t, shell.Quote(s)))
		}
		filter := len(descriptorJSON(t, shell.Quote(jqString(s)))) - len(`"'\"\"'"`)
		if got := commandBytes(s, true); got != filter {
			t.Errorf("commandBytes(%q, true) = %d, want %d: %s", s, got, filter, descriptorJSON(t, shell.Quote(jqString(s))))
		}
	}
}

// TestNameableAndExampleValue: a field name, and a default value, are
// bounded by what they take in a command, not by their bytes.
func TestNameableAndExampleValue(t *testing.T) {
	tests := []struct {
		s               string
		nameable, value bool
		reason          string
	}{
		{strings.Repeat("a", 200), true, true, "200 plain bytes, as before"},
		{strings.Repeat("a", 201), false, false, "201 plain bytes, as before"},
		{strings.Repeat(" ", 200), true, true, "spaces take one byte in single quotes"},
		{strings.Repeat("'", 40), true, true, "40 apostrophes take 200 bytes"},
		{strings.Repeat("'", 41), false, false, "41 apostrophes take 205 bytes"},
		{strings.Repeat("'", 197) + "07", false, false, "199 bytes that take 987"},
		{strings.Repeat(`"`, 50), true, true, "50 quotation marks take 200 bytes in a filter, 100 in an argument"},
		{strings.Repeat(`"`, 51), false, true, "51 quotation marks take 204 bytes in a filter, 102 in an argument"},
		{strings.Repeat(`\`, 101), false, false, "101 backslashes take 202 bytes in an argument"},
		{strings.Repeat("<", 28), true, true, "28 less-than signs take 196 bytes in a filter (\\\\u003c)"},
		{strings.Repeat("<", 29), false, true, "29 take 203"},
	}
	for _, tt := range tests {
		if got := nameable(tt.s); got != tt.nameable {
			t.Errorf("nameable(%.20q... of %d bytes) = %v, want %v: %s", tt.s, len(tt.s), got, tt.nameable, tt.reason)
		}
		if got := exampleValue(tt.s); got != tt.value {
			t.Errorf("exampleValue(%.20q... of %d bytes) = %v, want %v: %s", tt.s, len(tt.s), got, tt.value, tt.reason)
		}
	}
}
