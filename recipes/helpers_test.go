package recipes_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/itchyny/gojq"

	"github.com/zircote/lro-go/internal/testing/jqengines"
	"github.com/zircote/lro-go/recipes"
)

// TestMain stops the jq engines that the tests started.
func TestMain(m *testing.M) {
	code := m.Run()
	for _, e := range wasm.engines {
		e.Close()
	}
	os.Exit(code)
}

// wasm holds the jq releases of package jqengines (1.7.1, 1.8.2), started
// once for all the tests.
var wasm struct {
	once    sync.Once
	engines []*jqengines.Engine
	err     error
}

// engines returns the started jqengines, skipping the test when Node.js or
// the npm packages are missing, except under CI (CI set), where that is a
// failure.
func engines(t testing.TB) []*jqengines.Engine {
	t.Helper()
	wasm.once.Do(func() {
		for _, v := range jqengines.Versions {
			e, err := jqengines.Start(v)
			if err != nil {
				wasm.err = err
				return
			}
			wasm.engines = append(wasm.engines, e)
		}
	})
	if wasm.err != nil {
		if os.Getenv("CI") == "" && errors.Is(wasm.err, jqengines.ErrNotInstalled) {
			t.Skip(wasm.err)
		}
		t.Fatal(wasm.err)
	}
	return wasm.engines
}

// runWasm runs r with engine e on the records of the file at path (the
// lines after its header), as the shell command does with jq, and returns
// the outputs in the form of runJQ.
func runWasm(t testing.TB, e *jqengines.Engine, r recipes.Data, path string) []any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[i+1:]
	}
	res, err := e.Run(r.Args(), b)
	if err != nil {
		t.Fatal(err)
	}
	if res.ExitCode != 0 || res.Stderr != "" {
		t.Fatalf("recipe %d under jq %s: jq %q\nexit code %d, stderr: %s", r.Number, e.Version, r.Args(), res.ExitCode, res.Stderr)
	}
	if r.Raw {
		return lines(res.Stdout)
	}
	return decodeStream(t, []byte(res.Stdout))
}

// sameEverywhere checks that r gives the output got of jq 1.6 under gojq
// (in process, on records) and under every release of package jqengines
// (on the file at path).
func sameEverywhere(t *testing.T, r recipes.Data, path string, records []any, got []any) {
	t.Helper()
	if diff := cmp.Diff(got, runGojq(t, r, records), approx); diff != "" {
		t.Errorf("recipe %d %q: gojq differs from jq 1.6 (-jq +gojq):\n%s", r.Number, r.Description, diff)
	}
	for _, e := range engines(t) {
		if diff := cmp.Diff(got, runWasm(t, e, r, path), approx); diff != "" {
			t.Errorf("recipe %d %q: jq %s differs from jq 1.6 (-1.6 +%s):\n%s\nfilter: %s", r.Number, r.Description, e.Version, e.Version, diff, r.Filter)
		}
	}
}

// needJQ skips the test when the jq binary is missing, except under CI
// (CI set), where jq is installed and a missing binary is a failure.
func needJQ(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("jq"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("jq is required under CI: %v", err)
		}
		t.Skipf("jq not found: %v", err)
	}
}

// nastyDir returns a new directory whose path has a space, a single quote, a
// dollar sign and a backquote in it.
func nastyDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "dir with space and 'quote' $HOME `true`")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	return dir
}

// writeFile writes an offloaded file (header line, then one record per line)
// and returns its path.
func writeFile(t testing.TB, dir, detail string, records []any) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	header := map[string]any{
		"type": "lro_header", "operation": "recall", "query": nil, "count": len(records),
		"schema_version": "1.0", "timestamp": "2025-01-01T00:00:00Z", "estimated_tokens": 9999, "detail": detail,
	}
	if err := enc.Encode(header); err != nil {
		t.Fatal(err)
	}
	for _, r := range records {
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "atlatl-recall-01JABCDEF'$x.jsonl")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// sample returns the records as raw JSON, the way the library sees them.
func sample(t testing.TB, records []any) []json.RawMessage {
	t.Helper()
	out := make([]json.RawMessage, len(records))
	for i, r := range records {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = b
	}
	return out
}

