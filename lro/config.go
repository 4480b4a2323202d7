package lro

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/zircote/lro-go/internal/expiry"
	"github.com/zircote/lro-go/internal/testhook"
	"github.com/zircote/lro-go/lro/descriptor"
	"github.com/zircote/lro-go/lro/store"
)

// defaultEnvPrefix is the product part of the environment variables that
// [LoadOptions] reads, as in ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS.
const defaultEnvPrefix = "ATLATL"

// sources say where loadOptions reads configuration besides code: the
// TOML file, and the environment, ATLATL_PROMPT__OFFLOAD__* or with another
// prefix. LoadOptions reads the process environment; tests give a map. A
// variable is refused as unknown only if Environ lists it and LookupEnv
// reports it set and not empty. Zero fields mean the process's.
type sources struct {
	File      string
	EnvPrefix string
	LookupEnv func(key string) (string, bool)
	Environ   func() []string
}

// The keys of the [prompt.offload] section: the specification's four, and
// this library's profile and per-tool tables.
const (
	keyEnabled   = "enabled"
	keyThreshold = "threshold_tokens"
	keyTTL       = "ttl_seconds"
	keyOutputDir = "output_dir"
	keyProfile   = "profile"
	keyTools     = "tools"
	keyClientDir = "client_dir"
	keyAlways    = "always"
	keyStorage   = "storage"
)

// Bounds of the integer keys: the specification's threshold is a u32, and a
// TTL must fit a time.Duration. Zero would mean "the default" in Options, so
// it is refused rather than silently replaced.
const (
	maxThresholdTokens = math.MaxUint32
	maxTTLSeconds      = math.MaxInt64 / int64(time.Second)
)

// settings are the values read from the file and the environment; nil means
// not set.
type settings struct {
	enabled   *bool
	threshold *int
	ttl       *time.Duration
	outputDir *string
	profile   *descriptor.Profile
	clientDir *string
	tools     map[string]ToolOptions
	always    []string // tool names, from the environment
	storage   *string  // a bucket URL or a folder, for store.Open
	// storageFrom names where storage was read, for error messages:
	// the key of the file or the variable.
	storageFrom string
}

// LoadOptions returns the options of a server, read from four layers, each
// overriding the one before:
//
//  1. the specification's defaults (the zero value of every field);
//  2. the [prompt.offload] section of the TOML file at path file (none if
//     file is empty);
//  3. the environment variables ATLATL_PROMPT__OFFLOAD__ENABLED,
//     __THRESHOLD_TOKENS, __TTL_SECONDS, __OUTPUT_DIR, __PROFILE,
//     __CLIENT_DIR, __STORAGE and __ALWAYS, a comma-separated list of the
//     tools whose results are always offloaded (a variable set to the empty string
//     counts as unset; any other variable whose name starts with
//     ATLATL_PROMPT__OFFLOAD__ is refused, a typo such as
//     ATLATL_PROMPT__OFFLOAD__THRESHOLD that would otherwise be ignored);
//  4. the fields of explicit that are not zero (explicit may be nil).
//
// The result has ThresholdTokens and TTL set to the values in effect, the
// defaults included, so that a server can log them; every other field is as
// the layers left it.
//
// The file's section looks like this; every key is optional:
//
//	[prompt.offload]
//	enabled = true           # Enable/disable LRO globally
//	threshold_tokens = 1600  # Token threshold for offloading
//	ttl_seconds = 3600       # File TTL (1 hour default)
//	output_dir = ""          # Empty = system temp dir
//	profile = "full"         # full, no_recipes, no_schema or bare_pointer
//	client_dir = ""          # the output folder as the client sees it
//	storage = ""             # Empty = output_dir; or s3://bucket?region=...
//
//	[prompt.offload.tools.recall_memories]
//	threshold_tokens = 4000  # this tool only
//	profile = "bare_pointer"
//	enabled = false
//	always = false           # true: offload whatever the size
//
// When storage is set (a bucket URL, or the path of a folder) and
// explicit has no Store, LoadOptions opens it with [store.Open], with the
// prefix, TTL and Observer in effect, and sets [Options.Store]: the caller
// closes it (opts.Store.Close()) after the server's last use. A bucket URL
// needs the imports that store.Open names (package
// [github.com/zircote/lro-go/lro/store/blobstore] and the URL's driver,
// such as gocloud.dev/blob/s3blob); credentials come from the driver's
// usual sources, not from the URL. An explicit Store wins over storage,
// which is then not opened; its TTL is the one in effect unless explicit
// sets one.
//
// Since a zero field of explicit means "not set", explicit cannot turn
// offloading back on (Disabled is false) or force [descriptor.ProfileFull] over a file or
// environment that chose otherwise; leave those to the file and environment.
// explicit.Tools entries override the file's entry of the same tool field
// by field.
//
// LoadOptions fails, naming the key or variable and the value, for a value of
// the wrong type (enabled = "maybe"), a threshold or TTL that is zero,
// negative or too large, an output_dir that is not a folder or can never be
// one (its nearest existing ancestor is not a folder, as in /etc/passwd/sub),
// an unknown profile, an unknown key in [prompt.offload], an unknown
// variable under ATLATL_PROMPT__OFFLOAD__, or a storage that store.Open
// cannot open (a bucket URL of a scheme without a driver, say; the message
// names the key or variable and never holds a URL's password); the errors
// wrap [ErrInvalidOption]. It also fails for a file that cannot be read or
// parsed, and for options that [Options.Validate] rejects (an output_dir
// that is not the storage's folder, say). Nothing invalid is ever replaced
// by a default.
func LoadOptions(explicit *Options, file string) (*Options, error) {
	return loadOptions(explicit, &sources{File: file})
}

