package extract

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/itchyny/gojq"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/spec"
	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro/internal/describe"
	"github.com/zircote/lro-go/lro/internal/janitor"
	"github.com/zircote/lro-go/lro/internal/offload"
	"github.com/zircote/lro-go/recipes"
)

// The names of the tools and of their arguments, those of the guidance.
const (
	toolExtract = describe.ToolExtract
	toolRead    = describe.ToolRead
	toolSearch  = describe.ToolSearch

	argFilePath      = describe.ArgFilePath
	argHandle        = describe.ArgHandle
	argRecipe        = describe.ArgRecipe
	argQuery         = describe.ArgQuery
	argParams        = describe.ArgParams
	argSlurp         = describe.ArgSlurp
	argRaw           = "raw"
	argWhere         = describe.ArgWhere
	argCount         = describe.ArgCount
	argFields        = "fields"
	argLine          = describe.ArgLine
	argLimit         = describe.ArgLimit
	argCharOffset    = "char_offset"
	argMaxChars      = "max_chars"
	argPattern       = describe.ArgPattern
	argCaseSensitive = "case_sensitive"
	argMaxResults    = "max_results"
	argStartLine     = "start_line"
)

// maxQueryBytes bounds the text of a query and of a search pattern.
const maxQueryBytes = 64 << 10

// AddTools registers lro_extract, lro_read and lro_search on s, over the
// folder or store of opts.LRO (see [Options]; nil means every default), and
// with a Store the resource template lro://results/{handle} (a stored result
// whole). It returns an error wrapping [lro.ErrInvalidOption] for invalid
// options, or an error saying so without [RunWorker], and then registers
// nothing.
// A failed call is a tool result with IsError set and a message that names
// the problem. The handlers are safe for concurrent use.
func AddTools(s *mcp.Server, opts *Options) error {
	c, err := newConfig(opts)
	if err != nil {
		return err
	}
	if !installed.Load() {
		return errNoWorker
	}
	// The answers a stopped server left behind are deleted soon after the
	// next one starts, as lro's decorator does for its files.
	janitor.Offloaded(c.sweep, c.sweepInterval)
	// With a Store the descriptions say how long results are kept; with a
	// bucket lro_extract says to use handles (the others refuse a file_path
	// saying so).
	var retention, bucket string
	if c.Store != nil {
		retention = " Results expire after " + shortDuration(c.Store.TTL()) + " (an error says so)."
		if c.Store.Bucket() != nil {
			bucket = " Use handle: not on your disk."
		}
	}
	// lro_extract writes only its own answer, which expires: read-only to
	// the user (docs/extraction.md).
	no := new(bool)
	annotations := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: no, OpenWorldHint: no}
	for _, t := range []struct {
		name, description string
		run               func(context.Context, args) (*mcp.CallToolResult, error)
	}{
		{toolExtract, extractDescription + bucket, c.extract},
		{toolRead, readDescription, c.read},
		{toolSearch, searchDescription, c.search},
	} {
		s.AddTool(&mcp.Tool{Name: t.name, Description: t.description + retention,
			InputSchema: schemas[t.name], Annotations: annotations}, c.handler(t.name, t.run))
	}
	if c.Store != nil {
		s.AddResourceTemplate(&mcp.ResourceTemplate{
			Name:        "lro-result",
			Title:       "Offloaded result",
			URITemplate: describe.ResultURIPrefix + "{handle}",
			MIMEType:    spec.ContentType,
			Description: "An offloaded result, whole: its JSONL file (a header line, then one record a line), by the handle of its offload descriptor, until it expires. To query or read a part of it, use lro_extract, lro_read or lro_search with the handle.",
		}, c.readResource)
	}
	// go-sdk v1.8.0 ends the connection on a resources/read of a uri holding
	// a control character: refused first.
	s.AddReceivingMiddleware(offload.GuardResourceURIs)
	return nil
}

// handler adapts a tool function: errors and panics become tool errors.
func (c *config) handler(tool string, f func(context.Context, args) (*mcp.CallToolResult, error)) mcp.ToolHandler {
	allowed := slices.Sorted(maps.Keys(schemas[tool]["properties"].(map[string]any)))
	return func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, _ error) {
		defer func() {
			if p := recover(); p != nil {
				res = toolFailure(fmt.Errorf("%s: internal error: %v", tool, p))
			}
		}()
		ctx, cancel := context.WithTimeoutCause(ctx, c.Timeout, errTimeout)
		defer cancel()
		a, err := parseArgs(tool, req.Params.Arguments, allowed...) // go-sdk read req.Params.Name first
		if err != nil {
			return toolFailure(err), nil
		}
		start := time.Now()
		if tool != toolRead { // lro_read holds little, in the server
			release, err := c.acquire(ctx)
			if err != nil {
				return toolFailure(fmt.Errorf("%s: %w", tool, err)), nil
			}
			defer release()
		}
		waited := time.Since(start)
		if res, err = f(ctx, a); err != nil {
			return toolFailure(fmt.Errorf("%s: %w", tool, c.timedOut(err, tool, waited))), nil
		}
		return res, nil
	}
}

