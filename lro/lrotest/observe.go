package lrotest

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oklog/ulid/v2"

	"github.com/zircote/lro-go/internal/jqcmd"
	"github.com/zircote/lro-go/internal/spec"
	"github.com/zircote/lro-go/lro/internal/describe"
	"github.com/zircote/lro-go/lro/internal/offload"
)

// idHandle and idPath are the requirements of handles and of file_path,
// whose problems an [observed] keeps.
const (
	idHandle = "L1.descriptor.handle"
	idPath   = "L1.descriptor.file_path"
)

// maxRecipeOutput caps what is kept of a recipe's standard output, and the
// size of another file a recipe reads.
const maxRecipeOutput = 256 << 20

// observed is what the kit saw of one call. Reading the file, it records
// the problems of file_path and of the handle (Found); the checks judge the
// rest. The reasons it gives for something missing name the requirements.
type observed struct {
	Label      string
	Args       map[string]any
	Detail     string // the detail level the file must have; "" when unknown
	Start, End time.Time

	Result    *mcp.CallToolResult
	Failed    string         // why the call failed
	Desc      map[string]any // the descriptor
	Summary   map[string]any
	File      *offloadFile
	NameOp    string              // the operation of the file name
	Found     map[string][]string // problems found while reading the file, by requirement
	Recipes   []*recipe           // the recipes with a command, when jq_recipes is an array
	Blocker   string              // why the call gave no descriptor (or, for the fallback, no inline result)
	NoFile    string              // why File is nil
	NoRecipes string              // why Recipes is nil
}

// offloadFile is an offloaded file as read by the kit.
type offloadFile struct {
	Path    string // the descriptor's file_path
	Fetched bool   // Data was fetched with resources/read, not read at Path
	Data    []byte
	Header  map[string]any // nil unless line 1 is a JSON object
	Lines   [][]byte       // record lines (line 2 on)
	Records []any          // the record lines that decoded
	LineOf  []int          // the line number of each record
	Bad     []int          // the indexes in Lines of those that did not
}

// recipe is one recipe with a command, as the kit understands it.
type recipe struct {
	N       int // 1-based
	Command string
	Parsed  *jqcmd.Command // nil when the command is outside the subset
	Refs    jqcmd.Refs     // field paths of the filter; zero with RefsErr
	RefsErr error
	Err     error // why the run failed
	Stdout  []byte
}

// planted is what the cleanup check put in the output folder.
type planted struct {
	Expired, Decoy string
	At             time.Time // when they were planted
	Created        time.Time // the expired file's created_at
	Err            error     // why nothing was planted
}

const fetchedText = "fetched with resources/read of their resource_link, " +
	"and the recipes ran on what was fetched in place of file_path"

// how says how the recipes ran and how the files were read.
func (c *checker) how() (recipes, files string) {
	recipes, files = fmt.Sprintf("with %s (%s), no shell", c.jqVersion, c.jq), "none read"
	switch {
	case c.cfg.Level < 2:
		recipes = "not at all (Level 1 does not run them)"
	case c.jq == "":
		recipes = "in process with github.com/itchyny/gojq (jq's options mirrored; object keys come out sorted)"
	}
	switch local := len(c.local); {
	case c.fetched == 0 && local > 0:
		files = "read from file_path on this machine"
	case local == 0 && c.fetched > 0:
		files = fetchedText
	case local > 0:
		files = fmt.Sprintf("%d read from file_path on this machine, %d %s", local, c.fetched, fetchedText)
	}
	return recipes, files
}

// call calls the tool on cs with o.Args and records the result, or why the
// call failed.
func (c *checker) call(ctx context.Context, o *observed, cs *mcp.ClientSession) {
	o.Start = time.Now()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.cfg.Tool, Arguments: o.Args})
	o.End = time.Now()
	switch {
	case err != nil:
		o.Failed = fmt.Sprintf("the call failed: %v", err)
	case res.IsError:
		o.Failed = "the tool returned an error: " + oneLine(resultText(res), 200)
	default:
		o.Result = res
	}
}

// small calls the tool with the small arguments args, unless they are nil.
func (c *checker) small(ctx context.Context, args map[string]any) *observed {
	o := &observed{Label: "small", Args: args}
	if args != nil {
		c.call(ctx, o, c.cs)
	}
	return o
}

