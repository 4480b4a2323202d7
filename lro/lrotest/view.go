package lrotest

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// view is what the kit saw of one call, which every check of its scope
// reads, and the outcome of the check running on it.
type view struct {
	c          *checker
	ctx        context.Context
	label      string
	args       map[string]any
	detail     string // the detail level the file must have; "" when unknown
	start, end time.Time

	res       *mcp.CallToolResult
	failed    string         // why the call failed
	desc      map[string]any // the descriptor
	summary   map[string]any
	file      *fileView
	nameOp    string              // the operation of the file name
	found     map[string][]string // problems found while reading the file, by requirement
	recipes   []*recipeView       // the recipes with a command, when jq_recipes is an array
	blocker   string              // why needCall is missing
	noFile    string              // why needFile is missing
	noRecipes string              // why needRecipes is missing

	problems []string // what the running check found wrong
	skipped  string   // why the running check is skipped
}

// blocked returns why v lacks something of n, or "".
func (v *view) blocked(n need) string {
	switch {
	case n == 0:
	case v.blocker != "":
		return v.blocker
	case n&(needFile|needHeader|needFields) != 0 && v.file == nil:
		return v.noFile
	case n&(needHeader|needFields) != 0 && v.file.header == nil:
		return "depends on L1.header.type"
	case n&needFields != 0 && headerSchema.Validate(v.file.header) != nil:
		return "depends on L1.header.fields"
	case n&needRecipes != 0 && v.recipes == nil:
		return v.noRecipes
	}
	return ""
}

// fail records a violation of the running check's requirement.
func (v *view) fail(format string, args ...any) {
	v.problems = append(v.problems, fmt.Sprintf(format, args...))
}

// skip says why the running check cannot check its requirement.
func (v *view) skip(format string, args ...any) { v.skipped = fmt.Sprintf(format, args...) }

// fileView is an offloaded file as read by the kit.
type fileView struct {
	path    string // the descriptor's file_path
	fetched bool   // data was fetched with resources/read, not read at path
	data    []byte
	header  map[string]any // nil unless line 1 is a JSON object
	lines   [][]byte       // record lines (line 2 on)
	records []any          // the record lines that decoded
	lineOf  []int          // the line number of each record
	bad     []int          // the indexes in lines of those that did not
}

// call calls the tool on cs with v.args and records the result, or why the
// call failed.
func (c *checker) call(v *view, cs *mcp.ClientSession) {
	v.start = time.Now()
	res, err := cs.CallTool(v.ctx, &mcp.CallToolParams{Name: c.cfg.Tool, Arguments: v.args})
	v.end = time.Now()
	switch {
	case err != nil:
		v.failed = fmt.Sprintf("the call failed: %v", err)
	case res.IsError:
		v.failed = "the tool returned an error: " + oneLine(resultText(res), 200)
	default:
		v.res = res
	}
}

// look calls the tool with the large arguments args and reads what it
// returned: the descriptor, the file and the recipes, which it runs.
func (c *checker) look(ctx context.Context, label string, args map[string]any, detail string) *view {
	v := &view{c: c, ctx: ctx, label: label, args: args, detail: detail, found: map[string][]string{}}
	if c.call(v, c.cs); v.res != nil {
		v.desc = findDescriptor(v.res, false)
	}
	if v.desc == nil {
		v.blocker = "depends on L1.offload.large"
		return v
	}
	v.summary, _ = v.desc["summary"].(map[string]any)
	c.readFile(v)
	p, _ := v.desc["file_path"].(string)
	_, hasHandle := v.desc["handle"]
	v.nameOp, _, _ = c.parseName(filepath.Base(p), hasHandle)
	if f := v.file; f != nil {
		if c.fullCount < 0 {
			c.fullCount = len(f.lines)
		}
		if f.fetched {
			c.fetched++
		} else {
			c.local[f.path] = v.start
		}
		dir := c.srv.OutputDir
		if dir == "" && !f.fetched {
			dir = filepath.Dir(f.path)
		}
		if c.srv.CleanupInterval > 0 && dir != "" && c.plant == nil && c.cfg.Level >= 2 {
			c.plantExpired(dir, cmp.Or(v.nameOp, c.srv.Operation)) // once the server has made its folder
		}
	}
	if c.cfg.Level >= 2 {
		c.readRecipes(v)
	}
	return v
}

// lookFallback calls the fallback session with the large arguments.
func (c *checker) lookFallback(ctx context.Context) *view {
	v := &view{c: c, ctx: ctx, label: "fallback", args: c.cfg.Large}
	if c.cfg.Fallback == nil {
		v.blocker = "no Config.Fallback: give a session to an instance of the server whose output folder cannot be written"
		return v
	}
	if c.call(v, c.cfg.Fallback); v.res != nil {
		v.desc = findDescriptor(v.res, true)
	}
	if v.res == nil || v.desc != nil {
		v.blocker = "depends on L3.fallback.succeeds"
	}
	return v
}