// loadOptions is LoadOptions with the sources of src.
func loadOptions(explicit *Options, src *sources) (*Options, error) {
	var s sources
	if src != nil {
		s = *src
	}
	if s.EnvPrefix == "" {
		s.EnvPrefix = defaultEnvPrefix
	}
	if s.LookupEnv == nil {
		s.LookupEnv = os.LookupEnv
	}
	if s.Environ == nil {
		s.Environ = os.Environ
	}
	var set settings
	if s.File != "" {
		if err := set.readTOML(s.File); err != nil {
			return nil, err
		}
	}
	if err := checkEnvNames(s.EnvPrefix, s.Environ, s.LookupEnv); err != nil {
		return nil, err
	}
	if err := set.readEnv(s.EnvPrefix, s.LookupEnv); err != nil {
		return nil, err
	}
	var out Options
	if explicit != nil {
		out = *explicit
		if h := testhook.Get(explicit); h.Now != nil || h.WrapWriter != nil {
			testhook.Set(&out, h)
		}
	}
	set.fill(&out)
	if out.ThresholdTokens == 0 {
		out.ThresholdTokens = defaultThresholdTokens
	}
	if out.TTL == 0 && out.Store != nil {
		out.TTL = out.Store.TTL()
	}
	if out.TTL == 0 {
		out.TTL = expiry.DefaultTTL
	}
	if err := out.Validate(); err != nil {
		return nil, err
	}
	if out.Store != nil || set.storage == nil {
		return &out, nil
	}
	// Opened last, once everything else is valid: nothing is opened for
	// options that are refused anyway.
	so := &store.Options{Prefix: out.Prefix, TTL: out.TTL, Observer: out.Observer}
	if now := testhook.Get(&out).Now; now != nil {
		testhook.Set(so, testhook.Hooks{Now: now})
	}
	st, err := store.Open(context.Background(), *set.storage, so)
	if err != nil {
		if errors.Is(err, store.ErrInvalidOption) {
			return nil, fmt.Errorf("lro: %s: %w: %w", set.storageFrom, err, ErrInvalidOption)
		}
		return nil, fmt.Errorf("lro: %s: %w", set.storageFrom, err)
	}
	out.Store = st
	if err := out.Validate(); err != nil {
		st.Close()
		return nil, fmt.Errorf("lro: %s: %w", set.storageFrom, err)
	}
	return &out, nil
}