// look calls the tool with the large arguments args and reads what it
// returned: the descriptor, the file and the recipes, which it runs.
func (c *checker) look(ctx context.Context, label string, args map[string]any, detail string) *observed {
	o := &observed{Label: label, Args: args, Detail: detail, Found: map[string][]string{}}
	if c.call(ctx, o, c.cs); o.Result != nil {
		o.Desc = findDescriptor(o.Result, false)
	}
	if o.Desc == nil {
		o.Blocker = "depends on L1.offload.large"
		return o
	}
	o.Summary, _ = o.Desc["summary"].(map[string]any)
	c.readFile(ctx, o)
	if f := o.File; f != nil {
		if c.fullCount < 0 {
			c.fullCount = len(f.Lines)
		}
		if f.Fetched {
			c.fetched++
		} else {
			c.local[f.Path] = o.Start
		}
		dir := c.srv.OutputDir
		if dir == "" && !f.Fetched {
			dir = filepath.Dir(f.Path)
		}
		if c.srv.CleanupInterval > 0 && c.cfg.Level >= 2 && dir != "" && c.planted == nil {
			c.plantExpired(dir, cmp.Or(o.NameOp, c.srv.Operation)) // once the server has made its folder
		}
	}
	if c.cfg.Level >= 2 {
		c.readRecipes(ctx, o)
	}
	return o
}

// lookFallback calls the fallback session cs, if not nil, with the large
// arguments args.
func (c *checker) lookFallback(ctx context.Context, cs *mcp.ClientSession, args map[string]any) *observed {
	o := &observed{Label: "fallback", Args: args}
	if cs == nil {
		o.Blocker = "no Config.Fallback: give a session to an instance of the server whose output folder cannot be written"
		return o
	}
	if c.call(ctx, o, cs); o.Result != nil {
		o.Desc = findDescriptor(o.Result, true)
	}
	if o.Result == nil || o.Desc != nil {
		o.Blocker = "depends on L3.fallback.succeeds"
	}
	return o
}

// readFile reads the file the descriptor names: at file_path on this
// machine, or else with resources/read of the handle's resource link. It
// sets o.NameOp from file_path.
func (c *checker) readFile(ctx context.Context, o *observed) {
	raw, problem, read := o.Desc["file_path"], "", false
	p, _ := raw.(string)
	_, hasHandle := o.Desc["handle"]
	o.NameOp, _, _ = c.parseName(filepath.Base(p), hasHandle)
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
	o.NoFile = "depends on " + idPath
	if problem != "" {
		o.Found[idPath] = []string{problem}
	}
	if hasHandle {
		fetched := c.readHandle(ctx, o, data)
		switch {
		case problem != "" || read:
		case fetched == nil:
			o.NoFile = "depends on " + idHandle
		default:
			o.File = parseFile(p, fetched)
			o.File.Fetched = true
		}
	}
	if read {
		o.File = parseFile(p, data)
	}
}

// unknownWords are what an error about an unknown handle says.
var unknownWords = regexp.MustCompile(`(?i)unknown|not found|no such|does not exist|expired`)