// readFile reads the file the descriptor names: at file_path on this
// machine, or else with resources/read of the handle's resource link.
func (c *checker) readFile(v *view) {
	raw, problem, read := v.desc["file_path"], "", false
	p, _ := raw.(string)
	_, hasHandle := v.desc["handle"]
	var data []byte
	fi, err := os.Stat(p)
	switch {
	case !filepath.IsAbs(p):
		problem = fmt.Sprintf("file_path is %s, want an absolute path", jsonText(raw))
	case err != nil && hasHandle:
		// The result is on the server: file_path is where a client that
		// downloads it keeps it.
	case err != nil:
		problem = fmt.Sprintf("file_path names no file the client can read, and the descriptor has no handle to fetch it by: %v", err)
	case !fi.Mode().IsRegular():
		problem = fmt.Sprintf("file_path %q is not a regular file (%s)", p, fi.Mode().Type())
	default:
		data, err = os.ReadFile(p)
		read = err == nil
		if !read {
			problem = fmt.Sprintf("reading file_path: %v", err)
		}
	}
	v.noFile = "depends on L1.descriptor.file_path"
	if problem != "" {
		v.found[idPath] = []string{problem}
	}
	if hasHandle {
		fetched := c.readHandle(v, data)
		switch {
		case problem != "" || read:
		case fetched == nil:
			v.noFile = "depends on " + idHandle
		default:
			v.file = parseFile(p, fetched)
			v.file.fetched = true
		}
	}
	if read {
		v.file = parseFile(p, data)
	}
}

// parseFile splits an offloaded file into its header and record lines.
func parseFile(path string, data []byte) *fileView {
	f := &fileView{path: path, data: data}
	if len(data) == 0 {
		return f
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	for i := range lines {
		lines[i] = bytes.TrimSuffix(lines[i], []byte("\r"))
	}
	_ = json.Unmarshal(lines[0], &f.header) // nil unless line 1 is an object
	f.lines = lines[1:]
	for i, l := range f.lines {
		var v any
		if json.Unmarshal(l, &v) == nil {
			f.records, f.lineOf = append(f.records, v), append(f.lineOf, i+2)
		} else {
			f.bad = append(f.bad, i)
		}
	}
	return f
}

// doc is a JSON document of a result, and where it is.
type doc struct {
	where string
	v     any
}

// resultDocs returns the JSON documents of a result: its structuredContent
// and every text content that is one JSON value.
func resultDocs(res *mcp.CallToolResult) []doc {
	if res == nil {
		return nil
	}
	var docs []doc
	var v any
	data, err := json.Marshal(res.StructuredContent)
	if err == nil && res.StructuredContent != nil && json.Unmarshal(data, &v) == nil {
		docs = append(docs, doc{"structuredContent", v})
	}
	for i, ct := range res.Content {
		var v any
		if tc, ok := ct.(*mcp.TextContent); ok && json.Unmarshal([]byte(tc.Text), &v) == nil {
			docs = append(docs, doc{fmt.Sprintf("content[%d]", i), v})
		}
	}
	return docs
}

// findDescriptor returns the descriptor in res: a JSON object in
// structuredContent or in a text content that has offloaded: true or, unless
// strict, an offloaded or file_path key at all.
func findDescriptor(res *mcp.CallToolResult, strict bool) map[string]any {
	for _, d := range resultDocs(res) {
		m, _ := d.v.(map[string]any)
		_, hasFlag := m["offloaded"]
		_, hasFilePath := m["file_path"]
		if m["offloaded"] == true || !strict && (hasFlag || hasFilePath) {
			return m
		}
	}
	return nil
}

func resultText(res *mcp.CallToolResult) string {
	var texts []string
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	return strings.Join(texts, "\n")
}

func jsonText(v any) string {
	if v == nil {
		return "null or missing"
	}
	b, _ := json.Marshal(v) // a decoded JSON value
	return oneLine(string(b), 80)
}

// str returns v if it is a string, else "".
func str(v any) string {
	s, _ := v.(string)
	return s
}

// asInt returns v as an integer when it is a JSON integer.
func asInt(v any) (int64, bool) {
	n, ok := v.(float64)
	return int64(n), ok && n == math.Trunc(n) && math.Abs(n) < 1<<53
}

// walk calls visit on every object key of v, sorted, with its path, and on
// every array with the key "".
func walk(v any, path string, visit func(path, key string, v any)) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			visit(path, k, x[k])
			walk(x[k], path+"."+k, visit)
		}
	case []any:
		visit(path, "", x)
		for i, e := range x {
			walk(e, fmt.Sprintf("%s[%d]", path, i), visit)
		}
	}
}
