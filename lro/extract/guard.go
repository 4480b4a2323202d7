package extract

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/itchyny/gojq"
)

// A custom jq query runs in the server's process, so it must not be able to
// take the process down or hold it hostage. gojq checks the context between
// steps, which bounds time, and the memory watchdog bounds memory that grows
// step by step. What neither can stop is one step that does a huge amount of
// work inside a native Go function, which never looks at the context:
//
//   - deep values: `reduce range(3e6) as $i (null; [.]) | tojson` builds a
//     value nested three million levels deep with 40 bytes of heap a level,
//     and gojq's recursive encoder then overflows the Go stack, a fatal error
//     that no recover catches (measured: the process dies). Comparisons,
//     contains, flatten, setpath and delpaths recurse the same way;
//   - shared values: `[., .]` repeated 40 times makes a value of 2^40 nodes
//     in 40 steps and almost no memory, because both elements are the same
//     value; a single tojson or == then walks all of it, past any deadline
//     (measured: still running 20 s after a 3 s deadline, until killed), and
//     sort, add or flatten would too;
//   - single allocations: `"xx" * 1e9` allocates 2 GB in one step (measured),
//     `.[536870911] = 1` a 8.6 GB array, `[[range(1e6)], [], ...] |
//     transpose` pads every row to the longest.
//
// guardQuery therefore rewrites the parsed query before it is compiled, so
// that every value that reaches such a native function is measured first
// (bounded work: see sizer) and rejected if it weighs more than the memory
// budget or nests deeper than maxDepth:
//
//   - calls to builtins that walk, compare or materialize whole values (the
//     guardInput and guardArgs policies of the table below) get their input
//     and arguments checked by __lro_check;
//   - ==, !=, <, <=, >, >= and - get both operands checked, unless one is a
//     literal scalar (then the comparison stops at once);
//   - a * b binds b and checks the product of a string repetition, or both
//     objects of a deep merge, with __lro_mul;
//   - the left side of every assignment operator becomes
//     getpath(path(lhs) | __lro_path), which yields the same paths, and
//     __lro_path rejects paths longer than maxDepth or with an array index
//     above maxIndex; setpath, getpath, delpaths, del, pick and fromstream
//     get their paths checked the same way;
//   - transpose and join check the size of what they will build.
//
// Every builtin of gojq is classified in builtinPolicy; a test fails when the
// pinned gojq gains one that is not. A call to an unclassified name, to one
// of gojq's internal functions (names starting with "_"), import and include
// are refused. The rewritten query yields the same results as the original
// (the checks return their input unchanged), except that a check that fails
// raises an error, which try can catch like any other.

// policy says how calls to one builtin are guarded.
type policy int

const (
	safe        policy = iota // bounded work per step, nothing to check
	guardInput                // check the input
	guardArgs                 // check every output of every argument
	guardBoth                 // both of the above
	pathArg                   // argument 1 is a path expression: check its paths
	pathValue                 // argument 1 yields a path: check it
	pathValues                // argument 1 yields an array of paths
	streamArg                 // argument 1 yields stream events: check their paths
	transposeIn               // check the size of the transposed array
	joinIn                    // check the size of the joined string
	addArg                    // add(f): check [f]
)