// fill sets the fields of o that are zero from s.
func (s *settings) fill(o *Options) {
	if !o.Disabled && s.enabled != nil {
		o.Disabled = !*s.enabled
	}
	if o.ThresholdTokens == 0 && s.threshold != nil {
		o.ThresholdTokens = *s.threshold
	}
	if o.TTL == 0 && s.ttl != nil {
		o.TTL = *s.ttl
	}
	if o.OutputDir == "" && s.outputDir != nil {
		o.OutputDir = *s.outputDir
	}
	if o.Profile == descriptor.ProfileFull && s.profile != nil {
		o.Profile = *s.profile
	}
	if o.ClientDir == "" && s.clientDir != nil {
		o.ClientDir = *s.clientDir
	}
	if len(s.tools) == 0 && len(s.always) == 0 {
		return
	}
	tools := make(map[string]ToolOptions, len(s.tools)+len(s.always)+len(o.Tools))
	for name, t := range s.tools {
		tools[name] = t
	}
	for _, name := range s.always {
		t := tools[name]
		t.Always = true
		tools[name] = t
	}
	for name, e := range o.Tools {
		t := tools[name]
		t.Disabled = t.Disabled || e.Disabled
		t.Always = t.Always || e.Always
		if e.ThresholdTokens != 0 {
			t.ThresholdTokens = e.ThresholdTokens
		}
		if e.Profile != nil {
			t.Profile = e.Profile
		}
		tools[name] = t
	}
	o.Tools = tools
}

// offloadFile is the [prompt.offload] section of the TOML file. Its values
// are decoded as written, whatever their type, so that a value of the wrong
// type is refused naming the key; MetaData.Undecoded gives the unknown keys.
type offloadFile struct {
	Enabled   value[bool]         `toml:"enabled"`
	Threshold value[int64]        `toml:"threshold_tokens"`
	TTL       value[int64]        `toml:"ttl_seconds"`
	OutputDir value[string]       `toml:"output_dir"`
	Profile   value[string]       `toml:"profile"`
	ClientDir value[string]       `toml:"client_dir"`
	Storage   value[string]       `toml:"storage"`
	Tools     map[string]toolFile `toml:"tools"`
}

// toolFile is one table of [prompt.offload.tools].
type toolFile struct {
	Enabled   value[bool]   `toml:"enabled"`
	Threshold value[int64]  `toml:"threshold_tokens"`
	Profile   value[string] `toml:"profile"`
	Always    value[bool]   `toml:"always"`
}

// value is the value of one key: v when it has type T, raw as decoded
// whatever its type, both nil when the key is absent.
type value[T bool | int64 | string] struct {
	v   *T
	raw any
}

// UnmarshalTOML keeps data; it never fails, so that [value.get] can say
// which key is wrong.
func (x *value[T]) UnmarshalTOML(data any) error {
	x.raw = data
	if v, ok := data.(T); ok {
		x.v = &v
	}
	return nil
}

// setEnv sets x from the environment variable's value v: a boolean or an
// integer in text, or a string.
func (x *value[T]) setEnv(v string) {
	var data any = v
	switch any(x.v).(type) {
	case *bool:
		if b, err := strconv.ParseBool(strings.TrimSpace(v)); err == nil {
			data = b
		}
	case *int64:
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
			data = n
		}
	}
	x.UnmarshalTOML(data)
}

// get returns the value, nil when absent, or an error saying the type
// wanted.
func (x *value[T]) get() (*T, error) {
	if x.raw == nil || x.v != nil {
		return x.v, nil
	}
	switch any(x.v).(type) {
	case *bool:
		return nil, errors.New("not a boolean (want true or false)")
	case *int64:
		return nil, errors.New("not an integer")
	}
	return nil, errors.New("not a string")
}

