package lro

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/zircote/lro-go/internal/redact"
	"github.com/zircote/lro-go/internal/spec"
	"github.com/zircote/lro-go/lro/descriptor"
	"github.com/zircote/lro-go/lro/internal/offload"
	"github.com/zircote/lro-go/lro/store"
)

// The environment variables that [LoadOptions] reads are named
// {defaultEnvPrefix}{envSection}{KEY}, as ATLATL_PROMPT__OFFLOAD__ENABLED.
const (
	defaultEnvPrefix = "ATLATL"
	envSection       = "_PROMPT__OFFLOAD__"
)

// sources say where loadOptions reads configuration besides code: the
// TOML file, and the environment (the process's, if zero), whose variables
// start with EnvPrefix (ATLATL if empty).
type sources struct {
	File      string
	EnvPrefix string
	LookupEnv func(key string) (string, bool)
	Environ   func() []string
}

// LoadOptions returns the options of a server, read from four layers, each
// overriding the one before: the defaults; the [prompt.offload] section of
// the TOML file at path file (none if file is empty); the environment
// variables ATLATL_PROMPT__OFFLOAD__{KEY}; and the fields of explicit (may
// be nil) that are not zero. docs/configuration.md lists the keys and
// variables. The result has ThresholdTokens and TTL set. When storage is set
// and explicit has no Store, LoadOptions opens it with [store.Open] as
// [Options.Store], which the caller closes after the server's last use.
// A folder named by output_dir or storage is checked only when it is the
// one used: a value that a later layer replaces is never checked or opened.
//
// A Store of explicit that is the zero value, new(store.Store), stands for
// one the caller opens itself once the options are loaded, with their TTL
// (as a -storage flag does): LoadOptions then neither checks nor opens the
// storage of the file or the environment, and returns Options without a
// Store.
//
// LoadOptions fails, naming the key or variable and its value, with an
// error wrapping [ErrInvalidOption] for an invalid value, an unknown key or
// variable, or a storage that cannot be opened; and for a file that cannot
// be read or parsed.
func LoadOptions(explicit *Options, file string) (*Options, error) {
	return loadOptions(explicit, &sources{File: file})
}

// layer is what the file and the environment set.
type layer struct {
	Options
	storage     string // a bucket URL or a folder, for store.Open; "" for none
	storageFrom string // the key or variable storage was read from
	// storageErr and outputDirErr make the error of the storage and the
	// output_dir read, naming the key or variable and the value.
	storageErr, outputDirErr func(error) error
	// fullFrom names, by tool, the key that set its profile to "full",
	// which a tool's Options cannot tell from no profile.
	fullFrom map[string]string
}

