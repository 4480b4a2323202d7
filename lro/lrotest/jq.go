package lrotest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/itchyny/gojq"
)

// filterRefs are the field paths that a jq filter indexes.
type filterRefs struct {
	// all holds every path, as written: .a.b gives [a b], {a} gives [a],
	// .[0].a and .[].a give [a] (the elements of a slurped array are records
	// too). Array iteration and numeric indexes are skipped within a path; a
	// path through a computed index (.[$k]) ends there.
	all [][]string
	// record holds the paths of all that index the input records: it leaves
	// out paths that follow the construction of an object with the same key
	// ({count: length} ... .count), and .key and .value when the filter
	// uses to_entries or with_entries.
	record [][]string
}

// fieldRefs returns the field paths of a jq filter. The result is an
// approximation meant to find fields that no record has, not a type checker.
func fieldRefs(filter string) (filterRefs, error) {
	q, err := gojq.Parse(filter)
	if err != nil {
		return filterRefs{}, err
	}
	w := &refWalker{built: map[string]bool{}}
	w.query(q)
	refs := filterRefs{all: w.all}
	for _, r := range w.record {
		if w.entries && (r[0] == "key" || r[0] == "value") {
			continue
		}
		refs.record = append(refs.record, r)
	}
	return refs, nil
}

type refWalker struct {
	all     [][]string
	record  [][]string
	built   map[string]bool // keys of objects constructed so far
	entries bool            // the filter uses to_entries or with_entries
}

func (w *refWalker) add(chain []string) {
	w.all = append(w.all, chain)
	if !w.built[chain[0]] {
		w.record = append(w.record, chain)
	}
}

func (w *refWalker) query(q *gojq.Query) {
	if q == nil {
		return
	}
	for _, fd := range q.FuncDefs {
		w.query(fd.Body)
	}
	w.term(q.Term)
	w.query(q.Left)
	w.query(q.Right)
}

func (w *refWalker) str(s *gojq.String) {
	if s != nil {
		for _, q := range s.Queries {
			w.query(q)
		}
	}
}

// indexKey returns the constant field name of an index, if it has one.
func indexKey(ix *gojq.Index) (name string, isName, isConst bool) {
	switch {
	case ix.Name != "":
		return ix.Name, true, true
	case ix.Str != nil:
		if ix.Str.Queries == nil {
			return ix.Str.Str, true, true
		}
		return "", false, false
	case ix.IsSlice:
		return "", false, true
	case ix.Start != nil && ix.Start.Term != nil && ix.Start.Left == nil && ix.Start.Right == nil:
		t := ix.Start.Term
		switch {
		case t.Type == gojq.TermTypeString && t.Str != nil && t.Str.Queries == nil && len(t.SuffixList) == 0:
			return t.Str.Str, true, true
		case t.Type == gojq.TermTypeNumber, t.Type == gojq.TermTypeUnary && t.Unary != nil && t.Unary.Term != nil && t.Unary.Term.Type == gojq.TermTypeNumber:
			return "", false, true
		}
	}
	return "", false, false
}

func (w *refWalker) index(ix *gojq.Index) {
	w.query(ix.Start)
	w.query(ix.End)
	w.str(ix.Str)
}

func (w *refWalker) term(t *gojq.Term) {
	if t == nil {
		return
	}
	var chain []string
	relative := false // the chain starts at the input (.)
	switch t.Type {
	case gojq.TermTypeIdentity:
		relative = true
	case gojq.TermTypeIndex:
		w.index(t.Index)
		name, isName, isConst := indexKey(t.Index)
		switch {
		case isName:
			chain, relative = []string{name}, true
		case isConst:
			relative = true
		}
	case gojq.TermTypeFunc:
		if t.Func.Name == "to_entries" || t.Func.Name == "with_entries" {
			w.entries = true
		}
		for _, a := range t.Func.Args {
			w.query(a)
		}
	case gojq.TermTypeObject:
		for _, kv := range t.Object.KeyVals {
			key, constKey := kv.Key, kv.Key != ""
			if kv.KeyString != nil && kv.KeyString.Queries == nil {
				key, constKey = kv.KeyString.Str, true
			}
			switch {
			case kv.Val == nil && kv.KeyQuery == nil && constKey && !strings.HasPrefix(key, "$"):
				w.add([]string{key}) // {a} is {a: .a}
			case constKey && !strings.HasPrefix(key, "$"):
				w.built[key] = true
			}
			w.str(kv.KeyString)
			w.query(kv.KeyQuery)
			w.query(kv.Val)
		}
	case gojq.TermTypeArray:
		w.query(t.Array.Query)
	case gojq.TermTypeUnary:
		w.term(t.Unary.Term)
	case gojq.TermTypeFormat, gojq.TermTypeString:
		w.str(t.Str)
	case gojq.TermTypeIf:
		w.query(t.If.Cond)
		w.query(t.If.Then)
		for _, e := range t.If.Elif {
			w.query(e.Cond)
			w.query(e.Then)
		}
		w.query(t.If.Else)
	case gojq.TermTypeTry:
		w.query(t.Try.Body)
		w.query(t.Try.Catch)
	case gojq.TermTypeReduce:
		w.query(t.Reduce.Query)
		w.query(t.Reduce.Start)
		w.query(t.Reduce.Update)
	case gojq.TermTypeForeach:
		w.query(t.Foreach.Query)
		w.query(t.Foreach.Start)
		w.query(t.Foreach.Update)
		w.query(t.Foreach.Extract)
	case gojq.TermTypeLabel:
		w.query(t.Label.Body)
	case gojq.TermTypeQuery:
		w.query(t.Query)
	}
	for _, s := range t.SuffixList {
		switch {
		case s.Index != nil:
			w.index(s.Index)
			name, isName, isConst := indexKey(s.Index)
			switch {
			case !relative:
			case isName:
				chain = append(chain, name)
			case !isConst:
				// A computed index: what follows is not a known path.
				w.flush(chain)
				chain, relative = nil, false
			}
		case s.Iter:
			// Elements: the existence check looks through arrays.
		}
	}
	w.flush(chain)
}

