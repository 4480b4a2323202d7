package lro

import (
	"errors"
	"strings"
	"testing"

	"github.com/zircote/lro-go/recipes"
)

// TestParseDetail checks the parsing of the detail argument and of
// Options.DefaultDetail (was recipes.ParseDetail).
func TestParseDetail(t *testing.T) {
	tests := []struct {
		in      string
		reason  string
		want    recipes.Detail
		wantErr bool
	}{
		{"light", "canonical name", recipes.Light, false},
		{"medium", "canonical name", recipes.Medium, false},
		{"full", "canonical name", recipes.Full, false},
		{"FULL", "case does not matter", recipes.Full, false},
		{"  Medium\n", "surrounding space is trimmed", recipes.Medium, false},
		{"", "empty is an error, not a default", "", true},
		{"   ", "blank is empty", "", true},
		{"verbose", "unknown names are errors", "", true},
		{"lite", "no fuzzy matching", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := parseDetail(tt.in)
			if got != tt.want || (err != nil) != tt.wantErr {
				t.Fatalf("%s: ParseDetail(%q) = %q, %v; want %q, error %v", tt.reason, tt.in, got, err, tt.want, tt.wantErr)
			}
			if err == nil {
				return
			}
			if !errors.Is(err, errUnknownDetail) {
				t.Errorf("%s: error %v does not wrap errUnknownDetail", tt.reason, err)
			}
			for _, s := range []string{"unknown detail level", `"` + tt.in + `"`, "light", "medium", "full"} {
				if !strings.Contains(err.Error(), strings.TrimSpace(s)) && !strings.Contains(err.Error(), s) {
					t.Errorf("%s: error %q does not mention %q", tt.reason, err, s)
				}
			}
		})
	}
}

// TestDefaultDetailParsed checks that Options.DefaultDetail is read as a
// call's detail argument is: trimmed and without regard to case.
func TestDefaultDetailParsed(t *testing.T) {
	for in, want := range map[recipes.Detail]recipes.Detail{"": recipes.Full, " Light ": recipes.Light, "MEDIUM": recipes.Medium} {
		c, err := newConfig(&Options{DefaultDetail: in})
		if err != nil {
			t.Fatalf("DefaultDetail %q: %v", in, err)
		}
		if c.DefaultDetail != want {
			t.Errorf("DefaultDetail %q is read as %q, want %q", in, c.DefaultDetail, want)
		}
	}
}