// builtinPolicy classifies every builtin of gojq v0.12.20 by name/arity.
var builtinPolicy = map[string]policy{
	// Comparisons and whole-value walks.
	"sort/0": guardInput, "unique/0": guardInput, "min/0": guardInput, "max/0": guardInput,
	"flatten/0": guardInput, "flatten/1": guardInput, "add/0": guardInput, "tojson/0": guardInput,
	"tostring/0": guardInput, "format/1": guardInput,
	"sort_by/1": guardBoth, "group_by/1": guardBoth, "unique_by/1": guardBoth, "min_by/1": guardBoth,
	"max_by/1": guardBoth, "contains/1": guardBoth, "inside/1": guardBoth, "index/1": guardBoth,
	"rindex/1": guardBoth, "indices/1": guardBoth, "bsearch/1": guardBoth, "IN/1": guardBoth,
	"IN/2":    guardBoth,
	"INDEX/1": guardArgs, "INDEX/2": guardArgs, "JOIN/2": guardArgs, "JOIN/3": guardArgs, "JOIN/4": guardArgs,
	"add/1": addArg, "transpose/0": transposeIn, "join/1": joinIn,
	// Paths.
	"del/1": pathArg, "pick/1": pathArg, "getpath/1": pathValue, "setpath/2": pathValue,
	"delpaths/1": pathValues, "fromstream/1": streamArg,
	// Everything else does bounded work per step.
	"abs/0": safe, "acos/0": safe, "acosh/0": safe, "all/0": safe, "all/1": safe,
	"all/2": safe, "any/0": safe, "any/1": safe, "any/2": safe, "arrays/0": safe,
	"ascii_downcase/0": safe, "ascii_upcase/0": safe, "asin/0": safe, "asinh/0": safe, "atan/0": safe,
	"atan2/2": safe, "atanh/0": safe, "booleans/0": safe, "builtins/0": safe, "capture/1": safe,
	"capture/2": safe, "cbrt/0": safe, "ceil/0": safe, "combinations/0": safe, "combinations/1": safe,
	"copysign/2": safe, "cos/0": safe, "cosh/0": safe, "debug/1": safe, "drem/2": safe, "empty/0": safe,
	"endswith/1": safe, "env/0": safe, "erf/0": safe, "erfc/0": safe, "error/0": safe, "error/1": safe,
	"exp/0": safe, "exp10/0": safe, "exp2/0": safe, "explode/0": safe, "expm1/0": safe, "fabs/0": safe,
	"fdim/2": safe, "finites/0": safe, "first/0": safe, "first/1": safe, "floor/0": safe, "fma/3": safe,
	"fmax/2": safe, "fmin/2": safe, "fmod/2": safe, "frexp/0": safe, "from_entries/0": safe,
	"fromdate/0": safe, "fromdateiso8601/0": safe, "fromjson/0": safe, "gamma/0": safe, "gmtime/0": safe,
	"gsub/2": safe, "gsub/3": safe, "halt/0": safe, "halt_error/0": safe, "halt_error/1": safe,
	"has/1": safe, "hypot/2": safe, "implode/0": safe, "in/1": safe, "infinite/0": safe, "input/0": safe,
	"inputs/0": safe, "isempty/1": safe, "isfinite/0": safe, "isinfinite/0": safe, "isnan/0": safe,
	"isnormal/0": safe, "iterables/0": safe, "j0/0": safe, "j1/0": safe, "jn/2": safe, "keys/0": safe,
	"last/0": safe, "last/1": safe, "ldexp/2": safe, "length/0": safe, "lgamma/0": safe, "limit/2": safe,
	"localtime/0": safe, "log/0": safe, "log10/0": safe, "log1p/0": safe, "log2/0": safe, "logb/0": safe,
	"ltrim/0": safe, "ltrimstr/1": safe, "map/1": safe, "map_values/1": safe, "match/1": safe,
	"match/2": safe, "mktime/0": safe, "modf/0": safe, "modulemeta/0": safe, "nan/0": safe,
	"nearbyint/0": safe, "nextafter/2": safe, "nexttoward/2": safe, "normals/0": safe, "not/0": safe,
	"now/0": safe, "nth/1": safe, "nth/2": safe, "nulls/0": safe, "numbers/0": safe, "objects/0": safe,
	"path/1": safe, "paths/0": safe, "paths/1": safe, "pow/2": safe, "range/1": safe, "range/2": safe,
	"range/3": safe, "recurse/0": safe, "recurse/1": safe, "recurse/2": safe, "remainder/2": safe,
	"repeat/1": safe, "reverse/0": safe, "rint/0": safe, "round/0": safe, "rtrim/0": safe,
	"rtrimstr/1": safe, "scalars/0": safe, "scalb/2": safe, "scalbln/2": safe, "scan/1": safe,
	"scan/2": safe, "select/1": safe, "significand/0": safe, "sin/0": safe, "sinh/0": safe, "skip/2": safe,
	"split/1": safe, "split/2": safe, "splits/1": safe, "splits/2": safe, "sqrt/0": safe,
	"startswith/1": safe, "strflocaltime/1": safe, "strftime/1": safe, "strings/0": safe,
	"strptime/1": safe, "sub/2": safe, "sub/3": safe, "tan/0": safe, "tanh/0": safe, "test/1": safe,
	"test/2": safe, "tgamma/0": safe, "to_entries/0": safe, "toboolean/0": safe, "todate/0": safe,
	"todateiso8601/0": safe, "tonumber/0": safe, "tostream/0": safe, "trim/0": safe, "trimstr/1": safe,
	"trunc/0": safe, "truncate_stream/1": safe, "type/0": safe, "until/2": safe,
	"utf8bytelength/0": safe, "values/0": safe, "walk/1": safe, "while/2": safe, "with_entries/1": safe,
	"y0/0": safe, "y1/0": safe, "yn/2": safe,
}