// roundTrip returns records as encoding/json decodes them (numbers become
// float64), the form the oracles work on.
func roundTrip(t testing.TB, records []any) []any {
	t.Helper()
	b, err := json.Marshal(records)
	if err != nil {
		t.Fatal(err)
	}
	var out []any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// runJQ runs the shell command of r on path with the real jq and returns its
// outputs: the lines for a raw recipe, else the JSON values.
func runJQ(t testing.TB, r recipes.Data, path string) []any {
	t.Helper()
	cmd := exec.Command("sh", "-c", r.Command(path))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Fatalf("recipe %d: %s\nfailed: %v\nstderr: %s", r.Number, r.Command(path), err, stderr.String())
	}
	if r.Raw {
		return lines(stdout.String())
	}
	if r.Compact {
		for _, l := range lines(stdout.String()) {
			if !json.Valid([]byte(l.(string))) {
				t.Errorf("recipe %d: compact output line is not one JSON value: %q", r.Number, l)
			}
		}
	}
	return decodeStream(t, stdout.Bytes())
}

func lines(s string) []any {
	out := []any{}
	if s == "" {
		return out
	}
	for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
		out = append(out, l)
	}
	return out
}

func decodeStream(t testing.TB, b []byte) []any {
	t.Helper()
	out := []any{}
	d := json.NewDecoder(bytes.NewReader(b))
	for {
		var v any
		err := d.Decode(&v)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("jq output is not JSON: %v\n%s", err, b)
		}
		out = append(out, v)
	}
}

// runGojq runs r in process with gojq, the way an lro_extract tool does:
// the filter with the params bound as variables, over each record or over
// the array of all records. It returns the outputs in the form of runJQ.
func runGojq(t testing.TB, r recipes.Data, records []any) []any {
	t.Helper()
	q, err := gojq.Parse(r.Filter)
	if err != nil {
		t.Fatalf("recipe %d: gojq cannot parse %q: %v", r.Number, r.Filter, err)
	}
	names := make([]string, len(r.Params))
	values := make([]any, len(r.Params))
	for i, p := range r.Params {
		names[i], values[i] = "$"+p.Name, p.Value
	}
	code, err := gojq.Compile(q, gojq.WithVariables(names))
	if err != nil {
		t.Fatalf("recipe %d: gojq cannot compile %q: %v", r.Number, r.Filter, err)
	}
	inputs := records
	if r.Slurp {
		inputs = []any{records}
	}
	out := []any{}
	for _, in := range inputs {
		iter := code.Run(in, values...)
		for {
			v, ok := iter.Next()
			if !ok {
				break
			}
			if err, ok := v.(error); ok {
				t.Fatalf("recipe %d: gojq: %v", r.Number, err)
			}
			if s, ok := v.(string); ok && r.Raw {
				out = append(out, s)
				continue
			}
			b, err := gojq.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			if r.Raw {
				out = append(out, string(b))
				continue
			}
			var n any
			if err := json.Unmarshal(b, &n); err != nil {
				t.Fatal(err)
			}
			out = append(out, n)
		}
	}
	return out
}

// approx compares floats with a relative tolerance, for averages.
var approx = cmpopts.EquateApprox(1e-12, 1e-12)

// check runs every recipe with jq on path and with gojq on records, and
// compares both with the oracle's answer computed in Go.
func check(t *testing.T, rs []recipes.Data, path string, records []any, oracles []oracle) {
	t.Helper()
	if len(oracles) != len(rs) {
		t.Fatalf("%d oracles for %d recipes", len(oracles), len(rs))
	}
	for i, r := range rs {
		got := runJQ(t, r, path)
		want := oracles[i](r, records)
		if want == nil {
			want = []any{}
		}
		if diff := cmp.Diff(want, got, approx); diff != "" {
			t.Errorf("recipe %d %q: jq output mismatch (-want +got):\n%s\ncommand: %s", r.Number, r.Description, diff, r.Command(path))
		}
		sameEverywhere(t, r, path, records, got)
	}
}

// An oracle computes in Go, independently of jq, what recipe r outputs on
// records (decoded by encoding/json).
type oracle func(r recipes.Data, records []any) []any

// param returns the value of the parameter name of r.
func param(r recipes.Data, name string) string {
	for _, p := range r.Params {
		if p.Name == name {
			return p.Value
		}
	}
	panic("no parameter " + name + " in recipe " + r.Description)
}

// matcher returns the case-insensitive matcher of a keyword parameter.
func matcher(r recipes.Data) func(any) bool {
	re := regexp.MustCompile("(?i)" + param(r, "keyword"))
	return func(v any) bool {
		s, ok := v.(string)
		return ok && re.MatchString(s)
	}
}

// typeRank orders the JSON types the way jq sorts them.
func typeRank(v any) int {
	switch v := v.(type) {
	case nil:
		return 0
	case bool:
		if v {
			return 2
		}
		return 1
	case float64:
		return 3
	case string:
		return 4
	case []any:
		return 5
	}
	return 6
}

