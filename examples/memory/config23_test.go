package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestStorageFlagOverridesConfiguration: -storage overrides the storage of
// the environment and of the config file, as its help says, so a storage
// there that cannot be opened does not stop a server given one that can;
// the flag's store has the TTL of the configuration.
func TestStorageFlagOverridesConfiguration(t *testing.T) {
	aFile := filepath.Join(t.TempDir(), "regular-file")
	if err := os.WriteFile(aFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(aFile, "sub") // never a folder
	cfg := writeFile(t, "c.toml", "[prompt.offload]\nstorage = \""+bad+"\"\nttl_seconds = 120\n")
	for name, tt := range map[string]struct {
		args []string
		env  map[string]string
	}{
		"environment": {nil, map[string]string{"ATLATL_PROMPT__OFFLOAD__STORAGE": bad, "ATLATL_PROMPT__OFFLOAD__TTL_SECONDS": "120"}},
		"config file": {[]string{"-config", cfg}, nil},
		"bucket":      {[]string{"-config", cfg}, map[string]string{"ATLATL_PROMPT__OFFLOAD__STORAGE": "nosuch://bucket"}},
	} {
		t.Run(name, func(t *testing.T) {
			setEnv(t, tt.env)
			dir := t.TempDir()
			a, err := setup(append([]string{"-records", "1", "-storage", dir}, tt.args...), io.Discard)
			if err != nil {
				t.Fatalf("setup with -storage %s: %v", dir, err)
			}
			defer a.opts.Store.Close()
			if got := a.opts.Store.Dir(); got != dir {
				t.Errorf("store folder %q, want the flag's %q", got, dir)
			}
			if got := a.opts.Store.TTL(); got.Seconds() != 120 || a.opts.TTL != got {
				t.Errorf("store TTL %v, options TTL %v; want the configuration's 2m0s", got, a.opts.TTL)
			}
		})
	}
}

// TestEmptyOutputDirFlag: -output-dir "" is what its help names, the
// system temporary folder, over the output folder of the environment
// (which is then not checked): it was ignored, as if not given.
func TestEmptyOutputDirFlag(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv(envOutputDir, "/etc/passwd/sub") // never a folder
	a, err := setup([]string{"-records", "1", "-output-dir", ""}, io.Discard)
	if err != nil {
		t.Fatalf("setup -output-dir \"\": %v", err)
	}
	if got := outputDir(a.opts); got != tmp {
		t.Errorf("output folder %q, want the system temporary folder %q", got, tmp)
	}
}