// readHandle checks the handle of the descriptor and the resource link that
// goes with it, reads the file with resources/read, and returns its bytes,
// or nil when they could not be read. local is the content of file_path
// when that is on this machine, to compare with; nil otherwise.
func (c *checker) readHandle(ctx context.Context, o *observed, local []byte) []byte {
	fail := func(format string, args ...any) {
		o.Found[idHandle] = append(o.Found[idHandle], fmt.Sprintf(format, args...))
	}
	h, ok := o.Desc["handle"].(string)
	if !ok || h == "" {
		fail("handle is %s, want a non-empty string", jsonText(o.Desc["handle"]))
		return nil
	}
	uri := describe.ResultURIPrefix + h
	var link *mcp.ResourceLink
	var others []string
	for _, ct := range o.Result.Content {
		if l, ok := ct.(*mcp.ResourceLink); ok && l.URI == uri && link == nil {
			link = l
		} else if ok {
			others = append(others, strconv.Quote(l.URI))
		}
	}
	switch {
	case link == nil && len(others) == 0:
		fail("no resource_link follows the descriptor: want one to %s, the handle's resource", uri)
		return nil
	case link == nil:
		fail("the result links %s, not %s, the handle's resource", strings.Join(others, ", "), uri)
		return nil
	case link.MIMEType != spec.ContentType:
		fail("the resource_link's mimeType is %q, want %q", link.MIMEType, spec.ContentType)
	}
	rr, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		fail("resources/read of %s failed: %v", uri, oneLine(err.Error(), 300))
		return nil
	} else if len(rr.Contents) != 1 {
		fail("resources/read of %s returned %d contents, want 1", uri, len(rr.Contents))
	}
	if len(rr.Contents) == 0 {
		return nil
	}
	got := rr.Contents[0]
	if got.URI != uri || got.MIMEType != spec.ContentType {
		fail("resources/read of %s returned the content of %q, of type %q", uri, got.URI, got.MIMEType)
	}
	data := []byte(got.Text)
	if got.Text == "" && got.Blob != nil {
		data = got.Blob
	}
	if link.Size != nil && *link.Size != int64(len(data)) {
		fail("resources/read of %s returned %d bytes, but the resource_link's size is %d", uri, len(data), *link.Size)
	}
	if local != nil && !bytes.Equal(local, data) {
		n := 0
		for n < min(len(local), len(data)) && local[n] == data[n] {
			n++
		}
		fail("resources/read of %s returned %d bytes that differ from file_path's %d bytes, first on line %d",
			uri, len(data), len(local), 1+bytes.Count(local[:n], []byte("\n")))
	}
	// A handle of the same form that the server never gave: the last
	// character before the extension changed.
	i := strings.LastIndexByte(h, '.')
	if i <= 0 {
		i = len(h)
	}
	other := describe.ResultURIPrefix + h[:i-1] + map[bool]string{true: "1", false: "0"}[h[i-1] == '0'] + h[i:]
	if _, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: other}); err == nil {
		fail("resources/read of %s, a handle the server never gave, returned a resource, want an error saying it is unknown", other)
	} else if !unknownWords.MatchString(err.Error()) {
		fail("resources/read of %s, a handle the server never gave, failed without saying that it is unknown: %v", other, oneLine(err.Error(), 200))
	}
	return data
}