func (w *refWalker) flush(chain []string) {
	if len(chain) > 0 {
		w.add(chain)
	}
}

// pathExists reports whether path leads somewhere in v, looking through
// arrays at every step.
func pathExists(v any, path []string) bool {
	if len(path) == 0 {
		return true
	}
	switch x := v.(type) {
	case map[string]any:
		child, ok := x[path[0]]
		return ok && pathExists(child, path[1:])
	case []any:
		for _, e := range x {
			if pathExists(e, path) {
				return true
			}
		}
	}
	return false
}

// recipeRun is the outcome of running one recipe command.
type recipeRun struct {
	err    error  // why it did not run cleanly; nil on success
	stdout []byte // its standard output
}

// values decodes the output as a stream of JSON values, or reports false when
// it is not one (raw output).
func (r recipeRun) values() ([]any, bool) {
	dec := json.NewDecoder(bytes.NewReader(r.stdout))
	var vals []any
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return vals, true
		}
		if err != nil {
			return nil, false
		}
		vals = append(vals, v)
	}
}

// maxRecipeOutput caps what the kit keeps of a recipe's standard output.
const maxRecipeOutput = 256 << 20

// runner runs recipe commands.
type runner interface {
	// run runs command on the offloaded file f: a command that reads
	// f.path reads f.data, which is the content of f.local.
	run(ctx context.Context, command string, f *fileView) recipeRun
	// name says how recipes run, for the report.
	name() string
}

// shellRunner runs commands with sh -c and the jq installed on the system.
type shellRunner struct {
	version string
}

func newShellRunner() (*shellRunner, bool) {
	if _, err := exec.LookPath("sh"); err != nil {
		return nil, false
	}
	jq, err := exec.LookPath("jq")
	if err != nil {
		return nil, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, jq, "--version").Output()
	if err != nil {
		return nil, false
	}
	return &shellRunner{version: fmt.Sprintf("sh -c with %s (%s)", strings.TrimSpace(string(out)), jq)}, true
}

