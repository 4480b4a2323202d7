package main

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/zircote/lro-go/lro"
)

// offloadConfig is the [prompt.offload] section of the specification's
// configuration:
//
//	[prompt.offload]
//	enabled = true           # Enable/disable LRO globally
//	threshold_tokens = 1600  # Token threshold for offloading
//	ttl_seconds = 3600       # File TTL (1 hour default)
//	output_dir = ""          # Empty = system temp dir
//
// Each key can be overridden by an environment variable named after it
// (ATLATL_PROMPT__OFFLOAD__ENABLED and so on).
type offloadConfig struct {
	Enabled         bool
	ThresholdTokens int
	TTLSeconds      int64
	OutputDir       string
}

// The configuration keys, their environment variables, and the bounds of the
// integer keys (u32 and u64 in the specification; zero would be meaningless).
const (
	keyEnabled   = "prompt.offload.enabled"
	keyThreshold = "prompt.offload.threshold_tokens"
	keyTTL       = "prompt.offload.ttl_seconds"
	keyOutputDir = "prompt.offload.output_dir"

	envEnabled   = "ATLATL_PROMPT__OFFLOAD__ENABLED"
	envThreshold = "ATLATL_PROMPT__OFFLOAD__THRESHOLD_TOKENS"
	envTTL       = "ATLATL_PROMPT__OFFLOAD__TTL_SECONDS"
	envOutputDir = "ATLATL_PROMPT__OFFLOAD__OUTPUT_DIR"

	maxThreshold  = math.MaxUint32
	maxTTLSeconds = math.MaxInt64 / int64(time.Second) // what a time.Duration holds
)

// defaultOffloadConfig returns the specification's defaults.
func defaultOffloadConfig() offloadConfig {
	return offloadConfig{
		Enabled:         true,
		ThresholdTokens: lro.DefaultThresholdTokens,
		TTLSeconds:      int64(lro.DefaultTTL / time.Second),
	}
}

// loadOffloadConfig returns the defaults, overridden by the [prompt.offload]
// section of the TOML file at path (when path is not empty), overridden by
// the environment variables that lookup finds set to a non-empty value. Any
// other section of the file is ignored; an unknown key of [prompt.offload],
// a value of the wrong type or out of range fails with an error naming the
// key (or variable) and the value.
func loadOffloadConfig(path string, lookup func(string) (string, bool)) (offloadConfig, error) {
	c := defaultOffloadConfig()
	if path != "" {
		if err := c.readTOML(path); err != nil {
			return c, err
		}
	}
	if err := c.readEnv(lookup); err != nil {
		return c, err
	}
	return c, nil
}

func (c *offloadConfig) readTOML(path string) error {
	var doc map[string]any
	if _, err := toml.DecodeFile(path, &doc); err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	bad := func(key string, v any, why string) error {
		return fmt.Errorf("config %s: %s = %#v: %s", path, key, v, why)
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
	for k, v := range table {
		key := "prompt.offload." + k
		switch key {
		case keyEnabled:
			b, ok := v.(bool)
			if !ok {
				return bad(key, v, "not a boolean")
			}
			c.Enabled = b
		case keyThreshold:
			n, ok := v.(int64)
			if !ok {
				return bad(key, v, "not an integer")
			}
			if n < 1 || n > maxThreshold {
				return bad(key, v, fmt.Sprintf("out of range 1..%d", maxThreshold))
			}
			c.ThresholdTokens = int(n)
		case keyTTL:
			n, ok := v.(int64)
			if !ok {
				return bad(key, v, "not an integer")
			}
			if n < 1 || n > maxTTLSeconds {
				return bad(key, v, fmt.Sprintf("out of range 1..%d", maxTTLSeconds))
			}
			c.TTLSeconds = n
		case keyOutputDir:
			s, ok := v.(string)
			if !ok {
				return bad(key, v, "not a string")
			}
			c.OutputDir = s
		default:
			return bad(key, v, "unknown key (want enabled, threshold_tokens, ttl_seconds or output_dir)")
		}
	}
	return nil
}

func (c *offloadConfig) readEnv(lookup func(string) (string, bool)) error {
	get := func(name string) (string, bool) {
		v, ok := lookup(name)
		return v, ok && v != ""
	}
	bad := func(name, v string, why string) error {
		return fmt.Errorf("environment %s=%q: %s", name, v, why)
	}
	if v, ok := get(envEnabled); ok {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return bad(envEnabled, v, "not a boolean (want true or false)")
		}
		c.Enabled = b
	}
	if v, ok := get(envThreshold); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 || n > maxThreshold {
			return bad(envThreshold, v, fmt.Sprintf("not an integer in 1..%d", maxThreshold))
		}
		c.ThresholdTokens = int(n)
	}
	if v, ok := get(envTTL); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 || n > maxTTLSeconds {
			return bad(envTTL, v, fmt.Sprintf("not an integer in 1..%d", maxTTLSeconds))
		}
		c.TTLSeconds = n
	}
	if v, ok := get(envOutputDir); ok {
		c.OutputDir = v
	}
	return nil
}

// options returns the offloading options of c.
func (c offloadConfig) options() *lro.Options {
	return &lro.Options{
		Disabled:        !c.Enabled,
		ThresholdTokens: c.ThresholdTokens,
		TTL:             time.Duration(c.TTLSeconds) * time.Second,
		OutputDir:       c.OutputDir,
	}
}
