// Package observe makes the calls of lro/lrotest's check and reads what
// they give: the result, its descriptor, the offloaded file (read at
// file_path, or fetched with resources/read of its handle), the recipes
// (run with internal/jqcmd), and the expired file planted for the cleanup
// check. It records the problems it meets while reading the file
// (Call.Found, for L1.descriptor.file_path and L1.descriptor.handle);
// lro/lrotest judges the rest. The reasons it gives for something missing
// name the kit's requirements.
package observe

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

// IDHandle and IDPath are the requirements of handles and of file_path,
// whose problems a [Call] keeps.
const (
	IDHandle = "L1.descriptor.handle"
	IDPath   = "L1.descriptor.file_path"
)

// maxRecipeOutput caps what is kept of a recipe's standard output, and the
// size of another file a recipe reads.
const maxRecipeOutput = 256 << 20

// Server is the server under check, and what its calls have given so far.
// Local must not be nil, and FullCount starts at -1.
type Server struct {
	Session       *mcp.ClientSession
	Tool          string
	Prefix        string        // of file names
	Operation     string        // the operation expected, if known
	OutputDir     string        // the output folder, if known
	TTL           time.Duration // how long the server keeps files
	RunRecipes    bool          // read and run the recipes
	Plant         bool          // plant an expired file once the server has made its folder
	JQ            string        // the path of jq; "" to run recipes in process
	JQVersion     string        // what jq --version printed
	RecipeTimeout time.Duration // bounds each recipe's run

	Local     map[string]time.Time // files read from file_path on this machine, and when they were written
	Fetched   int                  // files fetched with resources/read
	FullCount int                  // records of the first offloaded file, or -1
	Planted   *Planted             // what was planted, once it was
}

// Call is what the kit saw of one call.
type Call struct {
	Label      string
	Args       map[string]any
	Detail     string // the detail level the file must have; "" when unknown
	Start, End time.Time

	Result    *mcp.CallToolResult
	Failed    string         // why the call failed
	Desc      map[string]any // the descriptor
	Summary   map[string]any
	File      *File
	NameOp    string              // the operation of the file name
	Found     map[string][]string // problems found while reading the file, by requirement
	Recipes   []*Recipe           // the recipes with a command, when jq_recipes is an array
	Blocker   string              // why the call gave no descriptor (or, for the fallback, no inline result)
	NoFile    string              // why File is nil
	NoRecipes string              // why Recipes is nil
}

// File is an offloaded file as read by the kit.
type File struct {
	Path    string // the descriptor's file_path
	Fetched bool   // Data was fetched with resources/read, not read at Path
	Data    []byte
	Header  map[string]any // nil unless line 1 is a JSON object
	Lines   [][]byte       // record lines (line 2 on)
	Records []any          // the record lines that decoded
	LineOf  []int          // the line number of each record
	Bad     []int          // the indexes in Lines of those that did not
}

// Recipe is one recipe with a command, as the kit understands it.
type Recipe struct {
	N       int // 1-based
	Command string
	Parsed  *jqcmd.Command // nil when the command is outside the subset
	Refs    jqcmd.Refs     // field paths of the filter; zero with RefsErr
	RefsErr error
	Err     error // why the run failed
	Stdout  []byte
}

// Planted is what the cleanup check put in the output folder.
type Planted struct {
	Expired, Decoy string
	At             time.Time // when they were planted
	Created        time.Time // the expired file's created_at
	Err            error     // why nothing was planted
}

const fetchedText = "fetched with resources/read of their resource_link, " +
	"and the recipes ran on what was fetched in place of file_path"

// How says how the recipes ran and how the files were read.
func (s *Server) How() (recipes, files string) {
	recipes, files = fmt.Sprintf("with %s (%s), no shell", s.JQVersion, s.JQ), "none read"
	switch {
	case !s.RunRecipes:
		recipes = "not at all (Level 1 does not run them)"
	case s.JQ == "":
		recipes = "in process with github.com/itchyny/gojq (jq's options mirrored; object keys come out sorted)"
	}
	switch local := len(s.Local); {
	case s.Fetched == 0 && local > 0:
		files = "read from file_path on this machine"
	case local == 0 && s.Fetched > 0:
		files = fetchedText
	case local > 0:
		files = fmt.Sprintf("%d read from file_path on this machine, %d %s", local, s.Fetched, fetchedText)
	}
	return recipes, files
}

// call calls the tool on cs with c.Args and records the result, or why the
// call failed.
func (s *Server) call(ctx context.Context, c *Call, cs *mcp.ClientSession) {
	c.Start = time.Now()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: s.Tool, Arguments: c.Args})
	c.End = time.Now()
	switch {
	case err != nil:
		c.Failed = fmt.Sprintf("the call failed: %v", err)
	case res.IsError:
		c.Failed = "the tool returned an error: " + OneLine(ResultText(res), 200)
	default:
		c.Result = res
	}
}