// parseFile splits an offloaded file into its header and record lines.
func parseFile(path string, data []byte) *offloadFile {
	f := &offloadFile{Path: path, Data: data}
	if len(data) == 0 {
		return f
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	for i := range lines {
		lines[i] = bytes.TrimSuffix(lines[i], []byte("\r"))
	}
	_ = json.Unmarshal(lines[0], &f.Header) // nil unless line 1 is an object
	f.Lines = lines[1:]
	for i, l := range f.Lines {
		// A number beyond float64's range is valid JSON, which
		// json.Unmarshal refuses and jq reads.
		if v, err := jqcmd.Decode(l); err == nil {
			f.Records, f.LineOf = append(f.Records, v), append(f.LineOf, i+2)
		} else {
			f.Bad = append(f.Bad, i)
		}
	}
	return f
}

// readRecipes reads the recipes of the descriptor and, when the kit has
// the file, runs them.
func (c *checker) readRecipes(ctx context.Context, o *observed) {
	list, isList := o.Desc["jq_recipes"].([]any)
	if !isList {
		o.NoRecipes = "depends on L2.recipes.count"
		if _, ok := o.Desc["jq_recipes"]; !ok {
			o.NoRecipes = "depends on L2.descriptor.fields"
		}
		return
	}
	o.Recipes = []*recipe{}
	for i, e := range list {
		m, _ := e.(map[string]any)
		r := &recipe{N: i + 1, Command: str(m["command"])}
		if strings.TrimSpace(r.Command) == "" {
			continue
		}
		if r.Parsed, r.RefsErr = jqcmd.Parse(r.Command); r.Parsed != nil {
			r.Refs, r.RefsErr = jqcmd.FieldRefs(r.Parsed.JQ.Filter)
		}
		o.Recipes = append(o.Recipes, r)
	}
	if o.File == nil {
		return
	}
	for _, r := range o.Recipes {
		ctx, cancel := context.WithTimeout(ctx, recipeTimeout)
		r.Stdout, r.Err = c.runRecipe(ctx, r, o.File)
		cancel()
	}
}

// runRecipe runs a recipe, from the server under test, on the offloaded
// file f with jq (c.jq) or, when c.jq is "", in process: only a command that
// jqcmd.Parse read, and with no shell (see jqcmd.Command.Run). A command
// that reads f.Path reads f.Data, which may have been fetched.
func (c *checker) runRecipe(ctx context.Context, r *recipe, f *offloadFile) ([]byte, error) {
	if r.Parsed == nil {
		return nil, fmt.Errorf("not run: the kit runs only tail -n +2 FILE | jq ... (or cat FILE | jq ..., jq ... FILE) with plain quoted words: %w", r.RefsErr)
	}
	return r.Parsed.Run(ctx, c.jq, f.Path, f.Data, maxRecipeOutput)
}

// plantExpired plants in dir a file named by the convention whose ULID time
// and modification time lie the TTL plus one minute in the past, and an
// unrelated file, and records them in c.planted.
func (c *checker) plantExpired(dir, op string) {
	op = cmp.Or(op, "lrotest")
	p := &planted{At: time.Now()}
	c.planted = p
	p.Created = p.At.Add(-c.srv.TTL - time.Minute)
	id, err := ulid.New(ulid.Timestamp(p.Created), rand.Reader)
	if p.Err = errors.Join(err, os.MkdirAll(dir, 0o700)); p.Err != nil {
		return
	}
	header, _ := json.Marshal(map[string]any{
		"type": "lro_header", "operation": op, "query": nil, "count": 0, "schema_version": "1.0",
		"timestamp": p.Created.UTC().Format(time.RFC3339Nano), "estimated_tokens": 0, "detail": "light",
	})
	p.Expired = filepath.Join(dir, fmt.Sprintf("%s-%s-%s.jsonl", c.srv.Prefix, op, id))
	p.Decoy = filepath.Join(dir, fmt.Sprintf("lrotest-%s.txt", id))
	// The file is made complete, times included, under a name no janitor
	// matches, and then renamed: a janitor that sweeps at any moment sees
	// either nothing or the whole expired file.
	staging := filepath.Join(dir, fmt.Sprintf("lrotest-%s.staging", id))
	if p.Err = writeAt(staging, append(header, '\n'), p.Created); p.Err == nil {
		p.Err = os.Rename(staging, p.Expired)
	}
	if p.Err == nil {
		p.Err = writeAt(p.Decoy, []byte("planted by lrotest: not an offloaded file, must be kept\n"), p.Created)
	}
	_ = os.Remove(staging)
}

// remove removes what was planted, if anything.
func (p *planted) remove() {
	for _, path := range []string{p.Expired, p.Decoy} {
		_ = os.Remove(path) // planted, or never made ("")
	}
}

// waitGone waits until nothing is at path, until deadline or until ctx is
// done, and reports whether nothing is.
func waitGone(ctx context.Context, path string, deadline time.Time) bool {
	for {
		if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
			return true
		}
		if !time.Now().Before(deadline) || ctx.Err() != nil {
			return false
		}
		select {
		case <-ctx.Done():
		case <-time.After(min(25*time.Millisecond, time.Until(deadline))):
		}
	}
}

func writeAt(path string, data []byte, at time.Time) error {
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return err
	}
	return os.Chtimes(path, at, at)
}

// parseName parses a file name {prefix}-{operation}-{ulid}.jsonl, or, when
// random is set, also {prefix}-{operation}-{ulid}-{random}.jsonl with at
// least 128 bits of random in lower-case hex: a handle's name.
func (c *checker) parseName(base string, random bool) (op string, id ulid.ULID, ok bool) {
	suffix := ``
	if random {
		suffix = `(?:-[0-9a-f]{32,})?`
	}
	m := regexp.MustCompile(`^` + regexp.QuoteMeta(c.srv.Prefix) + `-(.+)-([0-9A-HJKMNP-TV-Z]{26})` + suffix + `\.jsonl$`).FindStringSubmatch(base)
	if m == nil {
		return "", id, false
	}
	id, err := ulid.ParseStrict(m[2])
	return m[1], id, err == nil
}