// Names of the checking functions the rewritten query calls, and of the
// variables it binds. Queries may not use names with this prefix.
const (
	reservedPrefix = "__lro"
	fnCheck        = "__lro_check"
	fnPath         = "__lro_path"
	fnPaths        = "__lro_paths"
	fnEvent        = "__lro_event"
	fnMul          = "__lro_mul"
	fnTranspose    = "__lro_transpose"
	fnJoin         = "__lro_join"
	varRight       = "$__lro_r"
	varSep         = "$__lro_s"
	varUpdate      = "$__lro_v"
)

// maxIndex is the largest array index a path may use: setting a value at
// index n allocates an array of n+1 elements in one step.
const maxIndex = 1 << 20

// guard rewrites a parsed query; see the comment at the top of this file.
type guard struct {
	scopes [][]string // names/arity of the user's functions in scope
	err    error
}

// guardQuery rewrites q in place, or returns an error naming what it refuses.
func guardQuery(q *gojq.Query) error {
	g := &guard{}
	g.query(q)
	return g.err
}

func (g *guard) fail(format string, args ...any) {
	if g.err == nil {
		g.err = fmt.Errorf(format, args...)
	}
}

func (g *guard) reserved(name string) {
	if strings.HasPrefix(strings.TrimPrefix(name, "$"), reservedPrefix) {
		g.fail("the name %s is reserved (names starting with %s are used by lro_extract)", name, reservedPrefix)
	}
}

// userDefined reports whether a call to name/arity refers to a function the
// query defines (or a closure parameter) rather than to a builtin.
func (g *guard) userDefined(key string) bool {
	for i := len(g.scopes) - 1; i >= 0; i-- {
		for _, k := range g.scopes[i] {
			if k == key {
				return true
			}
		}
	}
	return false
}

func (g *guard) define(key string) {
	g.scopes[len(g.scopes)-1] = append(g.scopes[len(g.scopes)-1], key)
}

func (g *guard) query(q *gojq.Query) {
	if q == nil || g.err != nil {
		return
	}
	if len(q.Imports) > 0 {
		g.fail("import and include are not allowed")
		return
	}
	g.scopes = append(g.scopes, nil)
	defer func() { g.scopes = g.scopes[:len(g.scopes)-1] }()
	for _, fd := range q.FuncDefs {
		g.funcDef(fd)
	}
	if q.Term != nil {
		g.term(q.Term)
		return
	}
	g.query(q.Left)
	for _, p := range q.Patterns {
		g.pattern(p)
	}
	g.query(q.Right)
	if g.err != nil {
		return
	}
	g.operator(q)
}

func (g *guard) funcDef(fd *gojq.FuncDef) {
	g.reserved(fd.Name)
	// A function is visible in its own body (recursion) and after it.
	g.define(fd.Name + "/" + strconv.Itoa(len(fd.Args)))
	g.scopes = append(g.scopes, nil)
	for _, a := range fd.Args {
		g.reserved(a)
		g.define(strings.TrimPrefix(a, "$") + "/0")
	}
	g.query(fd.Body)
	g.scopes = g.scopes[:len(g.scopes)-1]
}

func (g *guard) pattern(p *gojq.Pattern) {
	if p == nil {
		return
	}
	g.reserved(p.Name)
	for _, e := range p.Array {
		g.pattern(e)
	}
	for _, o := range p.Object {
		g.reserved(o.Key)
		g.str(o.KeyString)
		g.query(o.KeyQuery)
		g.pattern(o.Val)
	}
}

// str guards the interpolations of a string: each is turned into text.
func (g *guard) str(s *gojq.String) {
	if s == nil {
		return
	}
	for i, q := range s.Queries {
		if q.Term != nil && q.Term.Str != nil {
			continue // a literal part of the string
		}
		g.query(q)
		// The compiler wants every part to be a term.
		s.Queries[i] = &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeQuery, Query: pipe(q, check("string interpolation"))}}
	}
}