func (s *shellRunner) name() string { return s.version }

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	bytes.Buffer
	max       int
	truncated bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room < len(p) {
		b.truncated = true
		if room > 0 {
			b.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

func (s *shellRunner) run(ctx context.Context, command string, f *fileView) recipeRun {
	// The command comes from the server under test: hand sh only commands
	// that are tail or cat piped into jq, with plain words, so that a
	// hostile server cannot run anything else on the client's machine.
	rc, err := parseRecipe(command)
	if err != nil {
		return recipeRun{err: fmt.Errorf("not run: the kit runs only tail -n +2 FILE | jq ... (or cat FILE | jq ..., jq ... FILE) with plain quoted words: %w", err)}
	}
	if rc.file == f.path && f.local != f.path {
		// The file was fetched: the same command reads the kit's copy.
		command = rc.withFile(f.local)
	}
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	stdout := &limitedBuffer{max: maxRecipeOutput}
	stderr := &limitedBuffer{max: 4096}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	r := recipeRun{stdout: stdout.Bytes()}
	msg := strings.TrimSpace(stderr.String())
	switch {
	case ctx.Err() != nil:
		r.err = fmt.Errorf("did not finish: %w", ctx.Err())
	case err != nil && msg != "":
		r.err = fmt.Errorf("%v: %s", err, msg)
	case err != nil:
		r.err = err
	case msg != "":
		r.err = fmt.Errorf("wrote to standard error: %s", msg)
	case stdout.truncated:
		r.err = fmt.Errorf("printed more than %d bytes", maxRecipeOutput)
	}
	return r
}

// gojqRunner runs commands in process: it parses them (see parseRecipe) and
// mirrors jq's options with github.com/itchyny/gojq. It keeps the decoded
// records of the last input it read, since the ten recipes of a descriptor
// read the same file; gojq never modifies its input values. It is safe for
// concurrent use.
type gojqRunner struct {
	mu         sync.Mutex
	data       []byte // the input last decoded, kept so that its memory is not reused
	skipHeader bool
	inputs     []any
	err        error
}

func (*gojqRunner) name() string {
	return "in process with github.com/itchyny/gojq (jq options -s -r -j -c -n -e --arg --argjson mirrored; object keys come out sorted)"
}

func (g *gojqRunner) run(ctx context.Context, command string, f *fileView) recipeRun {
	rc, err := parseRecipe(command)
	if err != nil {
		return recipeRun{err: fmt.Errorf("not run: the kit runs only tail -n +2 FILE | jq ... (or cat FILE | jq ..., jq ... FILE) with plain quoted words: %w", err)}
	}
	input := f.data
	if rc.file != f.path {
		if input, err = os.ReadFile(rc.file); err != nil {
			return recipeRun{err: err}
		}
	}
	inputs, err := g.decode(input, rc.skipHeader)
	if err != nil {
		return recipeRun{err: err}
	}
	return runGojq(ctx, rc.jq, inputs)
}

// decode returns the JSON values of input (from its second line when
// skipHeader is set, as tail -n +2 prints it), from the cache when input is
// the last one decoded.
func (g *gojqRunner) decode(input []byte, skipHeader bool) ([]any, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(input) > 0 && len(g.data) == len(input) && &g.data[0] == &input[0] && g.skipHeader == skipHeader {
		return g.inputs, g.err
	}
	g.data, g.skipHeader = input, skipHeader
	if skipHeader {
		if i := bytes.IndexByte(input, '\n'); i >= 0 { // tail -n +2
			input = input[i+1:]
		} else {
			input = nil
		}
	}
	var inputs []any
	var err error
	dec := json.NewDecoder(bytes.NewReader(input))
	for {
		var v any
		if e := dec.Decode(&v); errors.Is(e, io.EOF) {
			break
		} else if e != nil {
			err = fmt.Errorf("jq: error: cannot parse input: %w", e)
			break
		}
		inputs = append(inputs, v)
	}
	g.inputs, g.err = inputs, err
	return inputs, err
}

// runGojq runs a parsed jq call on the decoded inputs, which it does not
// modify.
func runGojq(ctx context.Context, j *jqCall, inputs []any) recipeRun {
	q, err := gojq.Parse(j.filter)
	if err != nil {
		return recipeRun{err: fmt.Errorf("jq: compile error: %w", err)}
	}
	it := &sliceIter{vals: inputs}
	code, err := gojq.Compile(q, gojq.WithVariables(j.names), gojq.WithInputIter(it))
	if err != nil {
		return recipeRun{err: fmt.Errorf("jq: compile error: %w", err)}
	}
	var out bytes.Buffer
	var last any
	outputs := 0
	emit := func(v any) error {
		outputs++
		last = v
		if s, ok := v.(string); ok && j.raw {
			out.WriteString(s)
		} else {
			var b []byte
			var err error
			if j.compact {
				b, err = gojq.Marshal(v)
			} else {
				b, err = json.MarshalIndent(v, "", "  ")
			}
			if err != nil {
				return err
			}
			out.Write(b)
		}
		if !j.join {
			out.WriteByte('\n')
		}
		if out.Len() > maxRecipeOutput {
			return fmt.Errorf("printed more than %d bytes", maxRecipeOutput)
		}
		return nil
	}
	runOn := func(v any) error {
		iter := code.RunWithContext(ctx, v, j.values...)
		for {
			x, ok := iter.Next()
			if !ok {
				return nil
			}
			if e, ok := x.(error); ok {
				var halt *gojq.HaltError
				if errors.As(e, &halt) && halt.Value() == nil && halt.ExitCode() == 0 {
					return errHalt
				}
				return fmt.Errorf("jq: error: %w", e)
			}
			if err := emit(x); err != nil {
				return err
			}
		}
	}
	switch {
	case j.nullInput:
		err = runOn(nil)
	case j.slurp:
		// A copy: the slice is shared with later runs.
		all := append([]any{}, it.vals[it.next:]...)
		it.next = len(it.vals)
		err = runOn(all)
	default:
		for {
			v, ok := it.Next()
			if !ok {
				break
			}
			if err = runOn(v); err != nil {
				break
			}
		}
	}
	r := recipeRun{stdout: out.Bytes()}
	switch {
	case errors.Is(err, errHalt):
	case err != nil:
		r.err = err
	case ctx.Err() != nil:
		r.err = fmt.Errorf("did not finish: %w", ctx.Err())
	case j.exitStatus && outputs == 0:
		r.err = errors.New("exit status 4 (-e: no output)")
	case j.exitStatus && (last == nil || last == false):
		r.err = errors.New("exit status 1 (-e: last output false or null)")
	}
	return r
}

var errHalt = errors.New("halt")

// sliceIter is a gojq.Iter over decoded inputs, shared by the main loop and
// the filter's input and inputs.
type sliceIter struct {
	vals []any
	next int
}

func (s *sliceIter) Next() (any, bool) {
	if s.next >= len(s.vals) {
		return nil, false
	}
	v := s.vals[s.next]
	s.next++
	return v, true
}

// decodeJSON decodes one JSON value.
func decodeJSON(b []byte) (any, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}