// readTOML reads the [prompt.offload] section of the file at path.
func (s *settings) readTOML(path string) error {
	var doc struct {
		Prompt struct {
			Offload offloadFile `toml:"offload"`
		} `toml:"prompt"`
	}
	if err := checkTables(path); err != nil {
		return err
	}
	md, err := toml.DecodeFile(path, &doc)
	if err != nil {
		return fmt.Errorf("lro: config file %s: %w", path, err)
	}
	bad := func(key string, v any, err error) error {
		return fmt.Errorf("lro: config file %s: %s = %s: %s: %w", path, key, tomlValue(v), err, ErrInvalidOption)
	}
	// The first unknown key of the section, in name order.
	var unknown []toml.Key
	for _, k := range md.Undecoded() {
		if len(k) > 2 && k[0] == "prompt" && k[1] == "offload" {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		k := slices.MinFunc(unknown, func(a, b toml.Key) int { return slices.Compare(a, b) })
		want := "enabled, threshold_tokens, ttl_seconds, output_dir, profile, client_dir, storage or tools"
		if len(k) > 4 && k[2] == keyTools {
			k, want = k[:5], "enabled, threshold_tokens, profile or always"
		} else {
			k = k[:3]
		}
		return bad(k.String(), rawValue(path, k), fmt.Errorf("unknown key (want %s)", want))
	}
	f := doc.Prompt.Offload
	key := func(k string) string { return "prompt.offload." + k }
	if err := s.take(&f, func(k string, v any, err error) error { return bad(key(k), v, err) }); err != nil {
		return err
	}
	if f.Storage.raw != nil {
		s.storageFrom = "config file " + path + ": " + key(keyStorage)
	}
	if f.Tools == nil {
		return nil
	}
	s.tools = make(map[string]ToolOptions, len(f.Tools))
	for _, name := range slices.Sorted(maps.Keys(f.Tools)) {
		tf := f.Tools[name]
		key := func(k string) string { return toml.Key{"prompt", "offload", keyTools, name, k}.String() }
		var t ToolOptions
		enabled, err := tf.Enabled.get()
		if err != nil {
			return bad(key(keyEnabled), tf.Enabled.raw, err)
		}
		t.Disabled = enabled != nil && !*enabled
		n, err := threshold(&tf.Threshold)
		if err != nil {
			return bad(key(keyThreshold), tf.Threshold.raw, err)
		}
		if n != nil {
			t.ThresholdTokens = *n
		}
		if t.Profile, err = profileValue(&tf.Profile); err != nil {
			return bad(key(keyProfile), tf.Profile.raw, err)
		}
		always, err := tf.Always.get()
		if err != nil {
			return bad(key(keyAlways), tf.Always.raw, err)
		}
		t.Always = always != nil && *always
		s.tools[name] = t
	}
	return nil
}

// take sets the settings of the values of f that are set, or returns the
// error that bad makes of the first invalid one, for its key.
func (s *settings) take(f *offloadFile, bad func(key string, v any, err error) error) error {
	for _, c := range []struct {
		key string
		raw any
		err error
	}{
		{keyEnabled, f.Enabled.raw, into(&s.enabled)(f.Enabled.get())},
		{keyThreshold, f.Threshold.raw, into(&s.threshold)(threshold(&f.Threshold))},
		{keyTTL, f.TTL.raw, into(&s.ttl)(ttlSeconds(&f.TTL))},
		{keyOutputDir, f.OutputDir.raw, into(&s.outputDir)(then(&f.OutputDir, checkOutputDirValue))},
		{keyProfile, f.Profile.raw, into(&s.profile)(profileValue(&f.Profile))},
		{keyClientDir, f.ClientDir.raw, into(&s.clientDir)(then(&f.ClientDir, checkClientDirValue))},
		{keyStorage, f.Storage.raw, into(&s.storage)(storageValue(&f.Storage))},
	} {
		if c.err != nil {
			return bad(c.key, c.raw, c.err)
		}
	}
	return nil
}

// into returns a function that sets *dst to v when v is set and err nil,
// and returns err.
func into[T any](dst **T) func(v *T, err error) error {
	return func(v *T, err error) error {
		if v != nil && err == nil {
			*dst = v
		}
		return err
	}
}

// storageValue returns x as a storage, nil for none.
func storageValue(x *value[string]) (*string, error) {
	v, err := then(x, checkStorage)
	if err != nil && x.v == nil {
		err = fmt.Errorf("%w (want a bucket URL such as s3://bucket?region=us-east-1, or a folder)", err)
	}
	return v, err
}

// checkTables refuses a file that does not parse, or whose prompt,
// prompt.offload, prompt.offload.tools or one of its tables is not a table
// (naming the first in name order), which a struct cannot hold.
func checkTables(path string) error {
	var doc map[string]any
	if _, perr := toml.DecodeFile(path, &doc); perr != nil {
		return fmt.Errorf("lro: config file %s: %w", path, perr)
	}
	check := func(key toml.Key, v any) (map[string]any, error) {
		if v == nil {
			return nil, nil
		}
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("lro: config file %s: %s = %s: not a table: %w", path, key, tomlValue(v), ErrInvalidOption)
		}
		return m, nil
	}
	prompt, cerr := check(toml.Key{"prompt"}, doc["prompt"])
	if cerr != nil {
		return cerr
	}
	offload, cerr := check(toml.Key{"prompt", "offload"}, prompt["offload"])
	if cerr != nil {
		return cerr
	}
	tools, cerr := check(toml.Key{"prompt", "offload", keyTools}, offload[keyTools])
	if cerr != nil {
		return cerr
	}
	for _, name := range slices.Sorted(maps.Keys(tools)) {
		if _, cerr := check(toml.Key{"prompt", "offload", keyTools, name}, tools[name]); cerr != nil {
			return cerr
		}
	}
	return nil
}