// loadOptions is LoadOptions with the sources of src.
func loadOptions(explicit *Options, src *sources) (*Options, error) {
	s := *cmp.Or(src, &sources{})
	s.EnvPrefix = cmp.Or(s.EnvPrefix, defaultEnvPrefix)
	if s.LookupEnv == nil {
		s.LookupEnv = os.LookupEnv
	}
	if s.Environ == nil {
		s.Environ = os.Environ
	}
	l := &layer{Options: Options{Tools: map[string]Options{}}, fullFrom: map[string]string{}}
	if s.File != "" {
		if err := l.readFile(s.File); err != nil {
			return nil, err
		}
	}
	if err := l.readEnv(s.EnvPrefix, s.Environ, s.LookupEnv); err != nil {
		return nil, err
	}
	out := *cmp.Or(explicit, &Options{})
	// A zero Store stands for the caller's, opened after (see LoadOptions).
	callerStore := out.Store != nil && out.Store.TTL() == 0 && out.Store.Prefix() == "" && out.Store.Dir() == "" && out.Store.Bucket() == nil
	if callerStore {
		out.Store = nil
	}
	if out.Store != nil || callerStore {
		l.storage = "" // replaced: neither checked nor opened
	}
	// The folders of the file and the environment are checked only if
	// they are used, as the other values of a layer replaced are not.
	if out.OutputDir == "" && l.OutputDir != "" {
		if err := checkFolder(l.OutputDir); err != nil {
			return nil, l.outputDirErr(err)
		}
	}
	if l.storage != "" && !strings.Contains(l.storage, "://") {
		if err := checkFolder(l.storage); err != nil {
			return nil, l.storageErr(err)
		}
	}
	l.under(&out)
	for _, name := range slices.Sorted(maps.Keys(l.fullFrom)) {
		if out.Profile != descriptor.ProfileFull && out.Tools[name].Profile == descriptor.ProfileFull {
			return nil, fmt.Errorf("lro: %s = \"full\": a tool cannot return to the full descriptor when the profile of every tool is %s: leave the global profile full and set the others per tool: %w",
				l.fullFrom[name], profileName(out.Profile), ErrInvalidOption)
		}
	}
	out.ThresholdTokens = cmp.Or(out.ThresholdTokens, defaultThresholdTokens)
	if out.TTL == 0 && out.Store != nil {
		out.TTL = out.Store.TTL()
	}
	out.TTL = cmp.Or(out.TTL, spec.DefaultTTL)
	if err := out.Validate(); err != nil {
		return nil, err
	}
	if out.Store != nil || l.storage == "" {
		return &out, nil
	}
	// Opened last: nothing is opened for options refused anyway.
	so := &store.Options{Prefix: out.Prefix, TTL: out.TTL, Observer: out.Observer}
	st, err := store.Open(context.Background(), l.storage, so)
	if err != nil {
		return nil, fmt.Errorf("lro: %s: %w: %w", l.storageFrom, err, ErrInvalidOption)
	}
	out.Store = st
	if err := out.Validate(); err != nil {
		st.Close()
		return nil, fmt.Errorf("lro: %s: %w", l.storageFrom, err)
	}
	return &out, nil
}

// under sets the fields of o that are zero from l, and merges l's tools
// with o's, field by field.
func (l *layer) under(o *Options) {
	explicit := o.Tools
	fill(o, l.Options)
	if o.Tools = explicit; len(l.Tools) == 0 {
		return
	}
	o.Tools = maps.Clone(l.Tools)
	for name, e := range explicit {
		fill(&e, o.Tools[name])
		o.Tools[name] = e
	}
}

// fill sets each field of dst that is zero, or an empty slice, to src's:
// one layer of options falling back on the one below.
func fill(dst *Options, src Options) {
	d, s := reflect.ValueOf(dst).Elem(), reflect.ValueOf(src)
	for i := range d.NumField() {
		if f := d.Field(i); f.IsZero() || f.Kind() == reflect.Slice && f.Len() == 0 {
			f.Set(s.Field(i))
		}
	}
}

// fields are the keys of [prompt.offload] but tools, also read from the
// environment, and the function that sets a value of either in l.
func (l *layer) fields() map[string]func(any) error {
	return map[string]func(any) error{
		"enabled":          set(&l.Disabled, disabled),
		"threshold_tokens": set(&l.ThresholdTokens, threshold),
		"ttl_seconds":      set(&l.TTL, ttlSeconds),
		"output_dir":       set(&l.OutputDir, outputDir),
		"profile":          set(&l.Profile, profile),
		"client_dir":       set(&l.ClientDir, clientDir),
		"preview_records":  set(&l.PreviewRecords, previewRecords),
		"storage":          set(&l.storage, storage),
		"redact":           set(&l.DisableRedaction, disabled),
		"redact_patterns":  set(&l.RedactPatterns, patterns),
	}
}

// toolFields are the keys of a table of [prompt.offload.tools], and the
// function that sets a value in t.
func toolFields(t *Options) map[string]func(any) error {
	return map[string]func(any) error{
		"enabled":          set(&t.Disabled, disabled),
		"threshold_tokens": set(&t.ThresholdTokens, threshold),
		"profile":          set(&t.Profile, profile),
		"always":           set(&t.Always, boolean),
		"redact":           set(&t.DisableRedaction, disabled),
		"redact_patterns":  set(&t.RedactPatterns, patterns),
	}
}