func toolFailure(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
}

// textResult is a result of the texts not empty, or of one empty text.
func textResult(texts ...string) *mcp.CallToolResult {
	res := &mcp.CallToolResult{}
	for _, t := range texts {
		if t != "" {
			res.Content = append(res.Content, &mcp.TextContent{Text: t})
		}
	}
	if len(res.Content) == 0 {
		res.Content = []mcp.Content{&mcp.TextContent{Text: ""}}
	}
	return res
}

// The descriptions of the tools and of their arguments, as short as they
// can be: they are in an agent's context at every request. Their examples
// fit any data.
const (
	extractDescription = `Query an offloaded result (by handle or file_path) with recipe (a descriptor's recipe number), query (a jq filter per record) or where (field conditions). A large answer is offloaded in turn.`
	readDescription    = `Read lines of an offloaded result (by handle or file_path) as "N: text"; line 1 is the header.`
	searchDescription  = `Find records of an offloaded result (by handle or file_path) with a value matching an RE2 regex (any case unless case_sensitive). Each match: {"file_line":N,"record":{...}} or a snippet.`
)

// schemas are the input schemas of the tools.
var schemas = map[string]map[string]any{
	toolExtract: objectSchema(map[string]any{
		argRecipe: prop("integer", "", "minimum", 1, "maximum", spec.RecipeCount),
		argQuery:  prop("string", ""),
		argParams: prop("object", "recipe params or query $variables, by name"),
		argSlurp:  prop("boolean", "jq -s"),
		argRaw:    prop("boolean", "jq -r"),
		argWhere: prop("object",
			`all must hold; key: field or dotted path; value: to equal, or {op: value}, op: eq prefix contains(any case) matches(RE2) gt gte lt lte in; on arrays, any element. e.g. {"status":"open","size":{"gt":100}}`),
		argCount:  prop("boolean", "where: just count"),
		argFields: prop("array", "where: only these", "items", prop("string", "")),
	}),
	toolRead: objectSchema(map[string]any{
		argLine:       prop("integer", ""),
		argLimit:      prop("integer", ""),
		argCharOffset: prop("integer", "per line"),
		argMaxChars:   prop("integer", "per line"),
	}),
	toolSearch: objectSchema(map[string]any{
		argPattern:       prop("string", ""),
		argCaseSensitive: prop("boolean", ""),
		argMaxResults:    prop("integer", ""),
		argStartLine:     prop("integer", ""),
	}, argPattern),
}

