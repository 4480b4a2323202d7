package lro_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/disk"
	"github.com/zircote/lro-go/internal/spec"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/descriptor"
)

// env returns a LookupEnv over a fixed map.
func env(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := vars[k]
		return v, ok
	}
}

// environ returns an Environ listing a fixed map.
func environ(vars map[string]string) func() []string {
	return func() []string {
		var list []string
		for k, v := range vars {
			list = append(list, k+"="+v)
		}
		return list
	}
}

func writeTOML(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestLoadOptionsPrecedence(t *testing.T) {
	const file = `
[server]
name = "ignored: not our section"

[prompt.offload]
enabled = true
threshold_tokens = 2000
ttl_seconds = 600
output_dir = "/from/toml"
profile = "no_recipes"

[prompt.offload.tools.recall_memories]
threshold_tokens = 4000
profile = "bare-pointer"

[prompt.offload.tools."list-things"]
enabled = false
`
	tests := []struct {
		name     string
		file     string
		vars     map[string]string
		prefix   string
		explicit *lro.Options
		want     lro.Options
	}{{
		name: "nothing set: the spec's defaults",
		want: lro.Options{ThresholdTokens: lro.DefaultThresholdTokens, TTL: spec.DefaultTTL},
	}, {
		name: "the file sets every key",
		file: file,
		want: lro.Options{
			ThresholdTokens: 2000, TTL: 600 * time.Second, OutputDir: "/from/toml", Profile: descriptor.ProfileNoRecipes,
			Tools: map[string]lro.Options{
				"recall_memories": {ThresholdTokens: 4000, Profile: descriptor.ProfileBarePointer},
				"list-things":     {Disabled: true},
			},
		},
	}, {
		name: "the environment overrides the file, key by key",
		file: file,
		vars: map[string]string{
			"ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS": "3000",
			"ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR":       "/from/env",
			"ATLATL_PROMPT__OFFLOAD__TTL_SECONDS":      "", // empty counts as unset
		},
		want: lro.Options{
			ThresholdTokens: 3000, TTL: 600 * time.Second, OutputDir: "/from/env", Profile: descriptor.ProfileNoRecipes,
			Tools: map[string]lro.Options{
				"recall_memories": {ThresholdTokens: 4000, Profile: descriptor.ProfileBarePointer},
				"list-things":     {Disabled: true},
			},
		},
	}, {
		name: "explicit options override the environment; per-tool fields merge",
		file: file,
		vars: map[string]string{"ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS": "3000", "ATLATL_PROMPT__OFFLOAD__ENABLED": "true"},
		explicit: &lro.Options{
			ThresholdTokens: 5000, Disabled: true, Prefix: "mine",
			Tools: map[string]lro.Options{"recall_memories": {Profile: descriptor.ProfileNoSchema}},
		},
		want: lro.Options{
			Disabled: true, ThresholdTokens: 5000, TTL: 600 * time.Second, OutputDir: "/from/toml", Prefix: "mine",
			Profile: descriptor.ProfileNoRecipes,
			Tools: map[string]lro.Options{
				"recall_memories": {ThresholdTokens: 4000, Profile: descriptor.ProfileNoSchema},
				"list-things":     {Disabled: true},
			},
		},
	}, {
		name: "the environment disables what the file enabled",
		file: "[prompt.offload]\nenabled = true\n",
		vars: map[string]string{"ATLATL_PROMPT__OFFLOAD__ENABLED": "false"},
		want: lro.Options{Disabled: true, ThresholdTokens: lro.DefaultThresholdTokens, TTL: spec.DefaultTTL},
	}, {
		name:   "another product's prefix; ATLATL variables are then ignored",
		prefix: "MYAPP",
		vars: map[string]string{
			"MYAPP_PROMPT__OFFLOAD__THRESHOLD_TOKENS":  "900",
			"MYAPP_PROMPT__OFFLOAD__PROFILE":           "no_schema",
			"ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS": "7",
		},
		want: lro.Options{ThresholdTokens: 900, TTL: spec.DefaultTTL, Profile: descriptor.ProfileNoSchema},
	}, {
		name: "the client's folder and the tools always offloaded, from the file and the environment",
		file: "[prompt.offload]\nclient_dir = \"/from/toml\"\n[prompt.offload.tools.export]\nalways = true\n[prompt.offload.tools.recall]\nthreshold_tokens = 900\n",
		vars: map[string]string{"ATLATL_PROMPT__OFFLOAD__ALWAYS": " recall , dump", "ATLATL_PROMPT__OFFLOAD__CLIENT_DIR": "/from/env"},
		want: lro.Options{
			ThresholdTokens: lro.DefaultThresholdTokens, TTL: spec.DefaultTTL, ClientDir: "/from/env",
			Tools: map[string]lro.Options{
				"export": {Always: true},
				"recall": {ThresholdTokens: 900, Always: true},
				"dump":   {Always: true},
			},
		},
	}, {
		name: "preview_records from the file; 0, none, is -1",
		file: "[prompt.offload]\npreview_records = 0\n",
		want: lro.Options{ThresholdTokens: lro.DefaultThresholdTokens, TTL: spec.DefaultTTL, PreviewRecords: -1},
	}, {
		name: "the environment's preview_records overrides the file's",
		file: "[prompt.offload]\npreview_records = 0\n",
		vars: map[string]string{"ATLATL_PROMPT__OFFLOAD__PREVIEW_RECORDS": " 5 "},
		want: lro.Options{ThresholdTokens: lro.DefaultThresholdTokens, TTL: spec.DefaultTTL, PreviewRecords: 5},
	}, {
		name:     "explicit PreviewRecords wins",
		vars:     map[string]string{"ATLATL_PROMPT__OFFLOAD__PREVIEW_RECORDS": "0"},
		explicit: &lro.Options{PreviewRecords: 2},
		want:     lro.Options{ThresholdTokens: lro.DefaultThresholdTokens, TTL: spec.DefaultTTL, PreviewRecords: 2},
	}, {
		name:     "explicit Always and ClientDir win",
		file:     "[prompt.offload]\nclient_dir = \"/from/toml\"\n",
		explicit: &lro.Options{ClientDir: "/explicit", Tools: map[string]lro.Options{"export": {Always: true}}},
		want: lro.Options{
			ThresholdTokens: lro.DefaultThresholdTokens, TTL: spec.DefaultTTL, ClientDir: "/explicit",
			Tools: map[string]lro.Options{"export": {Always: true}},
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := &lro.Sources{EnvPrefix: tt.prefix, LookupEnv: env(tt.vars)}
			if tt.file != "" {
				src.File = writeTOML(t, tt.file)
			}
			got, err := lro.LoadOptionsFrom(tt.explicit, src)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, *got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("LoadOptions mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadOptionsRejectsBadValues(t *testing.T) {
	aFile := filepath.Join(t.TempDir(), "regular-file")
	if err := os.WriteFile(aFile, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		file string
		vars map[string]string
		// want are substrings of the error: the key (or variable) and the value.
		want []string
	}{
		{"enabled is not a boolean", `[prompt.offload]
enabled = "maybe"`, nil, []string{"prompt.offload.enabled", `"maybe"`, "not a boolean"}},
		{"negative threshold", "[prompt.offload]\nthreshold_tokens = -5", nil, []string{"prompt.offload.threshold_tokens", "-5"}},
		{"zero threshold would silently mean the default", "[prompt.offload]\nthreshold_tokens = 0", nil, []string{"prompt.offload.threshold_tokens", "= 0"}},
		{"threshold above u32", "[prompt.offload]\nthreshold_tokens = 4294967296", nil, []string{"threshold_tokens", "4294967296"}},
		{"fractional threshold", "[prompt.offload]\nthreshold_tokens = 1.5", nil, []string{"threshold_tokens", "1.5", "not an integer"}},
		{"TTL that overflows a duration", "[prompt.offload]\nttl_seconds = 9223372036854775807", nil, []string{"prompt.offload.ttl_seconds", "9223372036854775807", "out of range"}},
		{"output dir that is a file", "[prompt.offload]\noutput_dir = \"" + aFile + "\"", nil, []string{"prompt.offload.output_dir", aFile, "not a folder"}},
		{"output dir below a file", "[prompt.offload]\noutput_dir = \"" + filepath.Join(aFile, "sub", "dir") + "\"", nil,
			[]string{"prompt.offload.output_dir", filepath.Join(aFile, "sub", "dir"), "below " + aFile + ", which is not a folder"}},
		{"unknown key, a typo", "[prompt.offload]\nthreshold = 10", nil, []string{"prompt.offload.threshold", "unknown key"}},
		{"unknown profile", "[prompt.offload]\nprofile = \"tiny\"", nil, []string{"prompt.offload.profile", `"tiny"`}},
		{"offload is not a table", "[prompt]\noffload = 3", nil, []string{"prompt.offload", "not a table"}},
		{"tools is an array", "[prompt.offload]\ntools = [1]", nil, []string{"prompt.offload.tools", "[1]", "not a table"}},
		{"a tool is not a table", "[prompt.offload.tools]\nrecall = 3", nil, []string{"prompt.offload.tools.recall", "= 3", "not a table"}},
		{"unknown table in the section", "[prompt.offload.extra]\nx = 1", nil, []string{"prompt.offload.extra", "unknown key"}},
		{"bad per-tool threshold", "[prompt.offload.tools.recall]\nthreshold_tokens = -1", nil, []string{"prompt.offload.tools.recall.threshold_tokens", "-1"}},
		{"unknown per-tool key", "[prompt.offload.tools.\"my tool\"]\nttl_seconds = 5", nil, []string{`prompt.offload.tools."my tool".ttl_seconds`, "unknown key"}},
		{"env enabled is not a boolean", "", map[string]string{"ATLATL_PROMPT__OFFLOAD__ENABLED": "maybe"}, []string{"ATLATL_PROMPT__OFFLOAD__ENABLED", `"maybe"`}},
		{"env negative threshold", "", map[string]string{"ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS": "-1"}, []string{"ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS", `"-1"`}},
		{"env TTL that overflows", "", map[string]string{"ATLATL_PROMPT__OFFLOAD__TTL_SECONDS": "99999999999999999999"}, []string{"ATLATL_PROMPT__OFFLOAD__TTL_SECONDS", "99999999999999999999"}},
		{"env output dir that is a file", "", map[string]string{"ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR": aFile}, []string{"ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR", aFile}},
		{"env output dir below a file", "", map[string]string{"ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR": filepath.Join(aFile, "sub")},
			[]string{"ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR", filepath.Join(aFile, "sub"), "below " + aFile}},
		{"env unknown profile", "", map[string]string{"ATLATL_PROMPT__OFFLOAD__PROFILE": "all"}, []string{"ATLATL_PROMPT__OFFLOAD__PROFILE", `"all"`}},
		{"relative client dir", "[prompt.offload]\nclient_dir = \"lro\"", nil, []string{"prompt.offload.client_dir", `"lro"`, "absolute"}},
		{"client dir that is not a string", "[prompt.offload]\nclient_dir = 3", nil, []string{"prompt.offload.client_dir", "not a string"}},
		{"always is not a boolean", "[prompt.offload.tools.export]\nalways = \"yes\"", nil, []string{"prompt.offload.tools.export.always", "not a boolean"}},
		{"env client dir not clean", "", map[string]string{"ATLATL_PROMPT__OFFLOAD__CLIENT_DIR": "/a/../b"}, []string{"ATLATL_PROMPT__OFFLOAD__CLIENT_DIR", "not clean"}},
		{"preview_records above 16", "[prompt.offload]\npreview_records = 17", nil, []string{"prompt.offload.preview_records", "17", "0 (none) to 16"}},
		{"negative preview_records", "[prompt.offload]\npreview_records = -1", nil, []string{"prompt.offload.preview_records", "-1"}},
		{"env preview_records not a number", "", map[string]string{"ATLATL_PROMPT__OFFLOAD__PREVIEW_RECORDS": "all"}, []string{"ATLATL_PROMPT__OFFLOAD__PREVIEW_RECORDS", `"all"`}},
		{"a tool back to the full descriptor, which its Options cannot say", "[prompt.offload]\nprofile = \"no_schema\"\n[prompt.offload.tools.recall]\nprofile = \"full\"", nil,
			[]string{"prompt.offload.tools.recall.profile", `"full"`, "no_schema"}},
		{"env always with an empty name", "", map[string]string{"ATLATL_PROMPT__OFFLOAD__ALWAYS": "export,,dump"}, []string{"ATLATL_PROMPT__OFFLOAD__ALWAYS", "empty tool name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := &lro.Sources{LookupEnv: env(tt.vars)}
			if tt.file != "" {
				src.File = writeTOML(t, tt.file)
			}
			got, err := lro.LoadOptionsFrom(nil, src)
			if err == nil {
				t.Fatalf("LoadOptions = %+v, want an error", got)
			}
			if !errors.Is(err, lro.ErrInvalidOption) {
				t.Errorf("error %q does not wrap ErrInvalidOption", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %s", err, w)
				}
			}
		})
	}
}

// TestLoadOptionsProfileNames: a profile is read by its name, as
// [descriptor.Profile.String] returns it, whatever its case and with '-' or
// ' ' for '_'; another name is refused.
func TestLoadOptionsProfileNames(t *testing.T) {
	tests := []struct {
		in      string
		want    descriptor.Profile
		wantErr bool
	}{
		{"full", descriptor.ProfileFull, false},
		{"no_recipes", descriptor.ProfileNoRecipes, false},
		{"No-Schema", descriptor.ProfileNoSchema, false},
		{" bare pointer ", descriptor.ProfileBarePointer, false},
		{"", 0, true},
		{"rich", 0, true},
	}
	for _, tt := range tests {
		src := &lro.Sources{File: writeTOML(t, fmt.Sprintf("[prompt.offload]\nprofile = %q\n", tt.in)), LookupEnv: env(nil), Environ: environ(nil)}
		got, err := lro.LoadOptionsFrom(nil, src)
		if (err != nil) != tt.wantErr {
			t.Errorf("profile = %q: error %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if err != nil {
			if !errors.Is(err, lro.ErrInvalidOption) || !strings.Contains(err.Error(), "unknown profile") {
				t.Errorf("profile = %q: error %v, want an ErrInvalidOption naming an unknown profile", tt.in, err)
			}
			continue
		}
		if got.Profile != tt.want {
			t.Errorf("profile = %q: Profile = %v, want %v", tt.in, got.Profile, tt.want)
		}
	}
}

func TestLoadOptionsFileErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "absent.toml")
	if _, err := lro.LoadOptionsFrom(nil, &lro.Sources{File: missing, LookupEnv: env(nil)}); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: error %v, want one naming %s", err, missing)
	}
	broken := writeTOML(t, "[prompt.offload\nenabled = true")
	if _, err := lro.LoadOptionsFrom(nil, &lro.Sources{File: broken, LookupEnv: env(nil)}); err == nil || !strings.Contains(err.Error(), broken) {
		t.Errorf("malformed file: error %v, want one naming %s", err, broken)
	}
	// Explicit options are validated too, after the layers are merged.
	if _, err := lro.LoadOptionsFrom(&lro.Options{ThresholdTokens: -3}, &lro.Sources{LookupEnv: env(nil)}); !errors.Is(err, lro.ErrInvalidOption) {
		t.Errorf("invalid explicit option: error %v, want ErrInvalidOption", err)
	}
}

// TestLoadOptionsUnknownVariable checks that a variable under
// {EnvPrefix}_PROMPT__OFFLOAD__ whose key is not known is refused, naming
// it, instead of being silently ignored.
func TestLoadOptionsUnknownVariable(t *testing.T) {
	tests := []struct {
		name    string
		prefix  string
		vars    map[string]string // what both Environ and LookupEnv see
		listed  []string          // listed by Environ besides, unknown to LookupEnv
		wantErr string            // the variable named; "" for success
		reason  string
	}{
		{name: "a typo of THRESHOLD_TOKENS", vars: map[string]string{"ATLATL_PROMPT__OFFLOAD__THRESHOLD": "5"},
			wantErr: `ATLATL_PROMPT__OFFLOAD__THRESHOLD="5"`, reason: "the issue's case: it was silently ignored"},
		{name: "next to a valid variable", vars: map[string]string{
			"ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS": "900", "ATLATL_PROMPT__OFFLOAD__TTL": "60"},
			wantErr: "ATLATL_PROMPT__OFFLOAD__TTL", reason: "ttl_seconds is the key"},
		{name: "lower case", vars: map[string]string{"ATLATL_PROMPT__OFFLOAD__enabled": "false"},
			wantErr: "ATLATL_PROMPT__OFFLOAD__enabled", reason: "LoadOptions reads upper-case names only; this one it would ignore"},
		{name: "per-tool tables are TOML only", vars: map[string]string{"ATLATL_PROMPT__OFFLOAD__TOOLS__RECALL__ENABLED": "false"},
			wantErr: "ATLATL_PROMPT__OFFLOAD__TOOLS__RECALL__ENABLED", reason: "no variable sets a tool's override"},
		{name: "no key at all", vars: map[string]string{"ATLATL_PROMPT__OFFLOAD__": "x"},
			wantErr: "ATLATL_PROMPT__OFFLOAD__=", reason: "the prefix alone is no key"},
		{name: "the first of two by name", vars: map[string]string{"ATLATL_PROMPT__OFFLOAD__Z": "1", "ATLATL_PROMPT__OFFLOAD__A": "1"},
			wantErr: "ATLATL_PROMPT__OFFLOAD__A", reason: "the error does not depend on the order of the environment"},
		{name: "another product's prefix", prefix: "MYAPP", vars: map[string]string{
			"MYAPP_PROMPT__OFFLOAD__THRESHOLD": "5"}, wantErr: "MYAPP_PROMPT__OFFLOAD__THRESHOLD", reason: "EnvPrefix decides the section"},
		{name: "empty counts as unset", vars: map[string]string{"ATLATL_PROMPT__OFFLOAD__THRESHOLD": ""},
			reason: "as for the known variables"},
		{name: "variables of the other prefix", prefix: "MYAPP", vars: map[string]string{"ATLATL_PROMPT__OFFLOAD__THRESHOLD": "5"},
			reason: "not this product's section"},
		{name: "other sections", vars: map[string]string{"ATLATL_PROMPT__OFFLOADING": "1", "ATLATL_PROMPT__OTHER__X": "1", "ATLATLX_PROMPT__OFFLOAD__X": "1"},
			reason: "only names that start with ATLATL_PROMPT__OFFLOAD__ are this section's"},
		{name: "listed but not set for LookupEnv", listed: []string{"ATLATL_PROMPT__OFFLOAD__THRESHOLD=5"},
			reason: "the variables checked are those LookupEnv sees"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			list := environ(tt.vars)
			src := &lro.Sources{EnvPrefix: tt.prefix, LookupEnv: env(tt.vars), Environ: func() []string { return append(list(), tt.listed...) }}
			got, err := lro.LoadOptionsFrom(nil, src)
			if tt.wantErr == "" {
				if err != nil {
					t.Errorf("LoadOptions = %v, want success: %s", err, tt.reason)
				}
				return
			}
			if !errors.Is(err, lro.ErrInvalidOption) || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "unknown variable") {
				t.Errorf("LoadOptions = %+v, %v; want ErrInvalidOption naming %s as unknown: %s", got, err, tt.wantErr, tt.reason)
			}
		})
	}
}

// TestLoadOptionsUnknownVariableDefaults checks the defaults of Environ: the
// process environment, of which a LookupEnv over a map sees nothing.
func TestLoadOptionsUnknownVariableDefaults(t *testing.T) {
	t.Setenv("ATLATL_PROMPT__OFFLOAD__THRESHOLD", "5")
	for _, src := range []*lro.Sources{nil, {}, {LookupEnv: os.LookupEnv}} {
		if _, err := lro.LoadOptionsFrom(nil, src); !errors.Is(err, lro.ErrInvalidOption) || !strings.Contains(err.Error(), "ATLATL_PROMPT__OFFLOAD__THRESHOLD") {
			t.Errorf("LoadOptions(nil, %+v) = %v; want the process's variable refused", src, err)
		}
	}
	if _, err := lro.LoadOptionsFrom(nil, &lro.Sources{LookupEnv: env(nil)}); err != nil {
		t.Errorf("LoadOptions with a LookupEnv over an empty map = %v; want the process's variables unseen", err)
	}
}

// TestValidatePrefixAndOutputDir checks that options every offload would
// fail with are refused at start, naming the field, rather than accepted
// and turned into a fallback on every call.
func TestValidatePrefixAndOutputDir(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "regular-file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	dangling, toDir := filepath.Join(dir, "dangling"), filepath.Join(dir, "to-dir")
	if err := os.Symlink(filepath.Join(dir, "missing"), dangling); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	if err := os.Symlink(t.TempDir(), toDir); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(dir, "open")
	if err := os.Mkdir(open, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o777); err != nil {
		t.Fatal(err)
	}
	sticky := filepath.Join(dir, "sticky")
	if err := os.Mkdir(sticky, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(sticky, 0o777|fs.ModeSticky); err != nil {
		t.Fatal(err)
	}
	toOpen := filepath.Join(dir, "to-open")
	if err := os.Symlink(open, toOpen); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		opts    lro.Options
		field   string // named by the error; "" if the options are valid
		want    string // also in the error
		wrapped error  // also wrapped, besides ErrInvalidOption
		reason  string
	}{
		{name: "prefix climbing out", opts: lro.Options{Prefix: "../escape"}, field: "Options.Prefix", want: "../escape",
			wrapped: disk.ErrInvalidPrefix, reason: "a prefix with a slash would put files outside OutputDir; jsonl.Create refuses it"},
		{name: "hidden prefix", opts: lro.Options{Prefix: ".atlatl"}, field: "Options.Prefix", wrapped: disk.ErrInvalidPrefix,
			reason: "files would be hidden, and named like temporary files"},
		{name: "prefix too long", opts: lro.Options{Prefix: strings.Repeat("p", 65)}, field: "Options.Prefix", wrapped: disk.ErrInvalidPrefix,
			reason: "names must stay below 255 bytes"},
		{name: "output dir is a file", opts: lro.Options{OutputDir: file}, field: "Options.OutputDir", want: "not a folder",
			reason: "a file cannot hold files"},
		{name: "output dir below a file", opts: lro.Options{OutputDir: filepath.Join(file, "sub")}, field: "Options.OutputDir",
			want: "below " + file + ", which is not a folder", reason: "like /etc/passwd/sub: it can never be created"},
		{name: "output dir deep below a file", opts: lro.Options{OutputDir: filepath.Join(file, "a", "b", "c")}, field: "Options.OutputDir",
			want: "below " + file, reason: "the nearest existing ancestor decides"},
		{name: "output dir is a dangling symlink", opts: lro.Options{OutputDir: dangling}, field: "Options.OutputDir",
			want: "a symlink that leads to no folder", reason: "a folder cannot be created at a symlink's name, nor files through it"},
		{name: "output dir below a dangling symlink", opts: lro.Options{OutputDir: filepath.Join(dangling, "sub")}, field: "Options.OutputDir",
			want: "below " + dangling + ", a symlink that leads to no folder", reason: "the nearest existing entry is the symlink"},
		{name: "output dir writable by others", opts: lro.Options{OutputDir: open}, field: "Options.OutputDir",
			want: "folder " + open + " is writable by others without the sticky bit", wrapped: disk.ErrUnsafeDir,
			reason: "another user could swap a file for a symlink, and have the server serve or touch what it leads to"},
		{name: "output dir to be created in a folder writable by others", opts: lro.Options{OutputDir: filepath.Join(open, "lro")},
			field: "Options.OutputDir", want: "folder " + open + " is writable by others", wrapped: disk.ErrUnsafeDir,
			reason: "another user could make the folder first, or replace it"},
		{name: "output dir is a symlink to a folder writable by others", opts: lro.Options{OutputDir: toOpen},
			field: "Options.OutputDir", want: "folder " + open + " is writable by others", wrapped: disk.ErrUnsafeDir,
			reason: "the folder the symlink leads to decides"},
		{name: "output dir sticky and writable by all", opts: lro.Options{OutputDir: sticky}, reason: "as /tmp: nobody can replace another's files"},
		{name: "valid prefix", opts: lro.Options{Prefix: "My_app.v2-x", OutputDir: dir}, reason: "letters, digits, _ . and -"},
		{name: "output dir is a symlink to a folder", opts: lro.Options{OutputDir: toDir}, reason: "as /tmp is on macOS"},
		{name: "output dir to be created below a symlink to a folder", opts: lro.Options{OutputDir: filepath.Join(toDir, "new")},
			reason: "the symlink leads to a folder"},
		{name: "output dir to be created", opts: lro.Options{OutputDir: filepath.Join(dir, "new", "deeper")},
			reason: "the first offload creates it below an existing folder"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.opts.Validate()
			if tt.field == "" {
				if err != nil {
					t.Errorf("Validate() = %v, want nil: %s", err, tt.reason)
				}
				return
			}
			if !errors.Is(err, lro.ErrInvalidOption) || !strings.Contains(err.Error(), tt.field) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Validate() = %v, want ErrInvalidOption naming %s and saying %q: %s", err, tt.field, tt.want, tt.reason)
			}
			if tt.wrapped != nil && !errors.Is(err, tt.wrapped) {
				t.Errorf("Validate() = %v, want it to wrap %v too", err, tt.wrapped)
			}
		})
	}
}

