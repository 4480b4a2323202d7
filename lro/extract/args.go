package extract

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
)

// args are the arguments of one call, each left undecoded until asked for.
type args map[string]json.RawMessage

// parseArgs decodes the arguments object of a call and refuses names the
// tool does not take.
func parseArgs(tool string, raw json.RawMessage, allowed ...string) (args, error) {
	a := args{}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return a, nil
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, errorf("%s: the arguments must be a JSON object: %v", tool, err)
	}
	for name := range a {
		if !slices.Contains(allowed, name) {
			return nil, errorf("%s: unknown argument %q (the arguments are %s)", tool, name, strings.Join(allowed, ", "))
		}
	}
	return a, nil
}

// present reports whether name was given with a value other than null.
func (a args) present(name string) bool {
	v, ok := a[name]
	return ok && string(bytes.TrimSpace(v)) != "null"
}

func (a args) str(name string) (string, error) {
	if !a.present(name) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(a[name], &s); err != nil {
		return "", errorf("%s must be a string", name)
	}
	return s, nil
}

func (a args) boolean(name string) (bool, error) {
	if !a.present(name) {
		return false, nil
	}
	var b bool
	if err := json.Unmarshal(a[name], &b); err != nil {
		return false, errorf("%s must be true or false", name)
	}
	return b, nil
}

// integer decodes name as an integer from lo to hi, or returns def when it
// is absent or null.
func (a args) integer(name string, def, lo, hi int) (int, error) {
	if !a.present(name) {
		return def, nil
	}
	var f float64
	if err := json.Unmarshal(a[name], &f); err != nil || f != math.Trunc(f) || f < float64(lo) || f > float64(hi) {
		if hi == math.MaxInt {
			return 0, errorf("%s must be an integer of at least %d, not %s", name, lo, a[name])
		}
		return 0, errorf("%s must be an integer from %d to %d, not %s", name, lo, hi, a[name])
	}
	return int(f), nil
}

// object decodes name as a JSON object, keeping its values undecoded.
func (a args) object(name string) (map[string]json.RawMessage, error) {
	if !a.present(name) {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(a[name], &m); err != nil {
		return nil, errorf("%s must be a JSON object", name)
	}
	return m, nil
}
