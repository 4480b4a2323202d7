package extract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// args are the arguments of one call, each left undecoded until asked for.
type args map[string]json.RawMessage

// parseArgs decodes the arguments of a call, refusing unknown names.
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

func (a args) str(name string) (string, error) { return decodeArg[string](a, name, "a string") }

func (a args) boolean(name string) (bool, error) { return decodeArg[bool](a, name, "true or false") }

// object decodes name as a JSON object, keeping its values undecoded.
func (a args) object(name string) (map[string]json.RawMessage, error) {
	return decodeArg[map[string]json.RawMessage](a, name, "a JSON object")
}

// decodeArg decodes name as a T, or the zero T when it is absent or null.
func decodeArg[T any](a args, name, what string) (T, error) {
	var v T
	if a.present(name) && json.Unmarshal(a[name], &v) != nil {
		var zero T
		return zero, errorf("%s must be %s", name, what)
	}
	return v, nil
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
	if f == float64(hi) {
		// math.MaxInt, written as itself, is 2^63 as a float64, which int
		// would turn into a negative.
		return hi, nil
	}
	return int(f), nil
}

// ref is how a call names its file: by file_path or handle, and its value.
type ref struct{ arg, value string }

// String is the argument and its value, for messages: handle "...".
func (r ref) String() string { return fmt.Sprintf("%s %q", r.arg, r.value) }

// file reads the one of file_path and handle that names the call's file.
func (a args) file() (ref, error) {
	path, handle := a.present(argFilePath), a.present(argHandle)
	switch {
	case path && handle:
		return ref{}, errorf("give either handle or file_path, not both (both name the same result)")
	case !path && !handle:
		return ref{}, errorf("give handle (the handle of the offload descriptor) or file_path (its file_path)")
	}
	r := ref{arg: argFilePath}
	if handle {
		r.arg = argHandle
	}
	v, err := a.str(r.arg)
	if err != nil {
		return ref{}, err
	}
	r.value = v
	switch {
	case v == "":
		return ref{}, errorf("%s is empty: give the %s of an offload descriptor", r.arg, r.arg)
	case strings.IndexByte(v, 0) >= 0:
		return ref{}, errorf("%s contains a NUL byte", r.arg)
	}
	return r, nil
}