// Small calls the tool with the small arguments args, unless they are nil.
func (s *Server) Small(ctx context.Context, args map[string]any) *Call {
	c := &Call{Label: "small", Args: args}
	if args != nil {
		s.call(ctx, c, s.Session)
	}
	return c
}

// Look calls the tool with the large arguments args and reads what it
// returned: the descriptor, the file and the recipes, which it runs.
func (s *Server) Look(ctx context.Context, label string, args map[string]any, detail string) *Call {
	c := &Call{Label: label, Args: args, Detail: detail, Found: map[string][]string{}}
	if s.call(ctx, c, s.Session); c.Result != nil {
		c.Desc = FindDescriptor(c.Result, false)
	}
	if c.Desc == nil {
		c.Blocker = "depends on L1.offload.large"
		return c
	}
	c.Summary, _ = c.Desc["summary"].(map[string]any)
	s.readFile(ctx, c)
	if f := c.File; f != nil {
		if s.FullCount < 0 {
			s.FullCount = len(f.Lines)
		}
		if f.Fetched {
			s.Fetched++
		} else {
			s.Local[f.Path] = c.Start
		}
		dir := s.OutputDir
		if dir == "" && !f.Fetched {
			dir = filepath.Dir(f.Path)
		}
		if s.Plant && dir != "" && s.Planted == nil {
			s.PlantExpired(dir, cmp.Or(c.NameOp, s.Operation)) // once the server has made its folder
		}
	}
	if s.RunRecipes {
		s.readRecipes(ctx, c)
	}
	return c
}

// LookFallback calls the fallback session cs, if not nil, with the large
// arguments args.
func (s *Server) LookFallback(ctx context.Context, cs *mcp.ClientSession, args map[string]any) *Call {
	c := &Call{Label: "fallback", Args: args}
	if cs == nil {
		c.Blocker = "no Config.Fallback: give a session to an instance of the server whose output folder cannot be written"
		return c
	}
	if s.call(ctx, c, cs); c.Result != nil {
		c.Desc = FindDescriptor(c.Result, true)
	}
	if c.Result == nil || c.Desc != nil {
		c.Blocker = "depends on L3.fallback.succeeds"
	}
	return c
}