// then returns x's value once check accepts it.
func then(x *value[string], check func(string) (*string, error)) (*string, error) {
	v, err := x.get()
	if v == nil || err != nil {
		return nil, err
	}
	return check(*v)
}

// threshold returns x as a threshold, in 1..u32.
func threshold(x *value[int64]) (*int, error) {
	n, err := x.get()
	if n == nil || err != nil {
		return nil, err
	}
	if *n < 1 || *n > maxThresholdTokens {
		return nil, fmt.Errorf("out of range 1..%d", int64(maxThresholdTokens))
	}
	t := int(*n)
	return &t, nil
}

// ttlSeconds returns x, a number of seconds, as a TTL.
func ttlSeconds(x *value[int64]) (*time.Duration, error) {
	n, err := x.get()
	if n == nil || err != nil {
		return nil, err
	}
	if *n < 1 || *n > maxTTLSeconds {
		return nil, fmt.Errorf("out of range 1..%d", maxTTLSeconds)
	}
	ttl := time.Duration(*n) * time.Second
	return &ttl, nil
}

// profileValue returns x as a profile.
func profileValue(x *value[string]) (*descriptor.Profile, error) {
	v, err := x.get()
	if err != nil {
		return nil, fmt.Errorf("%w %s", err, profileNames)
	}
	if v == nil {
		return nil, nil
	}
	return parseProfile(*v)
}

// envKeys are the keys that have an environment variable: the
// specification's four, the profile, the client's folder, the tools always
// offloaded and the storage.
var envKeys = []string{keyEnabled, keyThreshold, keyTTL, keyOutputDir, keyProfile, keyClientDir, keyAlways, keyStorage}

// envSection is the part of a variable's name between the product prefix
// and the key, as in ATLATL_PROMPT__OFFLOAD__ENABLED.
const envSection = "_PROMPT__OFFLOAD__"

// checkEnvNames refuses the first variable, in name order, that environ
// lists and lookup reports set and not empty, whose name starts with
// {prefix}_PROMPT__OFFLOAD__ but ends in none of envKeys.
func checkEnvNames(prefix string, environ func() []string, lookup func(string) (string, bool)) error {
	section := prefix + envSection
	known := make([]string, len(envKeys))
	for i, k := range envKeys {
		known[i] = section + strings.ToUpper(k)
	}
	var unknown []string
	for _, kv := range environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, section) || slices.Contains(known, name) {
			continue
		}
		if v, ok := lookup(name); ok && v != "" {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	name := slices.Min(unknown)
	v, _ := lookup(name)
	return fmt.Errorf("lro: environment %s=%q: unknown variable (want %s): %w",
		name, redact(v), strings.Join(known, ", "), ErrInvalidOption)
}

