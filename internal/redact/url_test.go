package redact_test

import (
	"testing"

	"github.com/zircote/lro-go/internal/redact"
)

// TestURL hides the password of a URL, and of a URL that is the value of
// one of its query parameters (as s3blob's endpoint), written raw or
// escaped; the rest stays as written.
func TestURL(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"/a/folder", "/a/folder"},
		{"s3://bucket?region=us-east-1", "s3://bucket?region=us-east-1"},
		{"s3://user:secret@bucket?region=us-east-1", "s3://user:xxxxx@bucket?region=us-east-1"},
		{"s3://user:p%zz@bucket", "(a URL that does not parse)"},
		{"s3://b?endpoint=http://u:secret@127.0.0.1:1&x=1", "s3://b?endpoint=http://u:xxxxx@127.0.0.1:1&x=1"},
		{"s3://b?x=1&endpoint=http%3A%2F%2Fu%3Asecret%40127.0.0.1%3A1", "s3://b?x=1&endpoint=http%3A%2F%2Fu%3Axxxxx%40127.0.0.1%3A1"},
		{"s3://k:secret@b?endpoint=http://u:secret@h", "s3://k:xxxxx@b?endpoint=http://u:xxxxx@h"},
		{"s3://b?endpoint=http://h&mail=a@b", "s3://b?endpoint=http://h&mail=a@b"},
	} {
		if got := redact.URL(tt.in); got != tt.want {
			t.Errorf("URL(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
