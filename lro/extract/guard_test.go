package extract

import (
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/itchyny/gojq"
)

// TestBuiltinPolicyCoversGojq fails when the pinned gojq has a builtin the
// guard does not classify (it would be refused), or when the table names
// one gojq does not have.
func TestBuiltinPolicyCoversGojq(t *testing.T) {
	q, err := gojq.Parse("builtins")
	if err != nil {
		t.Fatal(err)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		t.Fatal(err)
	}
	v, _ := code.Run(nil).Next()
	var builtins []string
	for _, b := range v.([]any) {
		builtins = append(builtins, b.(string))
	}
	for _, b := range builtins {
		if _, ok := builtinPolicy[b]; !ok {
			t.Errorf("gojq builtin %s is not classified in builtinPolicy", b)
		}
	}
	for k := range builtinPolicy {
		if !slices.Contains(builtins, k) {
			t.Errorf("builtinPolicy has %s, which gojq does not define", k)
		}
	}
}

// run runs query on input, guarded or not. It sets no time limit: a query
// that does not stop fails the test by the test binary's -timeout, while a
// limit of a few seconds failed correct queries on slow machines.
func run(t *testing.T, query string, input any, guarded bool, budget int64) ([]any, error) {
	t.Helper()
	q, err := gojq.Parse(query)
	if err != nil {
		t.Fatalf("parse %q: %v", query, err)
	}
	var opts []gojq.CompilerOption
	if guarded {
		if err := guardQuery(q); err != nil {
			return nil, err
		}
		st := &guardState{budget: budget}
		opts = st.options()
	}
	code, err := gojq.Compile(q, opts...)
	if err != nil {
		return nil, fmt.Errorf("compile %s: %w", q, err)
	}
	iter := code.RunWithContext(t.Context(), input)
	var out []any
	for {
		v, ok := iter.Next()
		if !ok {
			return out, nil
		}
		if err, ok := v.(error); ok {
			return out, err
		}
		out = append(out, v)
		if len(out) > 1000 {
			return out, fmt.Errorf("too many outputs")
		}
	}
}

// TestGuardKeepsResults runs queries that use every rewritten construct,
// with and without the guard, and wants the same outputs and errors.
func TestGuardKeepsResults(t *testing.T) {
	input := map[string]any{
		"a": 1, "b": []any{3, 1, 2}, "s": "héllo, world", "o": map[string]any{"x": 1, "y": map[string]any{"z": 2}},
		"recs": []any{
			map[string]any{"ns": "a", "n": 2, "tags": []any{"x"}},
			map[string]any{"ns": "b", "n": 1, "tags": []any{"y", "x"}},
			map[string]any{"ns": "a", "n": 3},
		},
	}
	queries := []string{
		`.a == 1, .a != .b, .b < .o, .b <= .b, .o > .b, .o >= .o, .b - [1]`,
		`.a * 3, "ab" * 3, 3 * "ab", "ab" * 0, .o * {"y": {"w": 1}}, (1, 2) * (10, 20)`,
		`.a = 5 | .a`, `.b[1] = 9 | .b`, `.o.y.z |= . + 1 | .o`, `.a += 1 | .a`, `.a -= 1 | .a`, `.a *= 4 | .a`,
		`.a /= 2 | .a`, `.a %= 1 | .a`, `.missing //= 7 | .missing`, `.b -= [1] | .b`, `.o *= {"q": 1} | .o`,
		`.b[1:] = ["x"] | .b`, `.recs[].n |= . * 10 | [.recs[].n]`, `(.a, .b[0]) = 0 | [.a, .b]`,
		`del(.o.y) | .o`, `del(.b[0, 2]) | .b`, `pick(.o.y.z)`, `setpath(["o", "y"]; 1) | .o`,
		`getpath(["o", "y", "z"])`, `delpaths([["a"], ["b", 0]]) | keys`, `[paths] | length`,
		`[tostream] | fromstream(.[])`, `.recs | sort_by(.n) | map(.n)`, `.recs | group_by(.ns) | map(length)`,
		`.recs | unique_by(.ns) | length`, `.recs | min_by(.n).n, (max_by(.n).n)`, `.b | sort, unique, min, max, add`,
		`.b | add(.[] * 2)`, `[.b[] | tostring] | join("-")`, `.b | join(", ")`, `.s | tojson`, `.o | tostring`,
		`"x\(.a)y\(.b)"`, `@json "v=\(.b)"`, `.b | @csv`, `.s | @base64 | @base64d`, `.o | @text`, `.b | @sh`,
		`.b | contains([1]), inside([1, 2, 3, 4]), index(2), rindex(2), indices(1)`, `.s | index("o")`,
		`.b | IN(.[]; 2, 5)`, `.recs | INDEX(.ns) | keys`, `[.b[] | IN(1, 2)]`, `[[1, 2], [3]] | transpose`,
		`[[1, [2]], 3] | flatten, flatten(1)`, `[.b, .b] | combinations | tostring`, `.o | to_entries | from_entries`,
		`.o | with_entries(.value |= tostring)`, `.o | walk(if type == "number" then . + 1 else . end)`,
		`def sort: "mine"; .b | sort`, `def f(g): g | g; .a | f(. * 2)`, `def f($x): $x * x; f(3)`,
		`reduce .b[] as $x (0; . + $x)`, `[foreach .b[] as $x (0; . + $x; [$x, .])]`, `[limit(2; .b[])]`,
		`label $out | .b[] | if . == 1 then break $out else . end`, `try error("boom") catch .`, `.x?`,
		`[.[] | numbers]`, `[..] | length`, `.b | bsearch(2)`, `.s | test("WORLD"; "i"), [match("o"; "g").offset]`,
		`.s | sub("o"; "0"), gsub("o"; "0"), split(", "), ascii_downcase, explode[0:2], ltrimstr("hé")`,
		`. as {a: $a, b: [$first]} | [$a, $first]`, `.b as [$x, $y] | {$x, $y}`, `$__loc__`, `env | length`,
		`[splits("l+")]`, `.o | keys, has("x"), length`, `[range(0; 10; 3)]`, `[.b[] | select(. >= 2)]`,
		`.b | first, last, nth(1)`, `isempty(empty)`, `[recurse(if . < 3 then . + 1 else empty end)] | length`,
		`{"k": .a} * {"k": 2}`, `[.[] | strings]`, `.recs | map(.tags // [] | length)`, `.b | any(. > 2), all(. > 0)`,
		`getpath(["o", "y"]) |= 5 | .o`, `to_entries | map(.key) | sort | join(",")`, `.recs | map(select(.ns == "a")) | length`,
	}
	for _, query := range queries {
		t.Run(query, func(t *testing.T) {
			want, werr := run(t, query, input, false, 0)
			got, gerr := run(t, query, input, true, 1<<30)
			if (werr == nil) != (gerr == nil) {
				t.Fatalf("error %v without the guard, %v with it", werr, gerr)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("guard changed the results (-plain +guarded):\n%s", diff)
			}
		})
	}
}

