package redact

import (
	"net/url"
	"strings"
)

// URL returns s without the password of the URL it is, for a message or a
// log: a text without "://" as it is, and a URL that does not parse as
// "(a URL that does not parse)", since its password cannot be found.
func URL(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	u, err := url.Parse(s)
	if err != nil {
		return "(a URL that does not parse)"
	}
	return u.Redacted()
}