// set returns a function that sets *dst to a value that parse accepts.
func set[T any](dst *T, parse func(any) (T, error)) func(any) error {
	return func(v any) (err error) {
		*dst, err = parse(v)
		return err
	}
}

// readFile reads the [prompt.offload] section of the TOML file at path,
// checking keys in name order, a tool's after the section's.
func (l *layer) readFile(path string) error {
	text, err := readConfig(path)
	if err != nil {
		return fmt.Errorf("lro: config file %s: %w", path, err)
	}
	var doc map[string]any
	if _, err := toml.Decode(text, &doc); err != nil {
		return fmt.Errorf("lro: config file %s: %w", path, err)
	}
	bad := func(key toml.Key, v any, err error) error {
		return fmt.Errorf("lro: config file %s: %s = %s: %s: %w", path, key, tomlValue(v), err, ErrInvalidOption)
	}
	// table returns the value of key in m as a table, nil when absent.
	table := func(m map[string]any, key toml.Key) (map[string]any, error) {
		v := m[key[len(key)-1]]
		t, ok := v.(map[string]any)
		if !ok && v != nil {
			return nil, bad(key, v, errors.New("not a table"))
		}
		return t, nil
	}
	// read sets the values of t with fields.
	read := func(t map[string]any, key toml.Key, fields map[string]func(any) error, want string) error {
		for _, name := range slices.Sorted(maps.Keys(t)) {
			k := append(slices.Clip(key), name)
			set, ok := fields[name]
			if !ok {
				return bad(k, t[name], fmt.Errorf("unknown key (want %s)", want))
			}
			if err := set(t[name]); err != nil {
				return bad(k, t[name], err)
			}
			later := func(err error) error { return bad(k, t[name], err) }
			switch name {
			case "output_dir":
				l.outputDirErr = later
			case "storage":
				l.storageErr = later
			}
		}
		return nil
	}
	// Below a table that is not one, the next are nil: the first error is
	// the one to report.
	section := toml.Key{"prompt", "offload"}
	prompt, errPrompt := table(doc, section[:1])
	offload, errOffload := table(prompt, section)
	tools, errTools := table(offload, append(section, "tools"))
	if err := cmp.Or(errPrompt, errOffload, errTools); err != nil {
		return err
	}
	delete(offload, "tools")
	want := "enabled, threshold_tokens, ttl_seconds, output_dir, profile, client_dir, preview_records, storage, redact, redact_patterns or tools"
	if err := read(offload, section, l.fields(), want); err != nil {
		return err
	}
	if _, ok := offload["storage"]; ok {
		l.storageFrom = "config file " + path + ": prompt.offload.storage"
	}
	for _, name := range slices.Sorted(maps.Keys(tools)) {
		key := toml.Key{"prompt", "offload", "tools", name}
		t, err := table(tools, key)
		if err != nil {
			return err
		}
		var opts Options
		if err := read(t, key, toolFields(&opts), "enabled, threshold_tokens, profile, always, redact or redact_patterns"); err != nil {
			return err
		}
		l.Tools[name] = opts
		if _, ok := t["profile"]; ok && opts.Profile == descriptor.ProfileFull {
			l.fullFrom[name] = "config file " + path + ": " + append(key, "profile").String()
		}
	}
	return nil
}

// maxConfigBytes bounds the size of the TOML file that LoadOptions reads:
// a configuration is a few lines, and a path such as /dev/zero, or a huge
// file given by mistake, would fill the memory.
const maxConfigBytes = 1 << 20