// TestGuardStopsHostileSteps runs queries that, unguarded, crash the process,
// hang in one native call or allocate gigabytes in one step, and wants an
// error naming the problem before the step runs: the query allocates at
// most maxAlloc in all. The bound is on memory, not on time, so that it
// holds on any machine: the most a query here allocates is 29 MiB (shared
// value via add(f), measured), the least an unguarded step would is 100 MB
// (the join); a step that hangs fails by the test binary's -timeout.
func TestGuardStopsHostileSteps(t *testing.T) {
	const (
		budget   = 1 << 20
		maxAlloc = 64 << 20
	)
	tests := []struct {
		name, query, want string
	}{
		{"deep value to tojson (stack overflow)", `reduce range(20000) as $i (null; [.]) | tojson`, "nested deeper"},
		{"deep value compared", `reduce range(20000) as $i (null; [.]) | . == .`, "nested deeper"},
		{"deep value into flatten", `reduce range(20000) as $i (null; [.]) | flatten`, "nested deeper"},
		{"deep object merge", `reduce range(20000) as $i (null; {a: .}) | . * .`, "too large"},
		{"shared value to tojson (2^70 nodes)", `reduce range(70) as $i (0; [., .]) | tojson`, "too large"},
		{"shared value compared", `reduce range(70) as $i (0; [., .]) | . == .`, "too large"},
		{"shared value sorted", `reduce range(70) as $i (0; [., .]) | [.] | sort`, "too large"},
		{"shared value added", `reduce range(70) as $i ([0]; [., .]) | add`, "too large"},
		{"shared value interpolated", `reduce range(70) as $i (0; [., .]) | "\(.)"`, "too large"},
		{"shared value formatted", `reduce range(70) as $i (0; [., .]) | @json`, "too large"},
		{"shared value via map_values then compared", `reduce range(70) as $i (0; . as $v | {a: 0, b: 0} | map_values($v)) | contains(.)`, "too large"},
		{"shared value via add(f)", `. as $x | add(range(100000) | [$x])`, "too large"},
		{"string repetition of 2 GB", `"xx" * 1e9`, "repeating a string"},
		{"string repetition, number first", `1e9 * "xx"`, "repeating a string"},
		{"string repetition in an update", `.s = "xx" | .s *= 1e9`, "repeating a string"},
		{"huge array index in an assignment", `.[536870911] = 1`, "array index"},
		{"huge array index in setpath", `setpath([536870911]; 1)`, "array index"},
		{"huge array index in getpath assignment", `getpath([536870911]) |= 1`, "array index"},
		{"huge array index in pick", `pick(.[536870911])`, "array index"},
		{"huge array index in fromstream", `fromstream([[536870911], 1], [[536870911]])`, "array index"},
		{"long path in setpath", `setpath([range(20000) | 0]; 1)`, "longer than"},
		// A path built by recursion (def f: .[0] | f) is also checked, but gojq
		// tracks paths in quadratic time (3,000 levels take 1.7 s, measured),
		// so the time limit stops those long before their length matters.
		{"long path in an assignment", `[range(20000) | 0] as $p | getpath($p) = 1`, "longer than"},
		{"long path in delpaths", `delpaths([[range(20000) | 0]])`, "longer than"},
		{"ragged transpose", `[[range(100000)], (range(1000) | [])] | transpose`, "transpose"},
		{"join with a huge separator", `("x" * 1000) as $s | [range(100000)] | join($s)`, "join"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err := run(t, tt.query, nil, true, budget)
			runtime.ReadMemStats(&after)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("%s: error %v, want one containing %q", tt.query, err, tt.want)
			}
			if n := after.TotalAlloc - before.TotalAlloc; n > maxAlloc {
				t.Errorf("%s allocated %d MiB before it stopped, more than %d MiB", tt.query, n>>20, maxAlloc>>20)
			}
		})
	}
}