// prop is the schema of an argument: its type, description and keywords.
func prop(typ, desc string, kv ...any) map[string]any {
	m := map[string]any{"type": typ}
	if desc != "" {
		m["description"] = desc
	}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

// objectSchema is the input schema of a tool with the properties props and
// the two that name the file, of which it requires neither: some clients
// refuse anyOf at the top of an input schema; the descriptions say it and
// the tools check it.
func objectSchema(props map[string]any, required ...string) map[string]any {
	props[argHandle] = prop("string", "")
	props[argFilePath] = prop("string", "")
	s := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// shortDuration writes d as time.Duration does, without its zero units:
// 1h, 1h30m, 1m30s.
func shortDuration(d time.Duration) string {
	s := d.String()
	for _, zero := range []string{"m0s", "h0m"} {
		if strings.HasSuffix(s, zero) {
			s = s[:len(s)-2]
		}
	}
	return s
}

// identifier matches the names of jq variables.
var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// extractRequest is a parsed lro_extract call, which a worker evaluates:
// one of Recipe (a number), Query and Where.
type extractRequest struct {
	Recipe int
	Query  string
	Where  *whereFilter
	Params map[string]json.RawMessage
	Slurp  bool
	Raw    bool
}

// parseExtract reads the arguments of lro_extract.
func parseExtract(a args) (ref, extractRequest, error) {
	var req extractRequest
	file, err := a.file()
	recipeGiven, queryGiven, whereGiven := a.present(argRecipe), a.present(argQuery), a.present(argWhere)
	switch {
	case err != nil:
	case whereGiven && (recipeGiven || queryGiven):
		err = errorf("give one of recipe, query and where, not several")
	case recipeGiven && queryGiven:
		err = errorf("give either recipe or query, not both")
	case !recipeGiven && !queryGiven && !whereGiven:
		err = errorf("give recipe (1 to %d, a recipe of the offload descriptor), query (a jq filter) or where (conditions on fields)", spec.RecipeCount)
	case !whereGiven && (a.present(argCount) || a.present(argFields)):
		err = errorf("count and fields apply to where; with a query, write them in jq (length with slurp=true, {id, title})")
	case whereGiven:
		for _, name := range []string{argParams, argSlurp, argRaw} {
			if a.present(name) {
				return ref{}, req, errorf("%s applies to a recipe or a query, not to where: where takes its values in its conditions and sets its own way to run", name)
			}
		}
		req.Where, err = parseWhere(a)
	default:
		var errs [5]error
		req.Recipe, errs[0] = a.integer(argRecipe, 0, 1, spec.RecipeCount)
		req.Query, errs[1] = a.str(argQuery)
		req.Params, errs[2] = a.object(argParams)
		req.Slurp, errs[3] = a.boolean(argSlurp)
		req.Raw, errs[4] = a.boolean(argRaw)
		if err = cmp.Or(errs[:]...); err == nil && recipeGiven && (req.Slurp || req.Raw) {
			err = errorf("slurp and raw apply to a query; recipe %d sets its own", req.Recipe)
		}
	}
	if err != nil {
		return ref{}, extractRequest{}, err
	}
	return file, req, nil
}

// extract is lro_extract: the server checks the arguments, the query and
// the file, and a worker evaluates the request over the file.
func (c *config) extract(ctx context.Context, a args) (*mcp.CallToolResult, error) {
	file, req, err := parseExtract(a)
	if err != nil {
		return nil, err
	}
	if req.Recipe == 0 && req.Where == nil {
		// Parse the query before opening the file; compiling it, which can
		// take a second, is left to the worker.
		if _, err := c.queryProgram(req.Query, req.Params); err != nil {
			return nil, err
		}
	}
	header, fr, err := c.evaluateIn(ctx, file, req)
	if err != nil {
		return nil, err
	}
	res := fr.Results
	out, offloaded := c.answer(ctx, header, fr.Label, res)
	if w := req.Where; w != nil && !w.Count && string(w.Fields) == "[]" && offloaded {
		if lead := wherePreview(res, c.ThresholdTokens); lead != "" {
			out.Content = append([]mcp.Content{&mcp.TextContent{Text: lead}}, out.Content...)
		}
	}
	if req.Where != nil && matchedNone(req.Where, res) {
		if absent := c.absentPaths(ctx, file, req.Where); len(absent) > 0 {
			out.Content = append(out.Content, &mcp.TextContent{Text: fmt.Sprintf(
				"No record has a value at %s: check the name against the descriptor's line_schema (a nested field is written with dots, as in a.b).",
				strings.Join(absent, ", "))})
		}
	}
	return out, nil
}

// matchedNone reports whether the where filter w matched no record.
func matchedNone(w *whereFilter, res *results) bool {
	if w.Count {
		return len(res.Spans) == 1 && string(bytes.TrimSpace(res.text(0))) == "0"
	}
	return len(res.Spans) == 0
}

// evaluateIn evaluates req over the file in a worker.
func (c *config) evaluateIn(ctx context.Context, file ref, req extractRequest) (h jsonl.Header, last *frame, err error) {
	err = c.withSource(ctx, file, func(ctx context.Context, src *source) error {
		h = src.header
		return c.inWorker(ctx, src, &job{Tool: toolExtract, Extract: req}, func(fr *frame) bool {
			last = fr
			return false
		})
	})
	return h, last, err
}

// absentPaths returns the paths of w's conditions at which no record of the
// file has a value, from a second pass in a worker, or nil if it fails.
func (c *config) absentPaths(ctx context.Context, file ref, w *whereFilter) []string {
	probe := *w
	probe.Absent = true
	_, fr, err := c.evaluateIn(ctx, file, extractRequest{Where: &probe})
	if err != nil || fr.Results == nil || fr.Results.Errs > 0 {
		return nil
	}
	res := fr.Results
	paths := make([]string, len(res.Spans))
	for i := range res.Spans {
		paths[i] = string(res.shown(i))
	}
	return paths
}

// evaluate runs req over the records of src, in a worker.
func (c *config) evaluate(ctx context.Context, src *source, req *extractRequest) (label string, _ *results, err error) {
	var p *program
	switch {
	case req.Where != nil:
		label = req.Where.Label
		p, err = whereProgram(req.Where)
	case req.Recipe > 0:
		var r describe.Recipe
		if r, err = c.fileRecipe(src, req.Recipe); err == nil {
			label = r.Filter
			p, err = recipeProgram(r, req.Params)
		}
	default:
		label = req.Query
		if p, err = c.queryProgram(req.Query, req.Params); err == nil {
			p.slurp, p.raw = req.Slurp, req.Raw
		}
	}
	if err != nil {
		return "", nil, err
	}
	res, err := c.run(ctx, src, p)
	return label, res, err
}

// fileRecipe rebuilds recipe n of the file's descriptor, as the offloader
// built it from the header's detail level and the first records, which the
// run then reads again (source.unread).
func (c *config) fileRecipe(src *source, n int) (describe.Recipe, error) {
	var sample []json.RawMessage
	for len(sample) < offload.SampleSize {
		line, err := src.next(c.MaxRecordBytes)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return describe.Recipe{}, c.readError(err, src)
		}
		sample = append(sample, bytes.Clone(line))
	}
	src.line -= len(sample)
	for _, l := range sample {
		src.unread = append(src.unread, l)
	}
	rs, _ := recipes.Select(recipes.Detail(src.header.Detail), sample)
	return describe.Recipes(rs)[n-1], nil
}

// recipeProgram prepares recipe r with the caller's parameter values.
func recipeProgram(r describe.Recipe, params map[string]json.RawMessage) (*program, error) {
	q, err := gojq.Parse(r.Filter)
	if err != nil {
		return nil, fmt.Errorf("recipe %d does not parse: %w", r.Number, err) // a bug in package recipes
	}
	p := &program{query: q, slurp: r.Slurp, raw: r.Raw}
	names := make([]string, 0, len(r.Params))
	for _, prm := range r.Params {
		names = append(names, prm.Name)
	}
	for name := range params {
		if !slices.Contains(names, name) {
			if len(names) == 0 {
				return nil, errorf("recipe %d (%s) takes no params, but %q was given", r.Number, lowerFirst(r.Description), name)
			}
			return nil, errorf("recipe %d (%s) takes the params %s, not %q", r.Number, lowerFirst(r.Description), strings.Join(names, ", "), name)
		}
	}
	for _, prm := range r.Params {
		value := prm.Value
		if raw, ok := params[prm.Name]; ok && string(bytes.TrimSpace(raw)) != "null" {
			v, err := paramText(raw)
			if err != nil {
				return nil, errorf("params.%s: %v", prm.Name, err)
			}
			value = v
		}
		p.names = append(p.names, "$"+prm.Name)
		p.values = append(p.values, value)
	}
	p.plan = planFor(r.Filter, r.Slurp, p.names, p.values)
	return p, nil
}

// paramText turns a recipe parameter into the string jq's --arg would give.
func paramText(raw json.RawMessage) (string, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", err
	}
	switch x := v.(type) {
	case string:
		return x, nil
	case float64:
		if lit := bytes.TrimSpace(raw); !bytes.ContainsAny(lit, ".eE") {
			return string(lit), nil // an integer, as written: any number of digits
		}
		if x == math.Trunc(x) && math.Abs(x) < 1e15 {
			return strconv.FormatInt(int64(x), 10), nil
		}
		return strconv.FormatFloat(x, 'g', -1, 64), nil
	case bool:
		return strconv.FormatBool(x), nil
	}
	return "", errors.New("a recipe parameter must be a string, a number or a boolean")
}

// queryProgram parses a caller's jq filter and binds its variables.
func (c *config) queryProgram(text string, params map[string]json.RawMessage) (*program, error) {
	if strings.TrimSpace(text) == "" {
		return nil, errorf("query is empty")
	}
	if len(text) > maxQueryBytes {
		return nil, errorf("query is %d bytes, more than %d", len(text), maxQueryBytes)
	}
	q, err := gojq.Parse(text)
	if err != nil {
		return nil, errorf("the query is not a valid jq filter: %v", err)
	}
	p := &program{query: q}
	dec := newDecoder()
	for _, name := range slices.Sorted(maps.Keys(params)) {
		if !identifier.MatchString(name) || strings.HasPrefix(name, "__") || name == "ENV" {
			return nil, errorf("params: %q cannot be a jq variable name (letters, digits and _, not starting with a digit or __, and not ENV)", name)
		}
		v, err := dec.decode(params[name])
		if err != nil {
			return nil, errorf("params.%s: %v", name, err)
		}
		p.names = append(p.names, "$"+name)
		p.values = append(p.values, v)
	}
	return p, nil
}

func lowerFirst(s string) string { return strings.ToLower(s[:min(len(s), 1)]) + s[min(len(s), 1):] }