// readFile reads the file the descriptor names: at file_path on this
// machine, or else with resources/read of the handle's resource link. It
// sets c.NameOp from file_path.
func (s *Server) readFile(ctx context.Context, c *Call) {
	raw, problem, read := c.Desc["file_path"], "", false
	p, _ := raw.(string)
	_, hasHandle := c.Desc["handle"]
	c.NameOp, _, _ = s.ParseName(filepath.Base(p), hasHandle)
	var data []byte
	fi, err := os.Stat(p)
	switch {
	case !filepath.IsAbs(p):
		problem = fmt.Sprintf("file_path is %s, want an absolute path", JSONText(raw))
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
	c.NoFile = "depends on " + IDPath
	if problem != "" {
		c.Found[IDPath] = []string{problem}
	}
	if hasHandle {
		fetched := s.readHandle(ctx, c, data)
		switch {
		case problem != "" || read:
		case fetched == nil:
			c.NoFile = "depends on " + IDHandle
		default:
			c.File = parseFile(p, fetched)
			c.File.Fetched = true
		}
	}
	if read {
		c.File = parseFile(p, data)
	}
}

// unknownWords are what an error about an unknown handle says.
var unknownWords = regexp.MustCompile(`(?i)unknown|not found|no such|does not exist|expired`)

// readHandle checks the handle of the descriptor and the resource link that
// goes with it, reads the file with resources/read, and returns its bytes,
// or nil when they could not be read. local is the content of file_path
// when that is on this machine, to compare with; nil otherwise.
func (s *Server) readHandle(ctx context.Context, c *Call, local []byte) []byte {
	fail := func(format string, args ...any) {
		c.Found[IDHandle] = append(c.Found[IDHandle], fmt.Sprintf(format, args...))
	}
	h, ok := c.Desc["handle"].(string)
	if !ok || h == "" {
		fail("handle is %s, want a non-empty string", JSONText(c.Desc["handle"]))
		return nil
	}
	uri := describe.ResultURIPrefix + h
	var link *mcp.ResourceLink
	var others []string
	for _, ct := range c.Result.Content {
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
	rr, err := s.Session.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		fail("resources/read of %s failed: %v", uri, OneLine(err.Error(), 300))
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
	if _, err := s.Session.ReadResource(ctx, &mcp.ReadResourceParams{URI: other}); err == nil {
		fail("resources/read of %s, a handle the server never gave, returned a resource, want an error saying it is unknown", other)
	} else if !unknownWords.MatchString(err.Error()) {
		fail("resources/read of %s, a handle the server never gave, failed without saying that it is unknown: %v", other, OneLine(err.Error(), 200))
	}
	return data
}

// parseFile splits an offloaded file into its header and record lines.
func parseFile(path string, data []byte) *File {
	f := &File{Path: path, Data: data}
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
		var v any
		if json.Unmarshal(l, &v) == nil {
			f.Records, f.LineOf = append(f.Records, v), append(f.LineOf, i+2)
		} else {
			f.Bad = append(f.Bad, i)
		}
	}
	return f
}

// readRecipes reads the recipes of the descriptor and, when the kit has
// the file, runs them.
func (s *Server) readRecipes(ctx context.Context, c *Call) {
	list, isList := c.Desc["jq_recipes"].([]any)
	if !isList {
		c.NoRecipes = "depends on L2.recipes.count"
		if _, ok := c.Desc["jq_recipes"]; !ok {
			c.NoRecipes = "depends on L2.descriptor.fields"
		}
		return
	}
	c.Recipes = []*Recipe{}
	for i, e := range list {
		m, _ := e.(map[string]any)
		r := &Recipe{N: i + 1, Command: Str(m["command"])}
		if strings.TrimSpace(r.Command) == "" {
			continue
		}
		if r.Parsed, r.RefsErr = jqcmd.Parse(r.Command); r.Parsed != nil {
			r.Refs, r.RefsErr = jqcmd.FieldRefs(r.Parsed.JQ.Filter)
		}
		c.Recipes = append(c.Recipes, r)
	}
	if c.File == nil {
		return
	}
	for _, r := range c.Recipes {
		ctx, cancel := context.WithTimeout(ctx, s.RecipeTimeout)
		r.Stdout, r.Err = s.runRecipe(ctx, r, c.File)
		cancel()
	}
}

// runRecipe runs a recipe, from the server under test, on the offloaded
// file f with jq (s.JQ) or, when s.JQ is "", in process: only a command that
// jqcmd.Parse read, and with no shell (see jqcmd.Command.Run). A command
// that reads f.Path reads f.Data, which may have been fetched.
func (s *Server) runRecipe(ctx context.Context, r *Recipe, f *File) ([]byte, error) {
	if r.Parsed == nil {
		return nil, fmt.Errorf("not run: the kit runs only tail -n +2 FILE | jq ... (or cat FILE | jq ..., jq ... FILE) with plain quoted words: %w", r.RefsErr)
	}
	return r.Parsed.Run(ctx, s.JQ, f.Path, f.Data, maxRecipeOutput)
}

// PlantExpired plants in dir a file named by the convention whose ULID time
// and modification time lie the TTL plus one minute in the past, and an
// unrelated file, and records them in s.Planted.
func (s *Server) PlantExpired(dir, op string) {
	op = cmp.Or(op, "lrotest")
	p := &Planted{At: time.Now()}
	s.Planted = p
	p.Created = p.At.Add(-s.TTL - time.Minute)
	id, err := ulid.New(ulid.Timestamp(p.Created), rand.Reader)
	if p.Err = errors.Join(err, os.MkdirAll(dir, 0o700)); p.Err != nil {
		return
	}
	header, _ := json.Marshal(map[string]any{
		"type": "lro_header", "operation": op, "query": nil, "count": 0, "schema_version": "1.0",
		"timestamp": p.Created.UTC().Format(time.RFC3339Nano), "estimated_tokens": 0, "detail": "light",
	})
	p.Expired = filepath.Join(dir, fmt.Sprintf("%s-%s-%s.jsonl", s.Prefix, op, id))
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

// Remove removes what was planted, if anything.
func (p *Planted) Remove() {
	for _, path := range []string{p.Expired, p.Decoy} {
		_ = os.Remove(path) // planted, or never made ("")
	}
}

// WaitGone waits until nothing is at path, until deadline or until ctx is
// done, and reports whether nothing is.
func WaitGone(ctx context.Context, path string, deadline time.Time) bool {
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

// ParseName parses a file name {prefix}-{operation}-{ulid}.jsonl, or, when
// random is set, also {prefix}-{operation}-{ulid}-{random}.jsonl with at
// least 128 bits of random in lower-case hex: a handle's name.
func (s *Server) ParseName(base string, random bool) (op string, id ulid.ULID, ok bool) {
	suffix := ``
	if random {
		suffix = `(?:-[0-9a-f]{32,})?`
	}
	m := regexp.MustCompile(`^` + regexp.QuoteMeta(s.Prefix) + `-(.+)-([0-9A-HJKMNP-TV-Z]{26})` + suffix + `\.jsonl$`).FindStringSubmatch(base)
	if m == nil {
		return "", id, false
	}
	id, err := ulid.ParseStrict(m[2])
	return m[1], id, err == nil
}

// WholeResult returns the texts a client would have received of the result
// a file keeps whole (its header's "result", the records put back): every
// text item and the structured content's JSON; nil for a file without one.
func (f *File) WholeResult() [][]byte {
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

// HasPath reports whether path leads somewhere in v, the records of a
// [File], looking through arrays at every step.
func HasPath(v any, path []string) bool {
	if len(path) == 0 {
		return true
	}
	switch x := v.(type) {
	case map[string]any:
		child, ok := x[path[0]]
		return ok && HasPath(child, path[1:])
	case []any:
		return slices.ContainsFunc(x, func(e any) bool { return HasPath(e, path) })
	}
	return false
}

// ResolveSchema decodes a JSON Schema and resolves it.
func ResolveSchema(schema any) (*jsonschema.Resolved, error) {
	var s jsonschema.Schema
	data, err := json.Marshal(schema)
	if err = errors.Join(err, json.Unmarshal(data, &s)); err != nil {
		return nil, err
	}
	return s.Resolve(nil)
}

// MustResolve is [ResolveSchema] of a JSON text, for the kit's own schemas.
func MustResolve(schema string) *jsonschema.Resolved {
	r, err := ResolveSchema(json.RawMessage(schema))
	if err != nil {
		panic(err)
	}
	return r
}

// SameDir reports whether a and b are the same folder, symbolic links
// resolved where they can be.
func SameDir(a, b string) bool {
	real := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return filepath.Clean(p)
	}
	return real(a) == real(b)
}

// LongestRecords returns the longest array of objects in the JSON
// documents of res, and where it is; where is "" when there is none.
func LongestRecords(res *mcp.CallToolResult) (arr []any, where string) {
	for _, d := range ResultDocs(res) {
		Walk(d.Value, d.Where, func(path, k string, x any) {
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

// Doc is a JSON document of a result, and where it is.
type Doc struct {
	Where string
	Value any
}

// ResultDocs returns the JSON documents of a result: its structuredContent
// and every text content that is one JSON value.
func ResultDocs(res *mcp.CallToolResult) []Doc {
	if res == nil {
		return nil
	}
	var docs []Doc
	var v any
	data, err := json.Marshal(res.StructuredContent)
	if err == nil && res.StructuredContent != nil && json.Unmarshal(data, &v) == nil {
		docs = append(docs, Doc{"structuredContent", v})
	}
	for i, ct := range res.Content {
		var v any
		if tc, ok := ct.(*mcp.TextContent); ok && json.Unmarshal([]byte(tc.Text), &v) == nil {
			docs = append(docs, Doc{fmt.Sprintf("content[%d]", i), v})
		}
	}
	return docs
}

// FindDescriptor returns the descriptor in res: a JSON object in
// structuredContent or in a text content that has offloaded: true or, unless
// strict, an offloaded or file_path key at all.
func FindDescriptor(res *mcp.CallToolResult, strict bool) map[string]any {
	for _, d := range ResultDocs(res) {
		m, _ := d.Value.(map[string]any)
		_, hasFlag := m["offloaded"]
		_, hasFilePath := m["file_path"]
		if m["offloaded"] == true || !strict && (hasFlag || hasFilePath) {
			return m
		}
	}
	return nil
}

// ResultText returns the text contents of res, one per line.
func ResultText(res *mcp.CallToolResult) string {
	var texts []string
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// JSONText returns a decoded JSON value as short JSON text.
func JSONText(v any) string {
	if v == nil {
		return "null or missing"
	}
	b, _ := json.Marshal(v) // a decoded JSON value
	return OneLine(string(b), 80)
}

// OneLine shortens s to one line of at most n runes.
func OneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if rs := []rune(s); len(rs) > n {
		return string(rs[:n-1]) + "…"
	}
	return s
}

// Str returns v if it is a string, else "".
func Str(v any) string {
	s, _ := v.(string)
	return s
}

// AsInt returns v as an integer when it is a JSON integer.
func AsInt(v any) (int64, bool) {
	n, ok := v.(float64)
	return int64(n), ok && n == math.Trunc(n) && math.Abs(n) < 1<<53
}

// Walk calls visit on every object key of v, sorted, with its path, and on
// every array with the key "".
func Walk(v any, path string, visit func(path, key string, v any)) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			visit(path, k, x[k])
			Walk(x[k], path+"."+k, visit)
		}
	case []any:
		visit(path, "", x)
		for i, e := range x {
			Walk(e, fmt.Sprintf("%s[%d]", path, i), visit)
		}
	}
}