// TestPerToolOverrides shows that one set of Options serves tools with
// different thresholds and profiles, through Wrap and Middleware alike.
func TestPerToolOverrides(t *testing.T) {
	opts := &lro.Options{
		OutputDir: t.TempDir(),
		Tools: map[string]lro.Options{
			"small_threshold": {ThresholdTokens: 50},
			"bare":            {Profile: descriptor.ProfileBarePointer},
			"never":           {Disabled: true},
		},
	}
	// 20 items are ~600 tokens: inline under the default threshold of 1,600.
	// 200 items are ~6,000: offloaded unless the tool is disabled.
	tests := []struct {
		tool      string
		items     int
		offloaded bool
		recipes   bool
	}{
		{"default", 20, false, false},
		{"small_threshold", 20, true, true},
		{"default", 200, true, true},
		{"bare", 200, true, false},
		{"never", 200, false, false},
	}
	check := func(t *testing.T, res *mcp.CallToolResult, offloaded, recipes bool) {
		t.Helper()
		text := res.Content[0].(*mcp.TextContent).Text
		if got := strings.HasPrefix(text, `{"offloaded":true`); got != offloaded {
			t.Fatalf("offloaded = %v, want %v", got, offloaded)
		}
		if offloaded {
			d := descriptorOf(t, res)
			if got := len(d.JqRecipes) > 0; got != recipes {
				t.Errorf("recipes present = %v, want %v", got, recipes)
			}
		}
	}
	t.Run("Wrap", func(t *testing.T) {
		for _, tt := range tests {
			h := lro.Wrap(textHandler(tt.items), opts)
			res, err := h(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: tt.tool}})
			if err != nil {
				t.Fatal(err)
			}
			t.Run(tt.tool, func(t *testing.T) { check(t, res, tt.offloaded, tt.recipes) })
		}
	})
	t.Run("Middleware", func(t *testing.T) {
		s := newServer()
		for _, n := range []int{20, 200} {
			for _, name := range []string{"default", "small_threshold", "bare", "never"} {
				s.AddTool(&mcp.Tool{Name: name + "_" + string(rune('0'+n/100)), InputSchema: rawInputSchema}, textHandler(n))
			}
		}
		mwOpts := *opts
		mwOpts.Tools = map[string]lro.Options{}
		for name, o := range opts.Tools {
			mwOpts.Tools[name+"_0"] = o
			mwOpts.Tools[name+"_2"] = o
		}
		s.AddReceivingMiddleware(lro.Middleware(&mwOpts))
		cs := connect(t, s)
		for _, tt := range tests {
			name := tt.tool + "_" + string(rune('0'+tt.items/100))
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name})
			if err != nil {
				t.Fatal(err)
			}
			t.Run(name, func(t *testing.T) { check(t, res, tt.offloaded, tt.recipes) })
		}
	})
	t.Run("invalid override", func(t *testing.T) {
		for _, tt := range []struct {
			tool  lro.Options
			field string
		}{
			{lro.Options{ThresholdTokens: -1}, "ThresholdTokens"},
			{lro.Options{Profile: descriptor.ProfileBarePointer + 1}, "Profile"},
			// Where files go and how they are named is the server's.
			{lro.Options{OutputDir: t.TempDir()}, "OutputDir"},
			{lro.Options{Prefix: "p", ThresholdTokens: 5}, "Prefix"},
			{lro.Options{Tools: map[string]lro.Options{"y": {}}}, "Tools"},
		} {
			err := (&lro.Options{Tools: map[string]lro.Options{"x": tt.tool}}).Validate()
			if !errors.Is(err, lro.ErrInvalidOption) || !strings.Contains(err.Error(), `Tools["x"].`+tt.field) {
				t.Errorf("Validate() = %v, want an ErrInvalidOption naming Tools[\"x\"].%s", err, tt.field)
			}
		}
	})
}