func (g *guard) index(x *gojq.Index) {
	if x == nil {
		return
	}
	g.str(x.Str)
	g.query(x.Start)
	g.query(x.End)
}

func (g *guard) term(t *gojq.Term) {
	if t == nil || g.err != nil {
		return
	}
	switch t.Type {
	case gojq.TermTypeIndex:
		g.index(t.Index)
	case gojq.TermTypeFunc:
		g.call(t)
	case gojq.TermTypeObject:
		for _, kv := range t.Object.KeyVals {
			g.reserved(kv.Key)
			g.str(kv.KeyString)
			g.query(kv.KeyQuery)
			g.query(kv.Val)
		}
	case gojq.TermTypeArray:
		g.query(t.Array.Query)
	case gojq.TermTypeUnary:
		g.term(t.Unary.Term)
	case gojq.TermTypeFormat:
		if t.Str != nil {
			// @json "...\(x)...": each interpolation is formatted.
			g.str(t.Str)
		} else {
			// @json alone formats its input.
			g.wrapInput(t, check(t.Format))
		}
	case gojq.TermTypeString:
		g.str(t.Str)
	case gojq.TermTypeIf:
		g.query(t.If.Cond)
		g.query(t.If.Then)
		for _, e := range t.If.Elif {
			g.query(e.Cond)
			g.query(e.Then)
		}
		g.query(t.If.Else)
	case gojq.TermTypeTry:
		g.query(t.Try.Body)
		g.query(t.Try.Catch)
	case gojq.TermTypeReduce:
		g.query(t.Reduce.Query)
		for _, p := range t.Reduce.Patterns {
			g.pattern(p)
		}
		g.query(t.Reduce.Start)
		g.query(t.Reduce.Update)
	case gojq.TermTypeForeach:
		g.query(t.Foreach.Query)
		for _, p := range t.Foreach.Patterns {
			g.pattern(p)
		}
		g.query(t.Foreach.Start)
		g.query(t.Foreach.Update)
		g.query(t.Foreach.Extract)
	case gojq.TermTypeLabel:
		g.query(t.Label.Body)
	case gojq.TermTypeQuery:
		g.query(t.Query)
	}
	for _, s := range t.SuffixList {
		g.index(s.Index)
	}
}

// wrapInput makes t run on its input after the filter f: t becomes
// (f | t) with t's suffixes kept outside.
func (g *guard) wrapInput(t *gojq.Term, f *gojq.Query) {
	inner := *t
	inner.SuffixList = nil
	*t = gojq.Term{
		Type:       gojq.TermTypeQuery,
		Query:      pipe(f, &gojq.Query{Term: &inner}),
		SuffixList: t.SuffixList,
	}
}

func (g *guard) call(t *gojq.Term) {
	f := t.Func
	if strings.HasPrefix(f.Name, "$") {
		g.reserved(f.Name)
		return
	}
	for _, a := range f.Args {
		g.query(a)
	}
	if g.err != nil {
		return
	}
	key := f.Name + "/" + strconv.Itoa(len(f.Args))
	if g.userDefined(key) {
		return
	}
	p, ok := builtinPolicy[key]
	switch {
	case !ok && strings.HasPrefix(f.Name, "_"):
		g.fail("%s is an internal function of the jq engine and is not available", key)
		return
	case !ok && strings.HasPrefix(f.Name, reservedPrefix):
		g.reserved(f.Name)
		return
	case !ok:
		g.fail("function %s is not defined or not available in lro_extract queries", key)
		return
	}
	name := f.Name
	switch p {
	case guardInput:
		g.wrapInput(t, check(name))
	case guardArgs:
		for i, a := range f.Args {
			f.Args[i] = pipe(a, check(name))
		}
	case guardBoth:
		for i, a := range f.Args {
			f.Args[i] = pipe(a, check(name))
		}
		g.wrapInput(t, check(name))
	case pathArg:
		f.Args[0] = checkedPaths(f.Args[0])
	case pathValue:
		f.Args[0] = pipe(f.Args[0], call(fnPath))
	case pathValues:
		f.Args[0] = pipe(f.Args[0], call(fnPaths))
	case streamArg:
		f.Args[0] = pipe(f.Args[0], call(fnEvent))
	case transposeIn:
		g.wrapInput(t, call(fnTranspose))
	case joinIn:
		// join(S) becomes S as $s | __lro_join($s) | join($s), which is how
		// join's $-parameter is evaluated anyway: once per output of S.
		sep := f.Args[0]
		f.Args[0] = variable(varSep)
		inner := *t
		inner.SuffixList = nil
		*t = gojq.Term{
			Type: gojq.TermTypeQuery,
			Query: &gojq.Query{
				Left: sep, Op: gojq.OpPipe, Patterns: []*gojq.Pattern{{Name: varSep}},
				Right: pipe(call(fnJoin, variable(varSep)), &gojq.Query{Term: &inner}),
			},
			SuffixList: t.SuffixList,
		}
	case addArg:
		// add(f) is defined as [f] | add.
		inner := &gojq.Term{Type: gojq.TermTypeArray, Array: &gojq.Array{Query: f.Args[0]}}
		*t = gojq.Term{
			Type:       gojq.TermTypeQuery,
			Query:      pipe(&gojq.Query{Term: inner}, pipe(check("add"), call("add"))),
			SuffixList: t.SuffixList,
		}
	}
}

