package redact_test

import (
	"testing"

	"github.com/zircote/lro-go/internal/redact"
)

// TestByNameSpellings: a member whose name, without its '-' and '_', is
// one that says what its value is, is redacted whatever '-' and '_' it is
// spelled with, as byName reads it, though the document holds no other
// keyword; and a text names the secret as the rule's expression allows.
func TestByNameSpellings(t *testing.T) {
	r := newRedactor(t)
	secret := "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYEXAMPLEKEY"
	for _, name := range []string{"aws-secret-access-key", "Secret-Access-Key", "secret_accesskey", "SecretAccess_Key", "secret-accesskey", "secretaccess-key"} {
		in := `{"` + name + `":"` + secret + `"}`
		want := `{"` + name + `":"[REDACTED:aws-secret-access-key]"}`
		if got, ok := r.JSON([]byte(in), redact.Counts{}); !ok || string(got) != want {
			t.Errorf("JSON(%s) = %s, %v; want %s", in, got, ok, want)
		}
	}
	for _, name := range []string{"secret_accesskey", "SECRETACCESS_KEY", "aws-secret-access-key", "Secret-Access_Key"} {
		for _, sep := range []string{"=", ": "} {
			in := name + sep + secret
			want := name + sep + "[REDACTED:aws-secret-access-key]"
			if got := r.String(in, redact.Counts{}); got != want {
				t.Errorf("String(%s) = %s; want %s", in, got, want)
			}
		}
	}
}
