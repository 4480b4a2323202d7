package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/zircote/lro-go/lro"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// env is a lookup function over a fixed set of variables.
func env(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := vars[k]
		return v, ok
	}
}

func TestLoadOffloadConfig(t *testing.T) {
	const full = `
title = "other settings are ignored"
[prompt]
budget = 3
[prompt.offload]
enabled = false
threshold_tokens = 900
ttl_seconds = 60
output_dir = "/var/tmp/lro"
`
	tests := []struct {
		name    string
		toml    string // "" means no -config
		env     map[string]string
		want    offloadConfig
		wantErr string
	}{
		{"defaults", "", nil, offloadConfig{Enabled: true, ThresholdTokens: 1600, TTLSeconds: 3600}, ""},
		{"a file without the section keeps the defaults", "[server]\nport = 1\n", nil,
			offloadConfig{Enabled: true, ThresholdTokens: 1600, TTLSeconds: 3600}, ""},
		{"every key from the file", full, nil,
			offloadConfig{Enabled: false, ThresholdTokens: 900, TTLSeconds: 60, OutputDir: "/var/tmp/lro"}, ""},
		{"some keys from the file", "[prompt.offload]\nthreshold_tokens = 2000\n", nil,
			offloadConfig{Enabled: true, ThresholdTokens: 2000, TTLSeconds: 3600}, ""},
		{"environment overrides the file", full, map[string]string{
			envEnabled: "true", envThreshold: "1200", envTTL: "7200", envOutputDir: "/srv/lro"},
			offloadConfig{Enabled: true, ThresholdTokens: 1200, TTLSeconds: 7200, OutputDir: "/srv/lro"}, ""},
		{"empty variables are unset", full, map[string]string{envEnabled: "", envThreshold: ""},
			offloadConfig{Enabled: false, ThresholdTokens: 900, TTLSeconds: 60, OutputDir: "/var/tmp/lro"}, ""},
		{"environment without a file", "", map[string]string{envEnabled: "0"},
			offloadConfig{Enabled: false, ThresholdTokens: 1600, TTLSeconds: 3600}, ""},

		{"negative threshold in the file", "[prompt.offload]\nthreshold_tokens = -5\n", nil, offloadConfig{},
			"prompt.offload.threshold_tokens = -5: out of range"},
		{"zero threshold in the file", "[prompt.offload]\nthreshold_tokens = 0\n", nil, offloadConfig{},
			"prompt.offload.threshold_tokens = 0: out of range"},
		{"threshold above u32", "[prompt.offload]\nthreshold_tokens = 4294967296\n", nil, offloadConfig{},
			"prompt.offload.threshold_tokens = 4294967296: out of range"},
		{"threshold of the wrong type", "[prompt.offload]\nthreshold_tokens = \"big\"\n", nil, offloadConfig{},
			`prompt.offload.threshold_tokens = "big": not an integer`},
		{"enabled of the wrong type", "[prompt.offload]\nenabled = \"yes\"\n", nil, offloadConfig{},
			`prompt.offload.enabled = "yes": not a boolean`},
		{"zero ttl", "[prompt.offload]\nttl_seconds = 0\n", nil, offloadConfig{},
			"prompt.offload.ttl_seconds = 0: out of range"},
		{"output_dir of the wrong type", "[prompt.offload]\noutput_dir = 3\n", nil, offloadConfig{},
			"prompt.offload.output_dir = 3: not a string"},
		{"unknown key", "[prompt.offload]\nthreshold = 3\n", nil, offloadConfig{},
			"prompt.offload.threshold = 3: unknown key"},
		{"prompt is not a table", "prompt = 3\n", nil, offloadConfig{}, "prompt = 3: not a table"},
		{"TOML syntax error", "[prompt.offload\n", nil, offloadConfig{}, "config "},
		{"bad boolean variable", "", map[string]string{envEnabled: "maybe"}, offloadConfig{},
			`environment ATLATL_PROMPT__OFFLOAD__ENABLED="maybe": not a boolean`},
		{"bad threshold variable", "", map[string]string{envThreshold: "12k"}, offloadConfig{},
			`environment ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS="12k": not an integer`},
		{"negative threshold variable", "", map[string]string{envThreshold: "-1"}, offloadConfig{},
			`environment ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS="-1"`},
		{"bad ttl variable", "", map[string]string{envTTL: "1h"}, offloadConfig{},
			`environment ATLATL_PROMPT__OFFLOAD__TTL_SECONDS="1h": not an integer`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := ""
			if tt.toml != "" {
				path = writeFile(t, "config.toml", tt.toml)
			}
			got, err := loadOffloadConfig(path, env(tt.env))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("config mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestConfigMissingFile(t *testing.T) {
	if _, err := loadOffloadConfig(filepath.Join(t.TempDir(), "nope.toml"), env(nil)); err == nil {
		t.Error("a missing config file was accepted")
	}
}

func TestOptions(t *testing.T) {
	got := offloadConfig{Enabled: false, ThresholdTokens: 900, TTLSeconds: 60, OutputDir: "/x"}.options()
	want := &lro.Options{Disabled: true, ThresholdTokens: 900, TTL: time.Minute, OutputDir: "/x"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("options mismatch (-want +got):\n%s", diff)
	}
}

func TestSetup(t *testing.T) {
	cfg := writeFile(t, "c.toml", "[prompt.offload]\nthreshold_tokens = 900\noutput_dir = \"/from/config\"\n")
	good := writeFile(t, "m.jsonl", `{"type":"lro_header","operation":"list","count":2}`+"\n"+`{"id":"a"}`+"\n"+`{"id":"b"}`+"\n")
	bad := writeFile(t, "bad.jsonl", `{"id":"a"}`+"\n"+`{"title":"no id"}`+"\n")
	tests := []struct {
		name          string
		args          []string
		env           map[string]string
		wantLen       int
		wantThreshold int
		wantDir       string
		wantDisabled  bool
		wantErr       string
	}{
		{"defaults", nil, nil, 500, 1600, "", false, ""},
		{"records and seed", []string{"-records", "20", "-seed", "9"}, nil, 20, 1600, "", false, ""},
		{"config", []string{"-config", cfg, "-records", "1"}, nil, 1, 900, "/from/config", false, ""},
		{"environment overrides config", []string{"-config", cfg, "-records", "1"},
			map[string]string{envThreshold: "1000", envOutputDir: "/from/env", envEnabled: "false"}, 1, 1000, "/from/env", true, ""},
		{"flags override everything", []string{"-config", cfg, "-records", "1", "-threshold", "50", "-output-dir", "/from/flag"},
			map[string]string{envThreshold: "1000", envOutputDir: "/from/env"}, 1, 50, "/from/flag", false, ""},
		{"load an LRO file", []string{"-load", good}, nil, 2, 1600, "", false, ""},
		{"load names file and line", []string{"-load", bad}, nil, 0, 0, "", false, bad + `:2: memory without "id"`},
		{"load with records", []string{"-load", good, "-records", "3"}, nil, 0, 0, "", false, "cannot be combined"},
		{"negative records", []string{"-records", "-1"}, nil, 0, 0, "", false, "flag -records=-1"},
		{"zero threshold flag", []string{"-threshold", "0"}, nil, 0, 0, "", false, "flag -threshold=0"},
		{"bad config", []string{"-config", writeFile(t, "b.toml", "[prompt.offload]\nttl_seconds = -1\n")}, nil, 0, 0, "", false, "prompt.offload.ttl_seconds = -1"},
		{"unknown flag", []string{"-nope"}, nil, 0, 0, "", false, "usage"},
		{"stray argument", []string{"serve"}, nil, 0, 0, "", false, "usage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr strings.Builder
			a, err := setup(tt.args, &stderr, env(tt.env))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if a.store.Len() != tt.wantLen || a.opts.ThresholdTokens != tt.wantThreshold || a.opts.OutputDir != tt.wantDir || a.opts.Disabled != tt.wantDisabled {
				t.Errorf("got %d memories, threshold %d, dir %q, disabled %v; want %d, %d, %q, %v",
					a.store.Len(), a.opts.ThresholdTokens, a.opts.OutputDir, a.opts.Disabled, tt.wantLen, tt.wantThreshold, tt.wantDir, tt.wantDisabled)
			}
			if a.opts.Observer == nil {
				t.Error("no observer")
			}
		})
	}
}

func TestUsageDocumentsEveryFlag(t *testing.T) {
	var stderr strings.Builder
	if _, err := setup([]string{"-h"}, &stderr, env(nil)); err == nil {
		t.Fatal("-h did not stop")
	}
	for _, f := range []string{"-records", "-seed", "-load", "-http", "-config", "-threshold", "-output-dir", "ATLATL_PROMPT__OFFLOAD__ENABLED", "[prompt.offload]"} {
		if !strings.Contains(stderr.String(), f) {
			t.Errorf("usage does not mention %s", f)
		}
	}
}
