package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRedactionFlags turns redaction off and adds patterns from the
// command line.
func TestRedactionFlags(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		off      bool
		patterns []string
		wantErr  string
	}{
		{"on by default", []string{"srv"}, false, nil, ""},
		{"-no-redact", []string{"-no-redact", "srv"}, true, nil, ""},
		{"-redact-pattern, repeated", []string{"-redact-pattern", "acme_[0-9a-f]{16}", "-redact-pattern", "(?P<corp>corp-[0-9]+)", "srv"}, false, []string{"acme_[0-9a-f]{16}", "(?P<corp>corp-[0-9]+)"}, ""},
		{"an invalid pattern", []string{"-redact-pattern", "(", "srv"}, false, nil, "RedactPatterns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr strings.Builder
			c, err := setup(tt.args, &stderr, env(nil))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.opts.DisableRedaction != tt.off {
				t.Errorf("DisableRedaction = %v, want %v", c.opts.DisableRedaction, tt.off)
			}
			if diff := cmp.Diff(tt.patterns, c.opts.RedactPatterns); diff != "" {
				t.Errorf("RedactPatterns (-want +got):\n%s", diff)
			}
		})
	}
}