// jqCompare compares two decoded JSON values in jq's sort order.
func jqCompare(a, b any) int {
	if ra, rb := typeRank(a), typeRank(b); ra != rb {
		return ra - rb
	}
	switch a := a.(type) {
	case float64:
		b := b.(float64)
		switch {
		case a < b:
			return -1
		case a > b:
			return 1
		}
		return 0
	case string:
		return strings.Compare(a, b.(string))
	case []any:
		b := b.([]any)
		for i := 0; i < len(a) && i < len(b); i++ {
			if c := jqCompare(a[i], b[i]); c != 0 {
				return c
			}
		}
		return len(a) - len(b)
	case map[string]any:
		b := b.(map[string]any)
		ka, kb := keysOf(a), keysOf(b)
		if c := jqCompare(toAny(ka), toAny(kb)); c != 0 {
			return c
		}
		for _, k := range ka {
			if c := jqCompare(a[k], b[k]); c != 0 {
				return c
			}
		}
	}
	return 0
}

func keysOf(o map[string]any) []string {
	ks := make([]string, 0, len(o))
	for k := range o {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// sortBy stably sorts a copy of vs by key in jq order.
func sortBy(vs []any, key func(any) any) []any {
	out := append([]any(nil), vs...)
	sort.SliceStable(out, func(i, j int) bool { return jqCompare(key(out[i]), key(out[j])) < 0 })
	return out
}

// groupBy is jq's group_by: groups of equal keys, in key order.
func groupBy(vs []any, key func(any) any) [][]any {
	var groups [][]any
	for _, v := range sortBy(vs, key) {
		if n := len(groups); n > 0 && jqCompare(key(groups[n-1][0]), key(v)) == 0 {
			groups[n-1] = append(groups[n-1], v)
			continue
		}
		groups = append(groups, []any{v})
	}
	return groups
}

// countGroups returns {name: key, count: n} per group, most frequent first
// (stable) when byCount.
func countGroups(vs []any, key func(any) any, name string, byCount bool) []any {
	var out []any
	for _, g := range groupBy(vs, key) {
		out = append(out, map[string]any{name: key(g[0]), "count": float64(len(g))})
	}
	if byCount {
		out = sortBy(out, func(v any) any { return -v.(map[string]any)["count"].(float64) })
	}
	return out
}

func reverse(vs []any) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[len(vs)-1-i] = v
	}
	return out
}

func head(vs []any, n int) []any {
	if len(vs) > n {
		return vs[:n]
	}
	return vs
}

func tail(vs []any, n int) []any {
	if len(vs) > n {
		return vs[len(vs)-n:]
	}
	return vs
}

func objects(vs []any) []any {
	var out []any
	for _, v := range vs {
		if _, ok := v.(map[string]any); ok {
			out = append(out, v)
		}
	}
	return out
}

func filter(vs []any, keep func(any) bool) []any {
	var out []any
	for _, v := range vs {
		if keep(v) {
			out = append(out, v)
		}
	}
	return out
}

// get returns field name of v, nil when v is not an object or lacks it.
func get(v any, name string) any {
	if o, ok := v.(map[string]any); ok {
		return o[name]
	}
	return nil
}

// tostring is jq's tostring for the values of the test data.
func tostring(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1e15 {
			return fmt.Sprintf("%d", int64(v))
		}
		return fmt.Sprint(v)
	case nil:
		return "null"
	case bool:
		return fmt.Sprint(v)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// strs returns the string values of v at any depth.
func strs(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			out = append(out, strs(e)...)
		}
		return out
	case map[string]any:
		var out []string
		for _, e := range v {
			out = append(out, strs(e)...)
		}
		return out
	}
	return nil
}

// stats is the statistics object of numbers: count, min, max and sum, or
// count, min, max and avg without withSum (the lengths of strings).
func stats(ns []float64, withSum bool) any {
	o := map[string]any{"count": float64(len(ns)), "min": nil, "max": nil}
	key := "avg"
	if withSum {
		key = "sum"
	}
	o[key] = nil
	if len(ns) == 0 {
		return o
	}
	lo, hi, sum := ns[0], ns[0], 0.0
	for _, n := range ns {
		lo, hi, sum = math.Min(lo, n), math.Max(hi, n), sum+n
	}
	o["min"], o["max"] = lo, hi
	if o[key] = sum; !withSum {
		o[key] = sum / float64(len(ns))
	}
	return o
}