// readConfig returns the text of the file at path, refusing one of more
// than maxConfigBytes.
func readConfig(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	switch {
	case err != nil:
		return "", err
	case len(b) > maxConfigBytes:
		return "", fmt.Errorf("larger than %d MiB, the most a configuration may have", maxConfigBytes>>20)
	}
	return string(b), nil
}

// readEnv reads the variables of the keys of fields, and __ALWAYS, that
// lookup reports set and not empty, after refusing the first variable in
// name order that environ lists but that names no key.
func (l *layer) readEnv(prefix string, environ func() []string, lookup func(string) (string, bool)) error {
	fields := l.fields()
	fields["always"] = func(v any) error {
		names, err := toolList(string(v.(envText)))
		for _, name := range names {
			t := l.Tools[name]
			t.Always = true
			l.Tools[name] = t
		}
		return err
	}
	keys := slices.Sorted(maps.Keys(fields))
	known := make([]string, len(keys))
	for i, k := range keys {
		known[i] = prefix + envSection + strings.ToUpper(k)
	}
	var unknown []string
	for _, kv := range environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, prefix+envSection) || slices.Contains(known, name) {
			continue
		}
		if v, ok := lookup(name); ok && v != "" {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		name := slices.Min(unknown)
		v, _ := lookup(name)
		return fmt.Errorf("lro: environment %s=%q: unknown variable (want %s): %w",
			name, redact.URL(v), strings.Join(known, ", "), ErrInvalidOption)
	}
	for i, k := range keys {
		v, ok := lookup(known[i])
		if !ok || v == "" {
			continue
		}
		bad := func(err error) error {
			return fmt.Errorf("lro: environment %s=%q: %s: %w", known[i], redact.URL(v), err, ErrInvalidOption)
		}
		if err := fields[k](envText(v)); err != nil {
			return bad(err)
		}
		switch k {
		case "output_dir":
			l.outputDirErr = bad
		case "storage":
			l.storageErr = bad
		}
		if k == "storage" {
			l.storageFrom = "environment " + known[i]
		}
	}
	return nil
}

// envText is the value of an environment variable, which boolean and
// integer parse as text; in the file, true and "true" differ.
type envText string

// boolean returns v as a boolean.
func boolean(v any) (bool, error) {
	if t, ok := v.(envText); ok {
		if b, err := strconv.ParseBool(strings.TrimSpace(string(t))); err == nil {
			v = b
		}
	}
	b, ok := v.(bool)
	if !ok {
		return false, errors.New("not a boolean (want true or false)")
	}
	return b, nil
}

// disabled returns the opposite of the boolean v, for an "enabled" key.
func disabled(v any) (bool, error) {
	b, err := boolean(v)
	return !b, err
}

// integer returns v as an integer in 1..maxN.
func integer(v any, maxN int64) (int64, error) {
	if t, ok := v.(envText); ok {
		if n, err := strconv.ParseInt(strings.TrimSpace(string(t)), 10, 64); err == nil {
			v = n
		}
	}
	n, ok := v.(int64)
	switch {
	case !ok:
		return 0, errors.New("not an integer")
	case n < 1 || n > maxN:
		return 0, fmt.Errorf("out of range 1..%d", maxN)
	}
	return n, nil
}

// threshold returns v as a threshold, a u32 that is not zero (the default).
func threshold(v any) (int, error) {
	n, err := integer(v, math.MaxUint32)
	return int(n), err
}

// previewRecords returns v, a number of records from 0 to 16, as
// [Options.PreviewRecords]: 0, none, is -1.
func previewRecords(v any) (int, error) {
	if t, ok := v.(envText); ok && strings.TrimSpace(string(t)) == "0" || v == int64(0) {
		return -1, nil
	}
	n, err := integer(v, offload.MaxPreview)
	if err != nil {
		return 0, fmt.Errorf("not an integer from 0 (none) to %d", offload.MaxPreview)
	}
	return int(n), nil
}