// ExampleLoadOptions reads the specification's configuration: a TOML file,
// then the environment, then what the code says.
func ExampleLoadOptions() {
	dir, _ := os.MkdirTemp("", "lro-config")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "atlatl.toml")
	os.WriteFile(path, []byte(`
[prompt.offload]
threshold_tokens = 2000
ttl_seconds = 600
`), 0o600)
	os.Setenv("ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS", "3000")
	defer os.Unsetenv("ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS")

	opts, err := lro.LoadOptions(&lro.Options{Prefix: "demo"}, path)
	if err != nil {
		panic(err)
	}
	out, _ := json.Marshal(map[string]any{"threshold": opts.ThresholdTokens, "ttl": opts.TTL.String(), "prefix": opts.Prefix})
	fmt.Println(string(out))

	os.Setenv("ATLATL_PROMPT__OFFLOAD__ENABLED", "maybe")
	defer os.Unsetenv("ATLATL_PROMPT__OFFLOAD__ENABLED")
	_, err = lro.LoadOptions(nil, "")
	fmt.Println(err)
	// Output:
	// {"prefix":"demo","threshold":3000,"ttl":"10m0s"}
	// lro: environment ATLATL_PROMPT__OFFLOAD__ENABLED="maybe": not a boolean (want true or false): lro: invalid option
}
