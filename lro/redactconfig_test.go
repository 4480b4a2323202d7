package lro_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/zircote/lro-go/internal/spec"
	"github.com/zircote/lro-go/lro"
)

// TestLoadOptionsRedaction reads the redaction keys from the file, the
// environment and explicit options.
func TestLoadOptionsRedaction(t *testing.T) {
	const file = "[prompt.offload]\nredact = false\nredact_patterns = ['acme_[0-9a-f]{16}']\n" +
		"[prompt.offload.tools.dump]\nredact = false\n[prompt.offload.tools.env]\nredact_patterns = ['(?P<corp>corp-[0-9]{6})']\n"
	defaults := lro.Options{ThresholdTokens: lro.DefaultThresholdTokens, TTL: spec.DefaultTTL}
	with := func(f func(o *lro.Options)) lro.Options { o := defaults; f(&o); return o }
	tests := []struct {
		name     string
		file     string
		vars     map[string]string
		explicit *lro.Options
		want     lro.Options
	}{{
		name: "on by default",
		want: defaults,
	}, {
		name: "the file turns it off and adds patterns, for all and per tool",
		file: file,
		want: with(func(o *lro.Options) {
			o.DisableRedaction = true
			o.RedactPatterns = []string{"acme_[0-9a-f]{16}"}
			o.Tools = map[string]lro.Options{"dump": {DisableRedaction: true}, "env": {RedactPatterns: []string{"(?P<corp>corp-[0-9]{6})"}}}
		}),
	}, {
		name: "the environment, one pattern a line",
		vars: map[string]string{"ATLATL_PROMPT__OFFLOAD__REDACT": "false", "ATLATL_PROMPT__OFFLOAD__REDACT_PATTERNS": "a+b\nc,d\n"},
		want: with(func(o *lro.Options) { o.DisableRedaction = true; o.RedactPatterns = []string{"a+b", "c,d"} }),
	}, {
		name:     "explicit patterns win",
		file:     file,
		explicit: &lro.Options{RedactPatterns: []string{"x"}},
		want: with(func(o *lro.Options) {
			o.DisableRedaction = true
			o.RedactPatterns = []string{"x"}
			o.Tools = map[string]lro.Options{"dump": {DisableRedaction: true}, "env": {RedactPatterns: []string{"(?P<corp>corp-[0-9]{6})"}}}
		}),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := &lro.Sources{LookupEnv: env(tt.vars)}
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
	for _, bad := range []struct{ file, env string }{
		{file: "[prompt.offload]\nredact_patterns = ['(']\n"},
		{file: "[prompt.offload]\nredact_patterns = 'x'\n"},
		{file: "[prompt.offload]\nredact = 'no'\n"},
		{env: "("},
	} {
		src := &lro.Sources{LookupEnv: env(map[string]string{"ATLATL_PROMPT__OFFLOAD__REDACT_PATTERNS": bad.env})}
		if bad.file != "" {
			src.File = writeTOML(t, bad.file)
		}
		if _, err := lro.LoadOptionsFrom(nil, src); !errors.Is(err, lro.ErrInvalidOption) {
			t.Errorf("%q %q: err = %v, want ErrInvalidOption", bad.file, bad.env, err)
		}
	}
}