// ttlSeconds returns v, a number of seconds, as a TTL that fits a
// time.Duration.
func ttlSeconds(v any) (time.Duration, error) {
	n, err := integer(v, math.MaxInt64/int64(time.Second))
	return time.Duration(n) * time.Second, err
}

// text returns v as a string.
func text(v any) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case envText:
		return string(v), nil
	}
	return "", errors.New("not a string")
}

// profileNames are the names of the profiles in a configuration, by value.
var profileNames = [...]string{"full", "no_recipes", "no_schema", "bare_pointer"}

// profileName returns the name of p in a configuration.
func profileName(p descriptor.Profile) string {
	if validProfile(p) {
		return profileNames[p]
	}
	return fmt.Sprintf("Profile(%d)", int(p))
}

// wantProfile lists the profiles, for error messages.
const wantProfile = "(want full, no_recipes, no_schema or bare_pointer)"

// profile returns v as the name of a profile.
func profile(v any) (descriptor.Profile, error) {
	s, err := text(v)
	if err != nil {
		return 0, fmt.Errorf("%w %s", err, wantProfile)
	}
	// Case and the separators '-' and ' ' are ignored ("bare-pointer").
	name := strings.NewReplacer("-", "_", " ", "_").Replace(strings.ToLower(strings.TrimSpace(s)))
	if p := slices.Index(profileNames[:], name); p >= 0 {
		return descriptor.Profile(p), nil
	}
	return 0, errors.New("unknown profile " + wantProfile)
}

// outputDir accepts a path without NUL; [checkFolder] checks the folder
// it names once it is known to be used.
func outputDir(v any) (string, error) {
	s, err := text(v)
	switch {
	case err != nil || s == "":
		return s, err
	case strings.ContainsRune(s, 0):
		return "", errors.New("contains a NUL byte")
	}
	return s, nil
}

// checkFolder reports why the path s cannot be the output folder: it
// names no folder, nor a path that does not exist yet below a folder.
func checkFolder(s string) error {
	dir, err := filepath.Abs(s)
	if err == nil {
		err = checkOutputDir(dir)
	}
	return err
}

// clientDir accepts a path that [Options.ClientDir] accepts.
func clientDir(v any) (string, error) {
	s, err := text(v)
	if err != nil {
		return "", err
	}
	return s, checkClientDir(s)
}

// storage accepts a bucket URL, or a folder as outputDir accepts it, both
// checked when they are opened; "" for none.
func storage(v any) (string, error) {
	s, err := text(v)
	switch {
	case err != nil:
		return "", fmt.Errorf("%w (want a bucket URL such as s3://bucket?region=us-east-1, or a folder)", err)
	case strings.Contains(s, "://"):
		return s, nil
	}
	return outputDir(v)
}

// patterns returns v, an array of RE2 expressions (in the environment,
// one a line), checking that each compiles.
func patterns(v any) ([]string, error) {
	var ps []string
	switch v := v.(type) {
	case envText:
		ps = strings.Split(strings.TrimRight(string(v), "\n"), "\n")
	case []any:
		for _, p := range v {
			s, ok := p.(string)
			if !ok {
				return nil, errors.New("not an array of strings")
			}
			ps = append(ps, s)
		}
	default:
		return nil, errors.New("not an array of strings")
	}
	for _, p := range ps {
		if _, err := regexp.Compile(p); err != nil {
			return nil, err
		}
	}
	return ps, nil
}

// toolList parses a comma-separated list of tool names; space around each
// is ignored, and an empty name is refused.
func toolList(v string) ([]string, error) {
	names := strings.Split(v, ",")
	for i, name := range names {
		if names[i] = strings.TrimSpace(name); names[i] == "" {
			return nil, errors.New("an empty tool name (want a comma-separated list of tool names)")
		}
	}
	return names, nil
}

// tomlValue shows a decoded TOML value as written in the file, without
// the password of a URL.
func tomlValue(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(redact.URL(v))
	case map[string]any:
		return "{...}"
	}
	return fmt.Sprint(v)
}
