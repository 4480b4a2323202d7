package main

import (
	"errors"
	"flag"
	"io"
	"strings"
	"testing"
)

// TestMistypedFlag checks that a mistake on the command line prints one line
// saying what is wrong and one pointing to -h, not the whole usage.
func TestMistypedFlag(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		first  string // the first line
		reason string
	}{
		{"unknown flag", []string{"-treshold", "5", "srv"}, "flag provided but not defined: -treshold", "a typo of -threshold"},
		{"bad value", []string{"-threshold", "many", "srv"}, `invalid value "many" for flag -threshold`, "not a number"},
		{"no upstream", nil, "lro-proxy: no upstream: give -url URL or a COMMAND", "the proxy's own check"},
	}
	for _, tt := range tests {
		var stderr strings.Builder
		_, err := setup(tt.args, &stderr, env(nil))
		if !errors.Is(err, errUsage) {
			t.Errorf("%s: setup = %v, want errUsage", tt.name, err)
		}
		lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
		if len(lines) != 2 || !strings.HasPrefix(lines[0], tt.first) || lines[1] != "run lro-proxy -h for usage" {
			t.Errorf("%s: stderr %q, want %q and the hint to run -h, two lines: %s", tt.name, stderr.String(), tt.first, tt.reason)
		}
	}
}

// TestVersion checks -version: one line on stdout with the module version,
// and nothing else done.
func TestVersion(t *testing.T) {
	var out, stderr strings.Builder
	defer func(w io.Writer) { stdout = w }(stdout)
	stdout = &out
	c, err := setup([]string{"-version"}, &stderr, env(nil))
	if !errors.Is(err, flag.ErrHelp) || c != nil {
		t.Errorf("setup(-version) = %v, %v; want flag.ErrHelp, so that main exits 0", c, err)
	}
	v := version()
	if v == "" || strings.ContainsAny(v, " \n") {
		t.Errorf("version() = %q, want a module version or (devel)", v)
	}
	if got, want := out.String(), "lro-proxy "+v+"\n"; got != want || stderr.Len() != 0 {
		t.Errorf("-version printed %q on stdout and %q on stderr, want %q and nothing", got, stderr.String(), want)
	}
	t.Logf("version: %s", v)
}
