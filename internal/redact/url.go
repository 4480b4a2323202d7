package redact

import (
	"net/url"
	"strings"
)

// URL returns s without the password of the URL it is, nor of a URL that
// is the value of one of its query parameters (as s3blob's endpoint), for a
// message or a log: a text without "://" as it is, and a URL that does not
// parse as "(a URL that does not parse)", since its password cannot be
// found.
func URL(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	u, err := url.Parse(s)
	if err != nil {
		return "(a URL that does not parse)"
	}
	if strings.Contains(u.RawQuery, "@") || strings.Contains(u.RawQuery, "%40") {
		u.RawQuery = query(u.RawQuery)
	}
	return u.Redacted()
}

// query returns the raw query q with each value that is a URL, raw or
// escaped, passed through URL, and written as it was.
func query(q string) string {
	parts := strings.Split(q, "&")
	for i, p := range parts {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			continue
		}
		plain, err := url.QueryUnescape(v)
		if err != nil {
			continue
		}
		r := URL(plain)
		switch {
		case r == plain:
		case v == plain:
			parts[i] = k + "=" + r
		default:
			parts[i] = k + "=" + url.QueryEscape(r)
		}
	}
	return strings.Join(parts, "&")
}
