package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/zircote/lro-go/lro"
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

// loaderKeys returns what LoadOptions reads, from its own errors, which
// list every key and variable it knows (lro's TestUnknownKeyListsEveryKey
// checks that they do): the keys of [prompt.offload], of a tool's table,
// and the environment variables.
func loaderKeys(t *testing.T) (keys, toolKeys, vars []string) {
	t.Helper()
	list := func(err error, re string) []string {
		m := regexp.MustCompile(re).FindStringSubmatch(fmt.Sprint(err))
		if m == nil {
			t.Fatalf("error %v does not list the keys (%s)", err, re)
		}
		return strings.FieldsFunc(strings.ReplaceAll(m[1], " or ", ", "), func(r rune) bool { return r == ',' || r == ' ' })
	}
	_, err := lro.LoadOptions(nil, writeFile(t, "k.toml", "[prompt.offload]\nno_such_key = 1\n"))
	keys = list(err, `unknown key \(want ([^)]*)\)`)
	_, err = lro.LoadOptions(nil, writeFile(t, "t.toml", "[prompt.offload.tools.x]\nno_such_key = 1\n"))
	toolKeys = list(err, `unknown key \(want ([^)]*)\)`)
	t.Setenv("ATLATL_PROMPT__OFFLOAD__NO_SUCH_KEY", "1")
	_, err = lro.LoadOptions(nil, "")
	vars = list(err, `unknown variable \(want ([^)]*)\)`)
	os.Unsetenv("ATLATL_PROMPT__OFFLOAD__NO_SUCH_KEY")
	if len(keys) < 10 || len(toolKeys) < 6 || len(vars) < 11 {
		t.Fatalf("too few keys: %v, %v, %v", keys, toolKeys, vars)
	}
	return keys, toolKeys, vars
}

// TestHelpAndExampleListEveryKey: the -h text and config.example.toml name
// every key and variable that LoadOptions reads, and the example file
// loads, to the defaults.
func TestHelpAndExampleListEveryKey(t *testing.T) {
	keys, toolKeys, vars := loaderKeys(t)
	var help strings.Builder
	if _, err := setup([]string{"-h"}, &help); err == nil {
		t.Fatal("-h did not stop")
	}
	usage := strings.Join(strings.Fields(help.String()), " ") // lines joined
	for _, k := range append(slices.Clone(keys), toolKeys...) {
		if !regexp.MustCompile(`\b` + k + `\b`).MatchString(usage) {
			t.Errorf("-h does not name the key %s", k)
		}
	}
	for _, v := range vars {
		short := "..._" + strings.TrimPrefix(v, "ATLATL_PROMPT__OFFLOAD__")
		if !regexp.MustCompile(`(\b` + v + `|` + regexp.QuoteMeta(short) + `)\b`).MatchString(usage) {
			t.Errorf("-h does not name the variable %s", v)
		}
	}
	example, err := os.ReadFile("config.example.toml")
	if err != nil {
		t.Fatal(err)
	}
	section, tool, _ := strings.Cut(string(example), "[prompt.offload.tools.")
	for _, k := range keys {
		if k != "tools" && !regexp.MustCompile(`(?m)^#? *`+k+` *=`).MatchString(section) {
			t.Errorf("config.example.toml does not set the key %s in [prompt.offload]", k)
		}
	}
	for _, k := range toolKeys {
		if !regexp.MustCompile(`(?m)^#? *` + k + ` *=`).MatchString(tool) {
			t.Errorf("config.example.toml does not show the key %s in a tool's table", k)
		}
	}
	opts, err := lro.LoadOptions(nil, "config.example.toml")
	if err != nil {
		t.Fatalf("config.example.toml: %v", err)
	}
	// The defaults, as the file writes them: 3 preview records (the
	// meaning of 0), no patterns, and the table of list_memories.
	defaults, err := lro.LoadOptions(&lro.Options{PreviewRecords: 3, Tools: map[string]lro.Options{"list_memories": {}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(opts.RedactPatterns) == 0 {
		opts.RedactPatterns = nil
	}
	if !reflect.DeepEqual(opts, defaults) {
		t.Errorf("config.example.toml gives %+v, want the defaults %+v", opts, defaults)
	}
}

// TestFlagBounds: -records and -threshold beyond what the server can hold
// or the specification allows are refused, naming the flag: -records
// 99999999999 made the server die out of memory, and -threshold took
// values that threshold_tokens and its variable refuse.
func TestFlagBounds(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"-records", "99999999999"}, "flag -records=99999999999: at most 1000000"},
		{[]string{"-threshold", "4294967296"}, "flag -threshold=4294967296: out of range 1..4294967295"},
	} {
		if _, err := setup(tt.args, io.Discard); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("setup %q = %v, want an error %q", tt.args, err, tt.want)
		}
	}
	a, err := setup([]string{"-records", "1", "-threshold", "4294967295"}, io.Discard)
	if err != nil || a.opts.ThresholdTokens != 4294967295 {
		t.Errorf("setup -threshold 4294967295 = %v, want it accepted", err)
	}
}

// TestUnknownToolSettings: settings of a tool the server does not have (a
// typo in [prompt.offload.tools.NAME] or ATLATL_PROMPT__OFFLOAD__ALWAYS)
// are refused, naming it, rather than ignored; offloadingTools are the
// tools the server offloads.
func TestUnknownToolSettings(t *testing.T) {
	cfg := writeFile(t, "c.toml", "[prompt.offload.tools.list_memory]\nalways = true\n")
	for name, tt := range map[string]struct {
		args []string
		env  map[string]string
	}{
		"config file": {[]string{"-config", cfg}, nil},
		"environment": {nil, map[string]string{"ATLATL_PROMPT__OFFLOAD__ALWAYS": "list_memories, recal_memories"}},
	} {
		t.Run(name, func(t *testing.T) {
			setEnv(t, tt.env)
			_, err := setup(append([]string{"-records", "1"}, tt.args...), io.Discard)
			if err == nil || !strings.Contains(err.Error(), "no such tool") {
				t.Errorf("setup = %v, want an error naming the tool", err)
			}
		})
	}
	t.Setenv("ATLATL_PROMPT__OFFLOAD__ALWAYS", strings.Join(offloadingTools, ","))
	a, err := setup([]string{"-records", "1", "-config", "config.example.toml"}, io.Discard)
	if err != nil {
		t.Fatalf("setup with the settings of every tool: %v", err)
	}
	cs := connect(t, a.store, a.opts)
	var served []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		served = append(served, tool.Name)
	}
	if !slices.Equal(slices.Sorted(slices.Values(served)), slices.Sorted(slices.Values(offloadingTools))) {
		t.Errorf("the server offers %v, offloadingTools are %v", served, offloadingTools)
	}
}

// TestEmptyStorageFlag: -storage "" is no storage, over the storage of the
// environment (which is then not opened): it was a folder store in the
// system temporary folder.
func TestEmptyStorageFlag(t *testing.T) {
	t.Setenv("ATLATL_PROMPT__OFFLOAD__STORAGE", "nosuch://bucket")
	a, err := setup([]string{"-records", "1", "-storage", ""}, io.Discard)
	if err != nil {
		t.Fatalf("setup -storage \"\": %v", err)
	}
	if a.opts.Store != nil {
		defer a.opts.Store.Close()
		t.Errorf("a store in %q, want none", a.opts.Store.Dir())
	}
}
