package lro

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/zircote/lro-go/internal/expiry"
	"github.com/zircote/lro-go/lro/descriptor"
	"github.com/zircote/lro-go/lro/store"
)

// DefaultEnvPrefix is the product part of the environment variables that
// [LoadOptions] reads, as in ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS.
const DefaultEnvPrefix = "ATLATL"

// ErrInvalidConfig is wrapped by the errors of [LoadOptions] for a value in
// the TOML file or the environment that is of the wrong type, out of range or
// unknown, and for an unknown key or variable. The message names the key (or
// variable) and the value.
var ErrInvalidConfig = errors.New("lro: invalid configuration")

// Sources say where [LoadOptions] reads configuration besides code: the
// specification's TOML file and environment variables. A nil *Sources reads
// the environment only.
type Sources struct {
	// File is the path of a TOML file whose [prompt.offload] section is
	// read; its other sections are ignored. If empty, no file is read.
	File string

	// EnvPrefix is the product part of the environment variables'
	// names, {EnvPrefix}_PROMPT__OFFLOAD__{KEY}. If empty, defaults to
	// [DefaultEnvPrefix].
	EnvPrefix string

	// LookupEnv looks up an environment variable. If nil, defaults to
	// [os.LookupEnv]. Tests pass a map's lookup here.
	LookupEnv func(key string) (string, bool)

	// Environ lists the environment, as "NAME=value" strings like those of
	// [os.Environ], so that LoadOptions can refuse a variable whose name
	// starts with {EnvPrefix}_PROMPT__OFFLOAD__ but ends in no key it knows
	// (a typo such as ATLATL_PROMPT__OFFLOAD__THRESHOLD, which would
	// otherwise be silently ignored). Only the names are used: a listed
	// variable is refused only if LookupEnv also reports it set, and not
	// empty, so the variables checked are always those LookupEnv sees.
	// If nil, defaults to [os.Environ]. A LookupEnv that reads the process
	// environment, such as os.LookupEnv itself, thus gets the check without
	// an Environ; a LookupEnv over a map sees none of the process's
	// variables, and gets it when Environ lists the map's variables too.
	Environ func() []string
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
	profile   *Profile
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
//  2. the [prompt.offload] section of the TOML file src.File;
//  3. the environment variables {EnvPrefix}_PROMPT__OFFLOAD__ENABLED,
//     __THRESHOLD_TOKENS, __TTL_SECONDS, __OUTPUT_DIR, __PROFILE,
//     __CLIENT_DIR, __STORAGE and __ALWAYS, a comma-separated list of the
//     tools whose results are always offloaded (a variable set to the empty string
//     counts as unset; any other variable whose name starts with
//     {EnvPrefix}_PROMPT__OFFLOAD__ is refused, see [Sources.Environ]);
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
// prefix, TTL, clock and Observer in effect, and sets [Options.Store]: the caller
// closes it (opts.Store.Close()) after the server's last use. A bucket URL
// needs the imports that store.Open names (package
// [github.com/zircote/lro-go/lro/store/blobstore] and the URL's driver,
// such as gocloud.dev/blob/s3blob); credentials come from the driver's
// usual sources, not from the URL. An explicit Store wins over storage,
// which is then not opened; its TTL is the one in effect unless explicit
// sets one.
//
// Since a zero field of explicit means "not set", explicit cannot turn
// offloading back on (Disabled is false) or force [ProfileFull] over a file or
// environment that chose otherwise; leave those to the file and environment.
// explicit.Tools entries override the file's entry of the same tool field
// by field.
//
// LoadOptions fails, naming the key or variable and the value, for a value of
// the wrong type (enabled = "maybe"), a threshold or TTL that is zero,
// negative or too large, an output_dir that is not a folder or can never be
// one (its nearest existing ancestor is not a folder, as in /etc/passwd/sub),
// an unknown profile, an unknown key in [prompt.offload], an unknown
// variable under {EnvPrefix}_PROMPT__OFFLOAD__, or a storage that store.Open
// cannot open (a bucket URL of a scheme without a driver, say; the message
// names the key or variable and never holds a URL's password); the errors
// wrap [ErrInvalidConfig]. It also fails for a file that cannot be read or
// parsed, and for options that [Options.Validate] rejects (an output_dir
// that is not the storage's folder, say). Nothing invalid is ever replaced
// by a default.
func LoadOptions(explicit *Options, src *Sources) (*Options, error) {
	var s Sources
	if src != nil {
		s = *src
	}
	if s.EnvPrefix == "" {
		s.EnvPrefix = DefaultEnvPrefix
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
	}
	set.fill(&out)
	if out.ThresholdTokens == 0 {
		out.ThresholdTokens = DefaultThresholdTokens
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
	st, err := store.Open(context.Background(), *set.storage, &store.Options{Prefix: out.Prefix, TTL: out.TTL, Now: out.Now, Observer: out.Observer})
	if err != nil {
		if errors.Is(err, store.ErrInvalidOption) {
			return nil, fmt.Errorf("lro: %s: %w: %w", set.storageFrom, err, ErrInvalidConfig)
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
	if o.Profile == ProfileFull && s.profile != nil {
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

// readTOML reads the [prompt.offload] section of the file at path.
func (s *settings) readTOML(path string) error {
	var doc map[string]any
	if _, err := toml.DecodeFile(path, &doc); err != nil {
		return fmt.Errorf("lro: config file %s: %w", path, err)
	}
	bad := func(key string, v any, why string) error {
		return fmt.Errorf("lro: config file %s: %s = %s: %s: %w", path, key, tomlValue(v), why, ErrInvalidConfig)
	}
	prompt, ok := doc["prompt"]
	if !ok {
		return nil
	}
	promptTable, ok := prompt.(map[string]any)
	if !ok {
		return bad("prompt", prompt, "not a table")
	}
	offload, ok := promptTable["offload"]
	if !ok {
		return nil
	}
	table, ok := offload.(map[string]any)
	if !ok {
		return bad("prompt.offload", offload, "not a table")
	}
	for _, k := range sortedKeys(table) {
		v, key := table[k], "prompt.offload."+k
		var err error
		switch k {
		case keyEnabled:
			s.enabled, err = tomlBool(v)
		case keyThreshold:
			s.threshold, err = tomlThreshold(v)
		case keyTTL:
			var n *int64
			n, err = tomlInt(v, 1, maxTTLSeconds)
			if err == nil {
				ttl := time.Duration(*n) * time.Second
				s.ttl = &ttl
			}
		case keyOutputDir:
			s.outputDir, err = tomlOutputDir(v)
		case keyProfile:
			s.profile, err = tomlProfile(v)
		case keyClientDir:
			s.clientDir, err = tomlClientDir(v)
		case keyStorage:
			s.storage, err = tomlStorage(v)
			s.storageFrom = "config file " + path + ": " + key
		case keyTools:
			tools, ok := v.(map[string]any)
			if !ok {
				return bad(key, v, "not a table")
			}
			if err := s.readTools(tools, bad); err != nil {
				return err
			}
			continue
		default:
			err = errors.New("unknown key (want enabled, threshold_tokens, ttl_seconds, output_dir, profile, client_dir, storage or tools)")
		}
		if err != nil {
			return bad(key, v, err.Error())
		}
	}
	return nil
}

// readTools reads the per-tool tables of [prompt.offload.tools].
func (s *settings) readTools(tools map[string]any, bad func(string, any, string) error) error {
	s.tools = make(map[string]ToolOptions, len(tools))
	for _, name := range sortedKeys(tools) {
		prefix := "prompt.offload.tools." + tomlKey(name)
		table, ok := tools[name].(map[string]any)
		if !ok {
			return bad(prefix, tools[name], "not a table")
		}
		var t ToolOptions
		for _, k := range sortedKeys(table) {
			v := table[k]
			var err error
			switch k {
			case keyEnabled:
				var b *bool
				if b, err = tomlBool(v); err == nil {
					t.Disabled = !*b
				}
			case keyThreshold:
				var n *int
				if n, err = tomlThreshold(v); err == nil {
					t.ThresholdTokens = *n
				}
			case keyProfile:
				t.Profile, err = tomlProfile(v)
			case keyAlways:
				var b *bool
				if b, err = tomlBool(v); err == nil {
					t.Always = *b
				}
			default:
				err = errors.New("unknown key (want enabled, threshold_tokens, profile or always)")
			}
			if err != nil {
				return bad(prefix+"."+k, v, err.Error())
			}
		}
		s.tools[name] = t
	}
	return nil
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
		name, redact(v), strings.Join(known, ", "), ErrInvalidConfig)
}

// readEnv reads the environment variables of envKeys.
func (s *settings) readEnv(prefix string, lookup func(string) (string, bool)) error {
	name := func(key string) string { return prefix + envSection + strings.ToUpper(key) }
	for _, key := range envKeys {
		env := name(key)
		v, ok := lookup(env)
		if !ok || v == "" {
			continue
		}
		var err error
		switch key {
		case keyEnabled:
			b, perr := strconv.ParseBool(strings.TrimSpace(v))
			if perr != nil {
				err = errors.New("not a boolean (want true or false)")
			} else {
				s.enabled = &b
			}
		case keyThreshold:
			n, perr := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if perr != nil || n < 1 || n > maxThresholdTokens {
				err = fmt.Errorf("not an integer in 1..%d", int64(maxThresholdTokens))
			} else {
				t := int(n)
				s.threshold = &t
			}
		case keyTTL:
			n, perr := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if perr != nil || n < 1 || n > maxTTLSeconds {
				err = fmt.Errorf("not an integer number of seconds in 1..%d", maxTTLSeconds)
			} else {
				ttl := time.Duration(n) * time.Second
				s.ttl = &ttl
			}
		case keyOutputDir:
			s.outputDir, err = tomlOutputDir(v)
		case keyProfile:
			s.profile, err = tomlProfile(v)
		case keyClientDir:
			s.clientDir, err = tomlClientDir(v)
		case keyAlways:
			s.always, err = toolList(v)
		case keyStorage:
			s.storage, err = tomlStorage(v)
			s.storageFrom = "environment " + env
		}
		if err != nil {
			return fmt.Errorf("lro: environment %s=%q: %s: %w", env, redact(v), err, ErrInvalidConfig)
		}
	}
	return nil
}

func tomlBool(v any) (*bool, error) {
	b, ok := v.(bool)
	if !ok {
		return nil, errors.New("not a boolean (want true or false)")
	}
	return &b, nil
}

func tomlInt(v any, lo, hi int64) (*int64, error) {
	n, ok := v.(int64)
	if !ok {
		return nil, errors.New("not an integer")
	}
	if n < lo || n > hi {
		return nil, fmt.Errorf("out of range %d..%d", lo, hi)
	}
	return &n, nil
}

func tomlThreshold(v any) (*int, error) {
	n, err := tomlInt(v, 1, maxThresholdTokens)
	if err != nil {
		return nil, err
	}
	t := int(*n)
	return &t, nil
}

func tomlProfile(v any) (*Profile, error) {
	str, ok := v.(string)
	if !ok {
		return nil, errors.New("not a string (want full, no_recipes, no_schema or bare_pointer)")
	}
	p, err := descriptor.ParseProfile(str)
	if err != nil {
		return nil, errors.New("unknown profile (want full, no_recipes, no_schema or bare_pointer)")
	}
	return &p, nil
}

// tomlOutputDir accepts a string naming a folder, or a path that does not
// exist yet (it is created on the first offload) below a folder.
func tomlOutputDir(v any) (*string, error) {
	str, ok := v.(string)
	if !ok {
		return nil, errors.New("not a string")
	}
	if strings.ContainsRune(str, 0) {
		return nil, errors.New("contains a NUL byte")
	}
	if str != "" {
		dir, err := filepath.Abs(str)
		if err != nil {
			return nil, err
		}
		if err := checkOutputDir(dir); err != nil {
			return nil, err
		}
	}
	return &str, nil
}

// tomlStorage accepts a string for store.Open: a bucket URL, checked when
// it is opened, or a folder as tomlOutputDir accepts it. The empty string
// means no storage.
func tomlStorage(v any) (*string, error) {
	str, ok := v.(string)
	if !ok {
		return nil, errors.New("not a string (want a bucket URL such as s3://bucket?region=us-east-1, or a folder)")
	}
	if str == "" {
		return nil, nil
	}
	if strings.Contains(str, "://") {
		return &str, nil
	}
	return tomlOutputDir(str)
}

// tomlClientDir accepts a string that [Options.ClientDir] accepts.
func tomlClientDir(v any) (*string, error) {
	str, ok := v.(string)
	if !ok {
		return nil, errors.New("not a string")
	}
	if err := checkClientDir(str); err != nil {
		return nil, err
	}
	return &str, nil
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

// tomlKey quotes a table name that is not a bare TOML key.
func tomlKey(k string) string {
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return strconv.Quote(k)
		}
	}
	return k
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
