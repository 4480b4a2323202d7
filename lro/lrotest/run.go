package lrotest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/itchyny/gojq"

	"github.com/zircote/lro-go/internal/jqcmd"
)

// maxRecipeOutput caps what the kit keeps of a recipe's standard output.
const maxRecipeOutput = 256 << 20

// findJQ returns the path of jq and its version, or "" when it is missing.
func findJQ() (path, version string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "jq", "--version") // its Path looked up on the PATH
	out, err := cmd.Output()
	if err != nil {
		return "", ""
	}
	return cmd.Path, strings.TrimSpace(string(out))
}

// readOther reads a file that a recipe names in place of file_path (which
// L2.recipes.file reports): only a regular file of at most maxRecipeOutput
// bytes, opened without blocking, so that a hostile recipe cannot make the
// kit wait on a FIFO or a terminal, or read a device without end.
func readOther(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return nil, err
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("%s is not a regular file (%s)", path, fi.Mode().Type())
	case fi.Size() > maxRecipeOutput:
		return nil, fmt.Errorf("%s holds %d bytes, more than the kit reads (%d)", path, fi.Size(), maxRecipeOutput)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxRecipeOutput+1))
	if err == nil && len(data) > maxRecipeOutput {
		err = fmt.Errorf("%s grew past the %d bytes the kit reads", path, maxRecipeOutput)
	}
	return data, err
}

// limitedBuffer keeps the first max bytes written to it. Its buffer is not
// embedded: io.Copy, which os/exec uses, would call the buffer's ReadFrom
// and read past max.
type limitedBuffer struct {
	buf       bytes.Buffer
	max       int
	truncated bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); room < len(p) {
		b.truncated = true
		b.buf.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return b.buf.Write(p)
}

// runRecipe runs a recipe command, from the server under test, on the
// offloaded file f with jq (c.jq) or, when c.jq is "", in process; only
// commands that jqcmd.Parse reads, and with no shell: jq gets the words of
// its stage and, on its standard input, what the pipeline would feed it. A
// command that reads f.path reads f.data, which may have been fetched.
func (c *checker) runRecipe(ctx context.Context, command string, f *fileView) ([]byte, error) {
	rc, err := jqcmd.Parse(command)
	if err != nil {
		return nil, fmt.Errorf("not run: the kit runs only tail -n +2 FILE | jq ... (or cat FILE | jq ..., jq ... FILE) with plain quoted words: %w", err)
	}
	input := f.data
	if rc.File != f.path {
		if input, err = readOther(rc.File); err != nil {
			return nil, err
		}
	}
	if rc.SkipHeader {
		_, input, _ = bytes.Cut(input, []byte("\n"))
	}
	if c.jq == "" {
		inputs, err := jqcmd.Inputs(input)
		if err != nil {
			return nil, err
		}
		return rc.JQ.Run(ctx, inputs, maxRecipeOutput)
	}
	cmd := exec.CommandContext(ctx, c.jq, rc.JQ.Args...)
	stdout, stderr := &limitedBuffer{max: maxRecipeOutput}, &limitedBuffer{max: 4096}
	cmd.Stdin = bytes.NewReader(input)
	cmd.Stdout, cmd.Stderr, cmd.WaitDelay = stdout, stderr, time.Second
	err = cmd.Run()
	msg := strings.TrimSpace(stderr.buf.String())
	switch {
	case ctx.Err() != nil:
		err = fmt.Errorf("did not finish: %w", ctx.Err())
	case err != nil && msg != "":
		err = fmt.Errorf("%v: %s", err, msg)
	case err != nil:
	case msg != "":
		err = fmt.Errorf("wrote to standard error: %s", msg)
	case stdout.truncated:
		err = fmt.Errorf("printed more than %d bytes", maxRecipeOutput)
	}
	return stdout.buf.Bytes(), err
}

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

// fieldRefs returns the field paths of a jq filter, read from its gojq
// syntax tree. The result is an approximation meant to find fields that no
// record has, not a type checker.
func fieldRefs(filter string) (filterRefs, error) {
	q, err := gojq.Parse(filter)
	if err != nil {
		return filterRefs{}, err
	}
	var refs filterRefs
	built := map[string]bool{} // keys of objects constructed so far
	entries := false           // the filter uses to_entries or with_entries
	add := func(chain []string) {
		if len(chain) > 0 {
			refs.all = append(refs.all, chain)
			if !built[chain[0]] {
				refs.record = append(refs.record, chain)
			}
		}
	}
	// walk visits every node of the syntax tree below v, in order.
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() {
				return
			}
			switch n := v.Interface().(type) {
			case *gojq.Term:
				// The path the term indexes from its input (.a.b,
				// .["a"][0].b), added after the paths within it.
				chain, relative := []string(nil), n.Type == gojq.TermTypeIdentity || n.Type == gojq.TermTypeIndex
				indexes := []*gojq.Index{n.Index}
				for _, s := range n.SuffixList {
					indexes = append(indexes, s.Index) // nil for an iteration, which the existence check looks through
				}
				for _, ix := range indexes {
					switch name, isName, isConst := indexKey(ix); {
					case ix == nil || !relative:
					case isName:
						chain = append(chain, name)
					case !isConst:
						// A computed index: what follows is not a known path.
						add(chain)
						chain, relative = nil, false
					}
				}
				walk(v.Elem())
				add(chain)
				return
			case *gojq.ObjectKeyVal:
				key, constKey := n.Key, n.Key != ""
				if n.KeyString != nil && n.KeyString.Queries == nil {
					key, constKey = n.KeyString.Str, true
				}
				switch {
				case !constKey || strings.HasPrefix(key, "$"):
				case n.Val == nil && n.KeyQuery == nil:
					add([]string{key}) // {a} is {a: .a}
				default:
					built[key] = true
				}
			case *gojq.Func:
				entries = entries || n.Name == "to_entries" || n.Name == "with_entries"
			}
			walk(v.Elem())
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					walk(v.Field(i))
				}
			}
		case reflect.Slice:
			for i := range v.Len() {
				walk(v.Index(i))
			}
		}
	}
	walk(reflect.ValueOf(q))
	if entries {
		refs.record = slices.DeleteFunc(refs.record, func(r []string) bool { return r[0] == "key" || r[0] == "value" })
	}
	if len(refs.record) == 0 {
		refs.record = nil
	}
	return refs, nil
}

// indexKey returns the field name of an index when it is a constant string
// (.a, ."a", .["a"]), and whether it is a constant: a name, a number or a
// slice.
func indexKey(ix *gojq.Index) (name string, isName, isConst bool) {
	var lit fmt.Stringer
	switch {
	case ix == nil:
		return "", false, false
	case ix.Name != "":
		return ix.Name, true, true
	case ix.IsSlice:
		return "", false, true
	case ix.Str != nil:
		lit = ix.Str
	case ix.Start != nil:
		lit = ix.Start
	default:
		return "", false, false
	}
	// gojq prints a constant string or number as JSON.
	var key any
	if json.Unmarshal([]byte(lit.String()), &key) != nil {
		return "", false, false
	}
	name, isName = key.(string)
	_, isNumber := key.(float64)
	return name, isName, isName || isNumber
}