// checkedPaths turns the path expression p into getpath(path(p) |
// __lro_path), a path expression with the same paths, each checked.
func checkedPaths(p *gojq.Query) *gojq.Query {
	return call("getpath", pipe(call("path", p), call(fnPath)))
}

// operator guards the binary operator of q, whose operands are guarded
// already.
func (g *guard) operator(q *gojq.Query) {
	switch q.Op {
	case gojq.OpEq, gojq.OpNe, gojq.OpLt, gojq.OpLe, gojq.OpGt, gojq.OpGe, gojq.OpSub:
		if !literal(q.Left) && !literal(q.Right) {
			name := q.Op.String()
			q.Left = pipe(q.Left, check(name))
			q.Right = pipe(q.Right, check(name))
		}
	case gojq.OpMul:
		if number(q.Left) && number(q.Right) {
			return
		}
		// a * b becomes b as $r | (a | __lro_mul($r)) * $r: b is evaluated
		// first and a for each of its outputs, as the operator does.
		right, left := q.Right, q.Left
		q.Left, q.Right, q.Patterns = right, &gojq.Query{
			Left:  pipe(left, call(fnMul, variable(varRight))),
			Op:    gojq.OpMul,
			Right: variable(varRight),
		}, []*gojq.Pattern{{Name: varRight}}
		q.Op = gojq.OpPipe
	case gojq.OpAssign, gojq.OpModify, gojq.OpUpdateAdd, gojq.OpUpdateDiv, gojq.OpUpdateMod, gojq.OpUpdateAlt:
		q.Left = checkedPaths(q.Left)
	case gojq.OpUpdateSub, gojq.OpUpdateMul:
		// a op= b is b as $v | a |= (. op $v); the inner operator is then
		// guarded like any other.
		op := gojq.OpSub
		if q.Op == gojq.OpUpdateMul {
			op = gojq.OpMul
		}
		inner := &gojq.Query{Left: &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeIdentity}}, Op: op, Right: variable(varUpdate)}
		g.operator(inner)
		right, left := q.Right, q.Left
		q.Left, q.Right, q.Patterns = right, &gojq.Query{
			Left:  checkedPaths(left),
			Op:    gojq.OpModify,
			Right: inner,
		}, []*gojq.Pattern{{Name: varUpdate}}
		q.Op = gojq.OpPipe
	}
}

// literal reports whether q is a literal scalar: comparing with one stops
// at once.
func literal(q *gojq.Query) bool {
	if q == nil || q.Term == nil || len(q.Term.SuffixList) > 0 || len(q.FuncDefs) > 0 {
		return false
	}
	switch q.Term.Type {
	case gojq.TermTypeNull, gojq.TermTypeTrue, gojq.TermTypeFalse, gojq.TermTypeNumber:
		return true
	case gojq.TermTypeString:
		return q.Term.Str != nil && len(q.Term.Str.Queries) == 0
	}
	return false
}

func number(q *gojq.Query) bool {
	return literal(q) && q.Term.Type == gojq.TermTypeNumber
}

func pipe(l, r *gojq.Query) *gojq.Query { return &gojq.Query{Left: l, Op: gojq.OpPipe, Right: r} }

func call(name string, args ...*gojq.Query) *gojq.Query {
	return &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeFunc, Func: &gojq.Func{Name: name, Args: args}}}
}

func variable(name string) *gojq.Query { return call(name) }

