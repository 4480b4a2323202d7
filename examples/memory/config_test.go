package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// The configuration variables the tests set.
const (
	envEnabled   = "ATLATL_PROMPT__OFFLOAD__ENABLED"
	envThreshold = "ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS"
	envOutputDir = "ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR"
)

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
		{"zero cleanup interval", []string{"-cleanup-interval", "0s"}, nil, 0, 0, "", false, "flag -cleanup-interval=0s"},
		{"bad config", []string{"-config", writeFile(t, "b.toml", "[prompt.offload]\nttl_seconds = -1\n")}, nil, 0, 0, "", false, "prompt.offload.ttl_seconds = -1"},
		{"too little extraction memory", []string{"-extract-max-memory", "8"}, nil, 0, 0, "", false, "flag -extract-max-memory=8: extract: Options.MaxMemoryBytes is 8388608, less than 16 MiB"},
		{"output folder beside a folder store", []string{"-storage", t.TempDir(), "-output-dir", t.TempDir()}, nil, 0, 0, "", false, "not the folder of Options.Store"},
		{"output folder with a bucket", []string{"-storage", "file://" + t.TempDir(), "-output-dir", "/from/flag"}, nil, 0, 0, "", false, "cannot be combined with a bucket"},
		{"unknown flag", []string{"-nope"}, nil, 0, 0, "", false, "usage"},
		{"stray argument", []string{"serve"}, nil, 0, 0, "", false, "usage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr strings.Builder
			setEnv(t, tt.env)
			a, err := setup(tt.args, &stderr)
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
	if _, err := setup([]string{"-h"}, &stderr); err == nil {
		t.Fatal("-h did not stop")
	}
	for _, f := range []string{"-records", "-seed", "-load", "-http", "-config", "-threshold", "-output-dir", "-cleanup-interval", "ATLATL_PROMPT__OFFLOAD__ENABLED", "[prompt.offload]"} {
		if !strings.Contains(stderr.String(), f) {
			t.Errorf("usage does not mention %s", f)
		}
	}
}

func TestCleanupIntervalFlag(t *testing.T) {
	var stderr strings.Builder
	a, err := setup([]string{"-records", "1", "-cleanup-interval", "250ms"}, &stderr)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := a.opts.CleanupInterval.String(), "250ms"; got != want {
		t.Errorf("CleanupInterval = %s, want %s", got, want)
	}
}

// TestSetupRefusesMistypedVariable runs setup with the lookup main gives it,
// os.LookupEnv: a variable of the configuration's section whose key is not
// known is refused, naming it, rather than silently ignored.
func TestSetupRefusesMistypedVariable(t *testing.T) {
	t.Setenv("ATLATL_PROMPT__OFFLOAD__THRESHOLD", "5") // THRESHOLD_TOKENS was meant
	var stderr strings.Builder
	_, err := setup([]string{"-records", "1"}, &stderr)
	if err == nil || !strings.Contains(err.Error(), "ATLATL_PROMPT__OFFLOAD__THRESHOLD") {
		t.Errorf("setup = %v, want an error naming ATLATL_PROMPT__OFFLOAD__THRESHOLD", err)
	}
}

// TestStorageFlag checks -storage: a bucket URL gives a bucket store and
// the extraction tools, a folder a folder store, the flag overrides the
// environment, and a URL nothing can open is an error naming the flag.
func TestStorageFlag(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		bucket  bool
		wantErr string
	}{
		{"bucket", []string{"-storage", "file://" + filepath.ToSlash(dir)}, nil, true, ""},
		{"folder", []string{"-storage", dir}, nil, false, ""},
		{"flag over environment", []string{"-storage", "file://" + filepath.ToSlash(dir)}, map[string]string{"ATLATL_PROMPT__OFFLOAD__STORAGE": dir}, true, ""},
		{"environment", nil, map[string]string{"ATLATL_PROMPT__OFFLOAD__STORAGE": "file://" + filepath.ToSlash(dir)}, true, ""},
		{"unknown scheme", []string{"-storage", "nope://bucket"}, nil, false, "flag -storage"},
		{"unreachable bucket", []string{"-storage", "s3://nobucket?endpoint=http://127.0.0.1:1&region=us-east-1&use_path_style=true"}, nil, false, "cannot list the bucket"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr strings.Builder
			setEnv(t, tt.env)
			a, err := setup(append([]string{"-records", "3"}, tt.args...), &stderr)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("setup = %v, want an error naming %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer a.opts.Store.Close()
			if a.opts.Store == nil {
				t.Fatal("no store")
			}
			if bucket := a.opts.Store.Dir() == ""; bucket != tt.bucket {
				t.Errorf("bucket = %v, want %v", bucket, tt.bucket)
			}
			if a.opts.ExtractTools != tt.bucket {
				t.Errorf("ExtractTools = %v, want %v (on with a bucket)", a.opts.ExtractTools, tt.bucket)
			}
		})
	}
}

// setEnv sets vars in the process environment for the test: LoadOptions
// reads the ATLATL_PROMPT__OFFLOAD__ variables there.
func setEnv(t *testing.T, vars map[string]string) {
	for k, v := range vars {
		t.Setenv(k, v)
	}
}