func TestGuardCatchable(t *testing.T) {
	got, err := run(t, `try ("xx" * 1e9) catch "caught"`, nil, true, 1<<20)
	if err != nil || len(got) != 1 || got[0] != "caught" {
		t.Errorf("got %v, %v; want the guard's error caught by try", got, err)
	}
}

func TestGuardRefuses(t *testing.T) {
	tests := []struct{ name, query, want string }{
		{"internal function", `_multiply("x"; 1e9)`, "internal function"},
		{"internal assignment", `_modify(.a; 1)`, "internal function"},
		{"reserved function name", `def __lro_check(x): x; 1`, "reserved"},
		{"reserved variable", `1 as $__lro_r | $__lro_r`, "reserved"},
		{"reserved call", `__lro_path`, "internal function"},
		{"unknown function", `no_such_function(1)`, "not defined"},
		{"import", `import "a" as a; 1`, "import"},
		{"include", `include "a"; 1`, "import"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := run(t, tt.query, nil, true, 1<<20)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s: error %v, want one containing %q", tt.query, err, tt.want)
			}
		})
	}
}

// TestGuardScopes checks that a call resolves like gojq resolves it: to a
// function the query defines before the call, else to the builtin.
func TestGuardScopes(t *testing.T) {
	for _, tt := range []struct {
		name, query string
		guarded     bool // whether the tojson call gets a check
	}{
		{"builtin", `tojson`, true},
		{"user function shadows the builtin", `def tojson: 1; tojson`, false},
		{"a later definition does not", `def f: tojson; def tojson: 1; f`, true},
		{"closure parameter", `def f(tojson): tojson; f(1)`, false},
		{"dollar parameter defines a filter", `def f($tojson): tojson; f(1)`, false},
		{"definition inside another scope does not leak", `(def tojson: 1; 2) | tojson`, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			q, err := gojq.Parse(tt.query)
			if err != nil {
				t.Fatal(err)
			}
			if err := guardQuery(q); err != nil {
				t.Fatal(err)
			}
			s := q.String()
			if got := strings.Contains(s, fnCheck+`("tojson")`); got != tt.guarded {
				t.Errorf("guarded = %v, want %v: %s", got, tt.guarded, s)
			}
		})
	}
}

func TestCheckPath(t *testing.T) {
	for _, tt := range []struct {
		name string
		path any
		ok   bool
	}{
		{"not an array passes through", "x", true},
		{"short path", []any{"a", 1, map[string]any{"start": 1, "end": 2}}, true},
		{"largest index", []any{maxIndex}, true},
		{"index too large", []any{maxIndex + 1}, false},
		{"negative index too large", []any{-float64(maxIndex) - 1}, false},
		{"slice bound too large", []any{map[string]any{"start": 0, "end": float64(1 << 30)}}, false},
		{"infinite index", []any{math.Inf(1)}, false},
		{"path too long", make([]any, maxDepth+1), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := checkPath(tt.path); (err == nil) != tt.ok {
				t.Errorf("checkPath = %v, want ok %v", err, tt.ok)
			}
		})
	}
}