func check(what string) *gojq.Query {
	return call(fnCheck, &gojq.Query{Term: &gojq.Term{Type: gojq.TermTypeString, Str: &gojq.String{Str: what}}})
}

// guardState holds the limits the checking functions enforce for one call.
type guardState struct {
	budget int64 // the most a checked value may weigh, in bytes
	sizer  sizer
}

// options returns the compiler options that define the checking functions.
func (st *guardState) options() []gojq.CompilerOption {
	return []gojq.CompilerOption{
		gojq.WithFunction(fnCheck, 1, 1, func(v any, args []any) any {
			if !st.sizer.fits(v, st.budget) {
				what, _ := args[0].(string)
				return fmt.Errorf("%s: the value is too large (over %d bytes) or nested deeper than %d levels for lro_extract", what, st.budget, maxDepth)
			}
			return v
		}),
		gojq.WithFunction(fnPath, 0, 0, func(v any, _ []any) any {
			if err := checkPath(v); err != nil {
				return err
			}
			return v
		}),
		gojq.WithFunction(fnPaths, 0, 0, func(v any, _ []any) any {
			if ps, ok := v.([]any); ok {
				for _, p := range ps {
					if err := checkPath(p); err != nil {
						return err
					}
				}
			}
			return v
		}),
		gojq.WithFunction(fnEvent, 0, 0, func(v any, _ []any) any {
			if ev, ok := v.([]any); ok && len(ev) > 0 {
				if err := checkPath(ev[0]); err != nil {
					return err
				}
			}
			return v
		}),
		gojq.WithFunction(fnMul, 1, 1, func(v any, args []any) any {
			return st.checkMul(v, args[0])
		}),
		gojq.WithFunction(fnTranspose, 0, 0, func(v any, _ []any) any {
			rows, ok := v.([]any)
			if !ok {
				return v
			}
			longest := 0
			for _, r := range rows {
				if a, ok := r.([]any); ok {
					longest = max(longest, len(a))
				}
			}
			if int64(longest)*int64(len(rows))*16 > st.budget {
				return fmt.Errorf("transpose: the result would be too large (%d x %d) for lro_extract", len(rows), longest)
			}
			return v
		}),
		gojq.WithFunction(fnJoin, 1, 1, func(v any, args []any) any {
			a, ok := v.([]any)
			if !ok {
				return v
			}
			sep, _ := args[0].(string)
			if int64(len(sep))*int64(len(a)) > st.budget || !st.sizer.fits(v, st.budget) {
				return fmt.Errorf("join: the result would be too large (over %d bytes) for lro_extract", st.budget)
			}
			return v
		}),
	}
}

// checkMul checks l * r before gojq computes it.
func (st *guardState) checkMul(l, r any) any {
	s, n := l, r
	if _, ok := s.(string); !ok {
		s, n = r, l
	}
	if str, ok := s.(string); ok {
		if f, ok := toFloat(n); ok && f > 0 && float64(len(str))*f > float64(st.budget) {
			return fmt.Errorf("*: repeating a string of %d bytes %v times is too large for lro_extract", len(str), f)
		}
		return l
	}
	_, lo := l.(map[string]any)
	_, ro := r.(map[string]any)
	if lo && ro && (!st.sizer.fits(l, st.budget/2) || !st.sizer.fits(r, st.budget/2)) {
		return fmt.Errorf("*: merging objects this large is too large for lro_extract")
	}
	return l
}

// checkPath rejects a path that would make setpath or delpaths recurse too
// deep or allocate too large an array.
func checkPath(v any) error {
	p, ok := v.([]any)
	if !ok {
		return nil
	}
	if len(p) > maxDepth {
		return fmt.Errorf("path of %d elements is longer than %d for lro_extract", len(p), maxDepth)
	}
	for _, e := range p {
		if err := checkIndex(e); err != nil {
			return err
		}
		if o, ok := e.(map[string]any); ok { // a slice: {"start": a, "end": b}
			for _, x := range o {
				if err := checkIndex(x); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func checkIndex(e any) error {
	if f, ok := toFloat(e); ok && math.Abs(f) > maxIndex {
		return fmt.Errorf("array index %v in a path is above %d for lro_extract", e, maxIndex)
	}
	return nil
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case int:
		return float64(n), true
	case float64:
		return n, true
	}
	if f, ok := gojq.ToFloat64(v); ok {
		return f, true
	}
	return 0, false
}
