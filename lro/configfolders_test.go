package lro_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/store"
)

// TestLoadOptionsReplacedFolders checks that a folder of the file or the
// environment (output_dir, storage) that a later layer replaces is neither
// checked nor opened: only the folder used is, as for every other value.
// LoadOptions checked each folder as it read it, so a server given its
// folder by a flag failed at start on a variable it had overridden.
func TestLoadOptionsReplacedFolders(t *testing.T) {
	aFile := filepath.Join(t.TempDir(), "regular-file")
	if err := os.WriteFile(aFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(aFile, "sub") // never a folder
	good := t.TempDir()
	explicitStore, err := store.Open(context.Background(), good, &store.Options{TTL: 30 * time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer explicitStore.Close()
	tests := []struct {
		name     string
		file     string
		vars     map[string]string
		explicit *lro.Options
		check    func(*lro.Options) string // "" if good
	}{
		{"explicit output folder over the environment's", "", map[string]string{"ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR": bad},
			&lro.Options{OutputDir: good}, func(o *lro.Options) string { return wantDir(o.OutputDir, good) }},
		{"environment output folder over the file's", "[prompt.offload]\noutput_dir = \"" + bad + "\"", map[string]string{"ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR": good},
			nil, func(o *lro.Options) string { return wantDir(o.OutputDir, good) }},
		{"environment storage over the file's", "[prompt.offload]\nstorage = \"" + bad + "\"", map[string]string{"ATLATL_PROMPT__OFFLOAD__STORAGE": good},
			nil, func(o *lro.Options) string { return wantDir(o.Store.Dir(), good) }},
		{"explicit Store over the environment's storage", "", map[string]string{"ATLATL_PROMPT__OFFLOAD__STORAGE": bad},
			&lro.Options{Store: explicitStore}, func(o *lro.Options) string {
				if o.Store != explicitStore {
					return "not the explicit Store"
				}
				return ""
			}},
		{"the caller's Store (zero) over the file's storage", "[prompt.offload]\nstorage = \"" + bad + "\"\nttl_seconds = 120", nil,
			&lro.Options{Store: new(store.Store)}, func(o *lro.Options) string {
				if o.Store != nil || o.TTL != 2*time.Minute {
					return "want no Store and the file's TTL"
				}
				return ""
			}},
		{"the caller's Store (zero) over a bucket of the environment", "", map[string]string{"ATLATL_PROMPT__OFFLOAD__STORAGE": "nosuch://bucket", "ATLATL_PROMPT__OFFLOAD__TTL_SECONDS": "60"},
			&lro.Options{Store: new(store.Store)}, func(o *lro.Options) string {
				if o.Store != nil || o.TTL != time.Minute {
					return "want no Store and the environment's TTL"
				}
				return ""
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := &lro.Sources{LookupEnv: env(tt.vars), Environ: environ(tt.vars)}
			if tt.file != "" {
				src.File = writeTOML(t, tt.file)
			}
			got, err := lro.LoadOptionsFrom(tt.explicit, src)
			if err != nil {
				t.Fatalf("LoadOptions = %v, want the replaced folder not checked", err)
			}
			if got.Store != nil && got.Store != explicitStore {
				defer got.Store.Close()
			}
			if msg := tt.check(got); msg != "" {
				t.Errorf("%+v: %s", got, msg)
			}
		})
	}
	// The folder used is still checked, naming where it comes from.
	for name, src := range map[string]*lro.Sources{
		"ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR": {LookupEnv: env(map[string]string{"ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR": bad}), Environ: environ(map[string]string{"ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR": bad})},
		"prompt.offload.storage":             {File: writeTOML(t, "[prompt.offload]\nstorage = \""+bad+"\"\noutput_dir = \""+good+"\""), LookupEnv: env(nil)},
	} {
		_, err := lro.LoadOptionsFrom(nil, src)
		if err == nil || !errors.Is(err, lro.ErrInvalidOption) || !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), "below "+aFile) {
			t.Errorf("%s = %q: error %v, want one naming it and %s", name, bad, err, aFile)
		}
	}
}

func wantDir(got, want string) string {
	if got != want {
		return "folder " + got + ", want " + want
	}
	return ""
}

// TestLoadOptionsHugeFile: a config file larger than a configuration can
// be is refused, naming it, rather than read whole: a path such as
// /dev/zero filled the memory.
func TestLoadOptionsHugeFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "huge.toml")
	body := "[prompt.offload]\n#" + strings.Repeat("x", 1<<20) + "\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := lro.LoadOptionsFrom(nil, &lro.Sources{File: path, LookupEnv: env(nil)})
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "larger than 1 MiB") {
		t.Errorf("LoadOptions of a file of %d bytes = %v, want an error naming it and the limit", len(body), err)
	}
	for _, dir := range []string{t.TempDir()} { // a folder: the reason, as before
		_, err := lro.LoadOptionsFrom(nil, &lro.Sources{File: dir, LookupEnv: env(nil)})
		if err == nil || !strings.Contains(err.Error(), "config file "+dir) || !strings.Contains(err.Error(), "is a directory") {
			t.Errorf("LoadOptions of the folder %s = %v, want an error naming it", dir, err)
		}
	}
}
