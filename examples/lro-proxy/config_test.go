package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// env is a lookup function over a fixed set of variables.
func env(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := vars[k]
		return v, ok
	}
}

func TestSetup(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "c.toml")
	if err := os.WriteFile(cfg, []byte("[prompt.offload]\nthreshold_tokens = 900\noutput_dir = \"/from/config\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name          string
		args          []string
		env           map[string]string
		wantURL       string
		wantCommand   []string
		wantHeader    http.Header
		wantThreshold int
		wantDir       string
		wantErr       string
	}{
		{"url", []string{"-url", "http://localhost:8080/mcp"}, nil, "http://localhost:8080/mcp", nil, nil, 1600, "", ""},
		{"command after --", []string{"--", "npx", "-y", "server"}, nil, "", []string{"npx", "-y", "server"}, nil, 1600, "", ""},
		{"command without --", []string{"-threshold", "10", "node", "server.js", "-v"}, nil, "", []string{"node", "server.js", "-v"}, nil, 10, "", ""},
		{"header from the environment", []string{"-url", "http://h/mcp", "-header", "Authorization: Bearer ${TOKEN}", "-header", "X-Cost: $$5"},
			map[string]string{"TOKEN": "s3cret"}, "http://h/mcp", nil, http.Header{"Authorization": {"Bearer s3cret"}, "X-Cost": {"$5"}}, 1600, "", ""},
		{"config, environment and flags", []string{"-config", cfg, "-output-dir", "/from/flag", "-url", "http://h/mcp"},
			map[string]string{"ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS": "1000"}, "http://h/mcp", nil, nil, 1000, "/from/flag", ""},
		{"unset variable", []string{"-url", "http://h/mcp", "-header", "Authorization: Bearer ${TOKEN}"}, nil, "", nil, nil, 0, "", "environment variable TOKEN is not set"},
		{"malformed header", []string{"-url", "http://h/mcp", "-header", "no colon"}, nil, "", nil, nil, 0, "", `flag -header "no colon"`},
		{"header without url", []string{"-header", "A: b", "--", "srv"}, nil, "", nil, nil, 0, "", "usage"},
		{"no upstream", nil, nil, "", nil, nil, 0, "", "usage"},
		{"two upstreams", []string{"-url", "http://h/mcp", "srv"}, nil, "", nil, nil, 0, "", "usage"},
		{"zero threshold", []string{"-threshold", "0", "srv"}, nil, "", nil, nil, 0, "", "flag -threshold=0"},
		{"zero timeout", []string{"-connect-timeout", "0s", "srv"}, nil, "", nil, nil, 0, "", "flag -connect-timeout=0s"},
		{"zero message size", []string{"-max-message", "0", "srv"}, nil, "", nil, nil, 0, "", "flag -max-message=0"},
		{"zero extraction time limit", []string{"-extract-timeout", "0s", "srv"}, nil, "", nil, nil, 0, "", "flag -extract-timeout=0s: must be positive"},
		{"zero extraction memory", []string{"-extract-max-memory", "0", "srv"}, nil, "", nil, nil, 0, "", "flag -extract-max-memory=0: must be a positive number of MiB"},
		{"extraction memory that overflows", []string{"-extract-max-memory", "9000000000000", "srv"}, nil, "", nil, nil, 0, "", "flag -extract-max-memory=9000000000000: must be a positive number of MiB"},
		{"too little extraction memory", []string{"-extract-max-memory", "8", "srv"}, nil, "", nil, nil, 0, "", "flag -extract-max-memory=8: extract: Options.MaxMemoryBytes is 8388608, less than 16 MiB"},
		{"bad environment", []string{"srv"}, map[string]string{"ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS": "many"}, "", nil, nil, 0, "", "ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr strings.Builder
			setEnv(t, tt.env)
			c, err := setup(tt.args, &stderr, env(tt.env))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.up.URL != tt.wantURL || c.opts.ThresholdTokens != tt.wantThreshold || c.opts.OutputDir != tt.wantDir {
				t.Errorf("url %q, threshold %d, dir %q; want %q, %d, %q", c.up.URL, c.opts.ThresholdTokens, c.opts.OutputDir, tt.wantURL, tt.wantThreshold, tt.wantDir)
			}
			var command []string
			if c.up.Cmd != nil {
				command = c.up.Cmd.Args
			}
			if diff := cmp.Diff(tt.wantCommand, command); diff != "" {
				t.Errorf("command (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantHeader, c.up.Header); diff != "" {
				t.Errorf("header (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUsageDocumentsEveryFlag(t *testing.T) {
	var stderr strings.Builder
	if _, err := setup([]string{"-h"}, &stderr, env(nil)); err == nil {
		t.Fatal("-h did not stop")
	}
	for _, f := range []string{"-url", "-header", "-config", "-threshold", "-output-dir", "-preview-records", "PREVIEW_RECORDS", "-connect-timeout", "-extract-timeout", "-extract-max-memory", "COMMAND", "ATLATL_PROMPT__OFFLOAD__ENABLED", "[prompt.offload]", "io.github.zircote/lro"} {
		if !strings.Contains(stderr.String(), f) {
			t.Errorf("usage does not mention %s", f)
		}
	}
}

// TestSetupRefusesMistypedVariable runs setup with the lookup main gives it,
// os.LookupEnv: a variable of the configuration's section whose key is not
// known is refused, naming it, rather than silently ignored.
func TestSetupRefusesMistypedVariable(t *testing.T) {
	t.Setenv("ATLATL_PROMPT__OFFLOAD__THRESHOLD", "5") // THRESHOLD_TOKENS was meant
	var stderr strings.Builder
	_, err := setup([]string{"-url", "http://h/mcp"}, &stderr, os.LookupEnv)
	if err == nil || !strings.Contains(err.Error(), "ATLATL_PROMPT__OFFLOAD__THRESHOLD") {
		t.Errorf("setup = %v, want an error naming ATLATL_PROMPT__OFFLOAD__THRESHOLD", err)
	}
}

func TestSetupRefusesStorage(t *testing.T) {
	t.Setenv("ATLATL_PROMPT__OFFLOAD__STORAGE", t.TempDir())
	var stderr strings.Builder
	_, err := setup([]string{"-url", "http://h/mcp"}, &stderr, os.LookupEnv)
	if err == nil || !strings.Contains(err.Error(), "ATLATL_PROMPT__OFFLOAD__STORAGE") {
		t.Errorf("setup = %v, want an error naming ATLATL_PROMPT__OFFLOAD__STORAGE", err)
	}
}

// TestExtractLimitFlags checks that -extract-timeout and -extract-max-memory
// (in MiB) become the limits of the local extraction tools, and that their
// defaults are package extract's.
func TestExtractLimitFlags(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want extractLimits
	}{
		{[]string{"srv"}, extractLimits{extractDefaultTimeout, extractDefaultMaxMemory}},
		{[]string{"-extract-timeout", "30s", "-extract-max-memory", "64", "srv"}, extractLimits{30 * time.Second, 64 << 20}},
	} {
		c, err := setup(tt.args, io.Discard, env(nil))
		if err != nil {
			t.Fatal(err)
		}
		if c.extract != tt.want {
			t.Errorf("setup(%q): limits %+v, want %+v", tt.args, c.extract, tt.want)
		}
	}
}

// setEnv sets vars in the process environment for the test: LoadOptions
// reads the ATLATL_PROMPT__OFFLOAD__ variables there.
func setEnv(t *testing.T, vars map[string]string) {
	for k, v := range vars {
		t.Setenv(k, v)
	}
}