// wholeResult returns the texts a client would have received of the result
// a file keeps whole (its header's "result", the records put back): every
// text item and the structured content's JSON; nil for a file without one.
func (f *offloadFile) wholeResult() [][]byte {
	var h offload.FileHeader
	line, _, _ := bytes.Cut(f.Data, []byte("\n"))
	if f.Header["result"] == nil || json.Unmarshal(line, &h) != nil {
		return nil
	}
	var res struct {
		Content           []struct{ Type, Text string }
		StructuredContent json.RawMessage
	}
	rebuilt, err := offload.Rebuild(h, f.Lines)
	if err == nil && json.Unmarshal(rebuilt, &res) == nil {
		var texts [][]byte
		for _, c := range res.Content {
			if c.Type == "text" {
				texts = append(texts, []byte(c.Text))
			}
		}
		if res.StructuredContent != nil {
			texts = append(texts, res.StructuredContent)
		}
		return texts
	}
	// The lines do not fit the header (other checks say why): count them,
	// twice when a text repeated them, beside the rest.
	texts := append([][]byte{h.Result}, f.Lines...)
	if len(h.Copies) > 0 {
		texts = append(texts, f.Lines...)
	}
	return texts
}

// hasPath reports whether path leads somewhere in v, the records of an
// [offloadFile], looking through arrays at every step.
func hasPath(v any, path []string) bool {
	if len(path) == 0 {
		return true
	}
	switch x := v.(type) {
	case map[string]any:
		child, ok := x[path[0]]
		return ok && hasPath(child, path[1:])
	case []any:
		return slices.ContainsFunc(x, func(e any) bool { return hasPath(e, path) })
	}
	return false
}

func resolveSchema(schema any) (*jsonschema.Resolved, error) {
	var s jsonschema.Schema
	data, err := json.Marshal(schema)
	if err = errors.Join(err, json.Unmarshal(data, &s)); err != nil {
		return nil, err
	}
	return s.Resolve(nil)
}

// mustResolve is [resolveSchema] of a JSON text, for the kit's own schemas.
func mustResolve(schema string) *jsonschema.Resolved {
	r, err := resolveSchema(json.RawMessage(schema))
	if err != nil {
		panic(err)
	}
	return r
}

// sameDir reports whether a and b are the same folder, symbolic links
// resolved where they can be.
func sameDir(a, b string) bool {
	real := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	return real(a) == real(b)
}

// longestRecords returns the longest array of objects in the JSON
// documents of res, and where it is; where is "" when there is none.
func longestRecords(res *mcp.CallToolResult) (arr []any, where string) {
	for _, d := range resultDocs(res) {
		walk(d.Value, d.Where, func(path, k string, x any) {
			a, ok := x.([]any)
			for _, e := range a {
				_, obj := e.(map[string]any)
				ok = ok && obj
			}
			if ok && k == "" && (where == "" || len(a) > len(arr)) {
				arr, where = a, path
			}
		})
	}
	return arr, where
}

// jsonDoc is a JSON document of a result, and where it is.
type jsonDoc struct {
	Where string
	Value any
}

// resultDocs returns the JSON documents of a result: its structuredContent
// and every text content that is one JSON value.
func resultDocs(res *mcp.CallToolResult) []jsonDoc {
	if res == nil {
		return nil
	}
	var docs []jsonDoc
	if res.StructuredContent != nil { // decoded by the client, as any
		docs = append(docs, jsonDoc{"structuredContent", res.StructuredContent})
	}
	for i, ct := range res.Content {
		var v any
		if tc, ok := ct.(*mcp.TextContent); ok && json.Unmarshal([]byte(tc.Text), &v) == nil {
			docs = append(docs, jsonDoc{fmt.Sprintf("content[%d]", i), v})
		}
	}
	return docs
}

// findDescriptor returns the descriptor in res: a JSON object in
// structuredContent or in a text content that has offloaded: true or, unless
// strict, an offloaded or file_path key at all.
func findDescriptor(res *mcp.CallToolResult, strict bool) map[string]any {
	for _, d := range resultDocs(res) {
		m, _ := d.Value.(map[string]any)
		_, hasFlag := m["offloaded"]
		_, hasFilePath := m["file_path"]
		if m["offloaded"] == true || !strict && (hasFlag || hasFilePath) {
			return m
		}
	}
	return nil
}

// resultText returns the text contents of res, one per line.
func resultText(res *mcp.CallToolResult) string {
	var texts []string
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// jsonText returns a decoded JSON value as short JSON text.
func jsonText(v any) string {
	if v == nil {
		return "null or missing"
	}
	b, _ := json.Marshal(v) // a decoded JSON value
	return oneLine(string(b), 80)
}

// oneLine shortens s to one line of at most n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if rs := []rune(s); len(rs) > n {
		return string(rs[:n-1]) + "…"
	}
	return s
}

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