// readEnv reads the environment variables of envKeys.
func (s *settings) readEnv(prefix string, lookup func(string) (string, bool)) error {
	name := func(key string) string { return prefix + envSection + strings.ToUpper(key) }
	var f offloadFile
	fields := map[string]interface{ setEnv(string) }{keyEnabled: &f.Enabled, keyThreshold: &f.Threshold,
		keyTTL: &f.TTL, keyOutputDir: &f.OutputDir, keyProfile: &f.Profile, keyClientDir: &f.ClientDir, keyStorage: &f.Storage}
	vars := map[string]string{}
	for _, key := range envKeys {
		if v, ok := lookup(name(key)); ok && v != "" {
			vars[key] = v
			if field, ok := fields[key]; ok {
				field.setEnv(v)
			}
		}
	}
	bad := func(key string, _ any, err error) error {
		return fmt.Errorf("lro: environment %s=%q: %s: %w", name(key), redact(vars[key]), err, ErrInvalidOption)
	}
	if err := s.take(&f, bad); err != nil {
		return err
	}
	if f.Storage.raw != nil {
		s.storageFrom = "environment " + name(keyStorage)
	}
	if v, ok := vars[keyAlways]; ok {
		var err error
		if s.always, err = toolList(v); err != nil {
			return bad(keyAlways, v, err)
		}
	}
	return nil
}

// profileNames lists the profiles, for error messages.
const profileNames = "(want full, no_recipes, no_schema or bare_pointer)"

// parseProfile accepts the name of a profile.
func parseProfile(v string) (*descriptor.Profile, error) {
	p, err := descriptor.ParseProfile(v)
	if err != nil {
		return nil, errors.New("unknown profile " + profileNames)
	}
	return &p, nil
}

// checkOutputDirValue accepts a path naming a folder, or a path that does
// not exist yet (it is created on the first offload) below a folder.
func checkOutputDirValue(v string) (*string, error) {
	if strings.ContainsRune(v, 0) {
		return nil, errors.New("contains a NUL byte")
	}
	if v != "" {
		dir, err := filepath.Abs(v)
		if err != nil {
			return nil, err
		}
		if err := checkOutputDir(dir); err != nil {
			return nil, err
		}
	}
	return &v, nil
}

// checkStorage accepts a value for store.Open: a bucket URL, checked when
// it is opened, or a folder as checkOutputDirValue accepts it. The empty
// string means no storage.
func checkStorage(v string) (*string, error) {
	switch {
	case v == "":
		return nil, nil
	case strings.Contains(v, "://"):
		return &v, nil
	}
	return checkOutputDirValue(v)
}

// checkClientDirValue accepts a path that [Options.ClientDir] accepts.
func checkClientDirValue(v string) (*string, error) {
	if err := checkClientDir(v); err != nil {
		return nil, err
	}
	return &v, nil
}

// toolList parses a comma-separated list of tool names; space around each
// is ignored, and an empty name is refused.
func toolList(v string) ([]string, error) {
	var names []string
	for _, name := range strings.Split(v, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			return nil, errors.New("an empty tool name (want a comma-separated list of tool names)")
		}
		names = append(names, name)
	}
	return names, nil
}

// tomlValue shows a decoded TOML value as it would be written in the file,
// without the password of a URL.
func tomlValue(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(redact(v))
	case map[string]any:
		return "{...}"
	case nil:
		return "(absent)"
	}
	return fmt.Sprint(v)
}

// redact returns v, or, when v is a URL with a password (a mistyped
// storage key, say), v without it, for error messages.
func redact(v string) string {
	if !strings.Contains(v, "://") {
		return v
	}
	u, err := url.Parse(v)
	if err != nil {
		return "(a URL that does not parse)"
	}
	return u.Redacted()
}

// rawValue returns the value of key k in the TOML file at path, for the
// message of an unknown key.
func rawValue(path string, k toml.Key) any {
	var v any
	var doc map[string]any
	if _, err := toml.DecodeFile(path, &doc); err != nil {
		return nil
	}
	v = doc
	for _, part := range k {
		m, _ := v.(map[string]any)
		v = m[part]
	}
	return v
}
