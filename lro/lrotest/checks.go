package lrotest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oklog/ulid/v2"
)

// outcome gathers what the checks found about one requirement.
type outcome struct {
	passes int
	fails  []string
	skips  []string
}

// checker runs one Check.
type checker struct {
	cs     *mcp.ClientSession
	cfg    Config
	tool   *mcp.Tool
	runner runner

	outcomes []outcome

	// The call being checked.
	label    string
	touched  map[string]bool
	blockers []string

	files     []offloadedFile // this run's offloaded files
	fullCount int             // records of the first offloaded file, or -1
	plant     *planted
}

// offloadedFile is a file this run made the server write.
type offloadedFile struct {
	path    string
	created time.Time
}

func newChecker(cs *mcp.ClientSession, cfg *Config) (*checker, error) {
	if cs == nil {
		return nil, fmt.Errorf("%w: nil session", ErrInvalidConfig)
	}
	if cfg == nil {
		return nil, fmt.Errorf("%w: nil Config (Tool and Large are required)", ErrInvalidConfig)
	}
	c := &checker{cs: cs, cfg: *cfg, outcomes: make([]outcome, len(catalogue)), fullCount: -1}
	k := &c.cfg
	k.Large = maps.Clone(k.Large)
	k.Small = maps.Clone(k.Small)
	k.Details = slices.Clone(k.Details)
	if k.Cleanup != nil {
		cl := *k.Cleanup
		k.Cleanup = &cl
	}
	switch {
	case k.Tool == "":
		return nil, fmt.Errorf("%w: Config.Tool is empty", ErrInvalidConfig)
	case k.Large == nil:
		return nil, fmt.Errorf("%w: Config.Large is nil; give arguments whose result is offloaded", ErrInvalidConfig)
	case k.Level < 0 || k.Level > Level3:
		return nil, fmt.Errorf("%w: Config.Level = %d, want 1, 2 or 3", ErrInvalidConfig, int(k.Level))
	case k.ThresholdTokens < 0:
		return nil, fmt.Errorf("%w: Config.ThresholdTokens = %d, must not be negative", ErrInvalidConfig, k.ThresholdTokens)
	case k.RecipeTimeout < 0:
		return nil, fmt.Errorf("%w: Config.RecipeTimeout = %v, must not be negative", ErrInvalidConfig, k.RecipeTimeout)
	case k.Cleanup != nil && (k.Cleanup.TTL < 0 || k.Cleanup.Within < 0):
		return nil, fmt.Errorf("%w: Config.Cleanup: TTL %v and Within %v must not be negative", ErrInvalidConfig, k.Cleanup.TTL, k.Cleanup.Within)
	}
	if k.Level == 0 {
		k.Level = Level3
	}
	if k.DetailArgument == "" {
		k.DetailArgument = DefaultDetailArgument
	}
	if k.QueryArgument == "" {
		k.QueryArgument = DefaultQueryArgument
	}
	if k.ThresholdTokens == 0 {
		k.ThresholdTokens = DefaultThresholdTokens
	}
	if k.Prefix == "" {
		k.Prefix = DefaultPrefix
	}
	if k.RecipeTimeout == 0 {
		k.RecipeTimeout = DefaultRecipeTimeout
	}
	if k.Cleanup != nil {
		if k.Cleanup.TTL == 0 {
			k.Cleanup.TTL = DefaultTTL
		}
		if k.Cleanup.Within == 0 {
			k.Cleanup.Within = DefaultCleanupWithin
		}
	}
	for _, d := range k.Details {
		if strings.TrimSpace(d) == "" {
			return nil, fmt.Errorf("%w: Config.Details holds an empty detail level", ErrInvalidConfig)
		}
	}
	if sr, ok := newShellRunner(); ok && !k.InProcess {
		c.runner = sr
	} else {
		c.runner = &gojqRunner{}
	}
	return c, nil
}

func (c *checker) findTool(ctx context.Context) error {
	var names []string
	for t, err := range c.cs.Tools(ctx, nil) {
		if err != nil {
			return fmt.Errorf("lrotest: tools/list: %w", err)
		}
		if t.Name == c.cfg.Tool {
			c.tool = t
			return nil
		}
		names = append(names, t.Name)
	}
	return fmt.Errorf("%w: the server lists no tool %q (it lists %s)", ErrInvalidConfig, c.cfg.Tool, strings.Join(names, ", "))
}

// Recording outcomes.

func (c *checker) req(id string) (*outcome, Requirement, bool) {
	i, ok := byID[id]
	if !ok {
		panic("lrotest: unknown requirement " + id)
	}
	r := catalogue[i]
	if c.touched != nil {
		c.touched[id] = true
	}
	return &c.outcomes[i], r, r.Level <= c.cfg.Level
}

func (c *checker) prefix(msg string) string {
	if c.label == "" {
		return msg
	}
	return c.label + ": " + msg
}

func (c *checker) pass(id string) {
	if o, _, ok := c.req(id); ok {
		o.passes++
	}
}

// fail records a violation: a failure of a MUST, a warning for a SHOULD.
func (c *checker) fail(id, format string, args ...any) {
	if o, _, ok := c.req(id); ok {
		o.fails = append(o.fails, c.prefix(fmt.Sprintf(format, args...)))
	}
}

func (c *checker) skip(id, format string, args ...any) {
	if o, _, ok := c.req(id); ok {
		o.skips = append(o.skips, c.prefix(fmt.Sprintf(format, args...)))
	}
}

// check records a pass when problems is empty and a violation otherwise.
func (c *checker) check(id string, problems []string) {
	if len(problems) == 0 {
		c.pass(id)
		return
	}
	c.fail(id, "%s", strings.Join(problems, "; "))
}

// block notes that a prerequisite failed: the requirements of this call
// that are not checked are skipped naming it.
func (c *checker) block(id string) { c.blockers = append(c.blockers, id) }

func (c *checker) begin(label string) {
	c.label = label
	c.touched = map[string]bool{}
	c.blockers = nil
}

// end skips every requirement of scope s that the call did not check.
func (c *checker) end(s scope) {
	reason := "not checked"
	if len(c.blockers) > 0 {
		reason = "not checked: depends on " + strings.Join(c.blockers, ", ")
	}
	for _, r := range catalogue {
		if r.scope == s && !c.touched[r.ID] {
			c.skip(r.ID, "%s", reason)
		}
	}
	c.label, c.touched, c.blockers = "", nil, nil
}

func (c *checker) report() *Report {
	rep := &Report{Tool: c.cfg.Tool, Level: c.cfg.Level, Recipes: c.runner.name()}
	if c.cfg.Level < Level2 {
		rep.Recipes = "not at all (Level 1 does not run them)"
	}
	for i, r := range catalogue {
		if r.Level > c.cfg.Level {
			continue
		}
		o := c.outcomes[i]
		res := Result{Requirement: r}
		switch {
		case len(o.fails) > 0 && r.Strength == Should:
			res.Status, res.Reasons = Warn, o.fails
		case len(o.fails) > 0:
			res.Status, res.Reasons = Fail, o.fails
		case o.passes > 0:
			res.Status = Pass
		default:
			res.Status, res.Reasons = Skip, dedupe(o.skips)
			if len(res.Reasons) == 0 {
				res.Reasons = []string{"not checked"}
			}
		}
		rep.Results = append(rep.Results, res)
	}
	return rep
}

func dedupe(ss []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// run makes every call and check.
func (c *checker) run(ctx context.Context) {
	if c.cfg.Small != nil {
		c.runSmall(ctx)
	} else {
		c.skip("L1.inline.small", "no Config.Small: give arguments whose result is within the threshold")
	}
	for _, lc := range c.largeCases() {
		c.runLarge(ctx, lc)
	}
	if c.cfg.Level >= Level3 {
		c.runFallback(ctx)
	}
	c.skip("L3.events", "not observable over MCP: events are emitted inside the server; check them in-process (lro's TestConformanceLevel3 does)")
	if c.cfg.Level >= Level2 {
		c.finishCleanup(ctx)
	}
}

// largeCase is one call with the large arguments.
type largeCase struct {
	label  string
	args   map[string]any
	detail string // the detail level the file must have; "" when unknown
}

func (c *checker) largeCases() []largeCase {
	asGiven, _ := c.cfg.Large[c.cfg.DetailArgument].(string)
	first := largeCase{label: "large", args: c.cfg.Large, detail: asGiven}
	if asGiven != "" {
		first.label = fmt.Sprintf("large (%s=%s)", c.cfg.DetailArgument, asGiven)
	} else if c.cfg.DefaultDetail != "" {
		first.detail = c.cfg.DefaultDetail
		first.label = fmt.Sprintf("large (no %s: default %s)", c.cfg.DetailArgument, c.cfg.DefaultDetail)
	}
	cases := []largeCase{first}
	for _, d := range c.cfg.Details {
		if d == asGiven {
			continue
		}
		args := maps.Clone(c.cfg.Large)
		args[c.cfg.DetailArgument] = d
		cases = append(cases, largeCase{label: fmt.Sprintf("large (%s=%s)", c.cfg.DetailArgument, d), args: args, detail: d})
	}
	return cases
}

// The small call.

func (c *checker) runSmall(ctx context.Context) {
	c.begin("small")
	defer c.end(scopeSmall)
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: c.cfg.Tool, Arguments: c.cfg.Small})
	switch {
	case err != nil:
		c.fail("L1.inline.small", "the call failed: %v", err)
	case res.IsError:
		c.fail("L1.inline.small", "the tool returned an error: %s", oneLine(resultText(res), 200))
	default:
		if d := findDescriptor(res, true); d != nil {
			c.fail("L1.inline.small", "the result was offloaded (%s); the small arguments must give a result within the threshold of %d tokens",
				describeDescriptor(d), c.cfg.ThresholdTokens)
			return
		}
		c.pass("L1.inline.small")
	}
}

// The large calls.

// fileView is an offloaded file as read by the kit.
type fileView struct {
	path    string
	data    []byte
	header  map[string]any // nil unless line 1 is a JSON object
	lines   [][]byte       // record lines (line 2 on)
	records []any          // decoded record lines; valid[i] says which decoded
	valid   []bool
}

func (f *fileView) validRecords() []any {
	var out []any
	for i, r := range f.records {
		if f.valid[i] {
			out = append(out, r)
		}
	}
	return out
}

func (c *checker) runLarge(ctx context.Context, lc largeCase) {
	c.begin(lc.label)
	defer c.end(scopeLarge)
	start := time.Now()
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: c.cfg.Tool, Arguments: lc.args})
	end := time.Now()
	switch {
	case err != nil:
		c.fail("L1.offload.large", "the call failed: %v", err)
		c.block("L1.offload.large")
		return
	case res.IsError:
		c.fail("L1.offload.large", "the tool returned an error: %s", oneLine(resultText(res), 200))
		c.block("L1.offload.large")
		return
	}
	desc := findDescriptor(res, false)
	if desc == nil {
		c.fail("L1.offload.large", "the result is inline (%d characters of text), not offloaded; give large arguments whose result set is above the threshold of %d tokens",
			len(resultText(res)), c.cfg.ThresholdTokens)
		c.block("L1.offload.large")
		return
	}
	c.pass("L1.offload.large")
	c.checkNoCursor(res)
	c.checkOutputSchema(res)
	if desc["offloaded"] == true {
		c.pass("L1.descriptor.offloaded")
	} else {
		c.fail("L1.descriptor.offloaded", "offloaded is %s, want true", jsonText(desc["offloaded"]))
	}

	f := c.readFile(desc)
	var nameOp string
	if p, ok := desc["file_path"].(string); ok && p != "" {
		nameOp = c.checkFileName(p, start, end)
	}
	summary, hasSummary := desc["summary"].(map[string]any)
	c.checkSummaryFields(desc)
	if f != nil {
		c.checkFile(lc, f, start, end)
		if c.fullCount < 0 {
			c.fullCount = len(f.lines)
		}
		created := start
		if _, id, ok := c.parseName(filepath.Base(f.path)); ok {
			created = ulid.Time(id.Time())
		}
		c.files = append(c.files, offloadedFile{path: f.path, created: created})
		if c.cfg.Cleanup != nil && c.plant == nil && c.cfg.Level >= Level2 {
			// Plant once the server has made its folder.
			op := nameOp
			if op == "" {
				op = c.cfg.Operation
			}
			dir := c.cfg.Cleanup.Dir
			if dir == "" {
				dir = filepath.Dir(f.path)
			}
			c.plantExpired(dir, op)
		}
	}
	c.checkOperation(f, summary, hasSummary, nameOp)
	c.checkDetail(lc, f, summary, hasSummary)
	if hasSummary {
		c.checkSummary(f, summary)
	} else {
		c.block("L1.summary.fields")
	}
	if c.cfg.Level >= Level2 {
		c.checkLevel2(ctx, lc, desc, f)
	}
}

// findDescriptor returns the descriptor in res: a JSON object in
// structuredContent or in a text content that has offloaded: true or, unless
// strict, an offloaded or file_path key at all.
func findDescriptor(res *mcp.CallToolResult, strict bool) map[string]any {
	is := func(v any) map[string]any {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		if m["offloaded"] == true {
			return m
		}
		_, hasFlag := m["offloaded"]
		_, hasPath := m["file_path"]
		if !strict && (hasFlag || hasPath) {
			return m
		}
		return nil
	}
	for _, doc := range resultDocs(res) {
		if m := is(doc); m != nil {
			return m
		}
	}
	return nil
}

// resultDocs returns the JSON documents of a result: its structuredContent
// and every text content that is one JSON value, decoded with numbers as
// json.Number.
func resultDocs(res *mcp.CallToolResult) []any {
	var docs []any
	if res.StructuredContent != nil {
		if data, err := json.Marshal(res.StructuredContent); err == nil {
			if v, err := decodeNumbers(data); err == nil {
				docs = append(docs, v)
			}
		}
	}
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			if v, err := decodeNumbers([]byte(tc.Text)); err == nil {
				docs = append(docs, v)
			}
		}
	}
	return docs
}

// decodeNumbers decodes one JSON value, numbers as json.Number.
func decodeNumbers(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func describeDescriptor(d map[string]any) string {
	p, _ := d["file_path"].(string)
	return "file_path " + strconv.Quote(p)
}

func jsonText(v any) string {
	if v == nil {
		return "null or missing"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return oneLine(string(b), 80)
}

// asInt returns v as an integer when it is a JSON integer.
func asInt(v any) (int64, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := strconv.ParseInt(string(n), 10, 64)
		return i, err == nil
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1<<53 {
			return int64(n), true
		}
	}
	return 0, false
}

func asFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	}
	return 0, false
}

var cursorNames = map[string]bool{"nextoffset": true, "nextpage": true, "nextpagetoken": true, "pagetoken": true, "nexttoken": true}

func isCursorKey(k string) bool {
	n := strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(k))
	return strings.Contains(n, "cursor") || cursorNames[n]
}

func (c *checker) checkNoCursor(res *mcp.CallToolResult) {
	var found []string
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				if k == "line_schema" {
					continue
				}
				if isCursorKey(k) {
					found = append(found, path+"."+k)
				}
				walk(x[k], path+"."+k)
			}
		case []any:
			for _, e := range x {
				walk(e, path+"[]")
			}
		}
	}
	if res.StructuredContent != nil {
		if data, err := json.Marshal(res.StructuredContent); err == nil {
			if v, err := decodeNumbers(data); err == nil {
				walk(v, "structuredContent")
			}
		}
	}
	for i, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			if v, err := decodeNumbers([]byte(tc.Text)); err == nil {
				walk(v, fmt.Sprintf("content[%d]", i))
			}
		}
	}
	for k, v := range res.Meta {
		if isCursorKey(k) {
			found = append(found, "_meta."+k)
		}
		walk(v, "_meta."+k)
	}
	found = dedupe(found)
	if len(found) > 0 {
		c.fail("L1.no_cursor", "the offloaded result carries a pagination cursor: %s", strings.Join(found, ", "))
		return
	}
	c.pass("L1.no_cursor")
}

func (c *checker) checkOutputSchema(res *mcp.CallToolResult) {
	if c.tool.OutputSchema == nil {
		c.skip("L1.descriptor.output_schema", "the tool advertises no outputSchema")
		return
	}
	resolved, err := resolveSchema(c.tool.OutputSchema)
	if err != nil {
		c.fail("L1.descriptor.output_schema", "the tool's outputSchema does not resolve: %v", err)
		return
	}
	if res.StructuredContent == nil {
		c.fail("L1.descriptor.output_schema", "the tool advertises an outputSchema but the offloaded result has no structuredContent")
		return
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		c.fail("L1.descriptor.output_schema", "structuredContent: %v", err)
		return
	}
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		c.fail("L1.descriptor.output_schema", "structuredContent: %v", err)
		return
	}
	if err := resolved.Validate(v); err != nil {
		c.fail("L1.descriptor.output_schema", "structuredContent is not valid under the tool's outputSchema (a strict client rejects it): %v", oneLine(err.Error(), 300))
		return
	}
	c.pass("L1.descriptor.output_schema")
}

func resolveSchema(schema any) (*jsonschema.Resolved, error) {
	data, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, err
	}
	return s.Resolve(nil)
}

// readFile checks file_path and reads the file it names, or returns nil.
func (c *checker) readFile(desc map[string]any) *fileView {
	const id = "L1.descriptor.file_path"
	raw, present := desc["file_path"]
	p, ok := raw.(string)
	var err error
	var data []byte
	switch {
	case !present:
		c.fail(id, "the descriptor has no file_path")
	case !ok:
		c.fail(id, "file_path is %s, not a string", jsonText(raw))
	case p == "":
		c.fail(id, "file_path is empty")
	case !filepath.IsAbs(p):
		c.fail(id, "file_path %q is not absolute", p)
	default:
		var fi os.FileInfo
		if fi, err = os.Stat(p); err != nil {
			c.fail(id, "file_path names no file the client can read: %v", err)
		} else if !fi.Mode().IsRegular() {
			c.fail(id, "file_path %q is not a regular file (%s)", p, fi.Mode().Type())
		} else if data, err = os.ReadFile(p); err != nil {
			c.fail(id, "reading file_path: %v", err)
		} else {
			c.pass(id)
			return parseFile(p, data)
		}
	}
	c.block(id)
	return nil
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
	if h, err := decodeNumbers(lines[0]); err == nil {
		f.header, _ = h.(map[string]any)
	}
	f.lines = lines[1:]
	f.records = make([]any, len(f.lines))
	f.valid = make([]bool, len(f.lines))
	for i, l := range f.lines {
		if v, err := decodeJSON(l); err == nil {
			f.records[i], f.valid[i] = v, true
		}
	}
	return f
}

var ulidPattern = `([0-9A-HJKMNP-TV-Z]{26})`

func (c *checker) parseName(base string) (op string, id ulid.ULID, ok bool) {
	re := regexp.MustCompile(`^` + regexp.QuoteMeta(c.cfg.Prefix) + `-(.+)-` + ulidPattern + `\.jsonl$`)
	m := re.FindStringSubmatch(base)
	if m == nil {
		return "", ulid.ULID{}, false
	}
	id, err := ulid.ParseStrict(m[2])
	if err != nil {
		return "", ulid.ULID{}, false
	}
	return m[1], id, true
}

// checkFileName checks the naming convention and returns the file name's
// operation ("" when the name does not follow the convention).
func (c *checker) checkFileName(p string, start, end time.Time) string {
	const id = "L1.file.name"
	base := filepath.Base(p)
	op, u, ok := c.parseName(base)
	var problems []string
	if !ok {
		problems = append(problems, fmt.Sprintf("base name %q is not %s-{operation}-{ulid}.jsonl with a canonical 26-character ULID", base, c.cfg.Prefix))
	} else if t := ulid.Time(u.Time()); t.Before(start.Add(-maxClockSkew)) || t.After(end.Add(maxClockSkew)) {
		problems = append(problems, fmt.Sprintf("the ULID's time %s is not the time of the call (%s)", t.UTC().Format(time.RFC3339Nano), start.UTC().Format(time.RFC3339)))
	}
	if c.cfg.OutputDir != "" && filepath.IsAbs(p) && !sameDir(filepath.Dir(p), c.cfg.OutputDir) {
		problems = append(problems, fmt.Sprintf("the file is in %s, not in the output folder %s", filepath.Dir(p), c.cfg.OutputDir))
	}
	c.check(id, problems)
	return op
}

func sameDir(a, b string) bool {
	if ea, err := filepath.EvalSymlinks(a); err == nil {
		a = ea
	}
	if eb, err := filepath.EvalSymlinks(b); err == nil {
		b = eb
	}
	return filepath.Clean(a) == filepath.Clean(b)
}

// headerFields are the OffloadHeader's fields and their types.
var headerFields = []struct {
	name  string
	check func(v any) string // "" when v is right
}{
	{"type", nonEmptyString},
	{"operation", nonEmptyString},
	{"query", func(v any) string {
		if _, ok := v.(string); ok || v == nil {
			return ""
		}
		return "not a string or null"
	}},
	{"count", nonNegativeInt},
	{"schema_version", nonEmptyString},
	{"timestamp", nonEmptyString},
	{"estimated_tokens", nonNegativeInt},
	{"detail", nonEmptyString},
}

func nonEmptyString(v any) string {
	s, ok := v.(string)
	switch {
	case !ok:
		return "not a string"
	case s == "":
		return "empty"
	}
	return ""
}

func nonNegativeInt(v any) string {
	n, ok := asInt(v)
	switch {
	case !ok:
		return "not an integer"
	case n < 0:
		return "negative"
	}
	return ""
}

// checkFile checks the header and the record lines.
func (c *checker) checkFile(lc largeCase, f *fileView, start, end time.Time) {
	switch {
	case len(f.data) == 0:
		c.fail("L1.header.type", "the file is empty")
		c.block("L1.header.type")
		return
	case f.header == nil:
		c.fail("L1.header.type", "line 1 is not a JSON object: %s", oneLine(string(f.data[:min(len(f.data), 120)]), 120))
		c.block("L1.header.type")
	case f.header["type"] != "lro_header":
		c.fail("L1.header.type", "the header's type is %s, want \"lro_header\"", jsonText(f.header["type"]))
	default:
		c.pass("L1.header.type")
	}

	// Record lines.
	var bad []string
	for i, ok := range f.valid {
		if !ok {
			what := "not one JSON value"
			if len(bytes.TrimSpace(f.lines[i])) == 0 {
				what = "empty"
			}
			bad = append(bad, fmt.Sprintf("line %d is %s", i+2, what))
		}
	}
	if len(bad) > 3 {
		bad = append(bad[:3], fmt.Sprintf("and %d more", len(bad)-3))
	}
	c.check("L1.records.jsonl", bad)
	c.checkEstimate(f)

	h := f.header
	if h == nil {
		return
	}
	var problems []string
	for _, hf := range headerFields {
		v, ok := h[hf.name]
		if !ok {
			problems = append(problems, hf.name+" is missing")
			continue
		}
		if why := hf.check(v); why != "" {
			problems = append(problems, fmt.Sprintf("%s is %s: %s", hf.name, why, jsonText(v)))
		}
	}
	c.check("L1.header.fields", problems)

	if ts, ok := h["timestamp"].(string); ok {
		t, err := parseTimestamp(ts)
		switch {
		case err != nil:
			c.fail("L1.header.timestamp", "timestamp %q: %v", ts, err)
		case t.Before(start.Add(-maxClockSkew)) || t.After(end.Add(maxClockSkew)):
			c.fail("L1.header.timestamp", "timestamp %s is not the time of the call (%s)", ts, start.UTC().Format(time.RFC3339))
		default:
			c.pass("L1.header.timestamp")
		}
	} else {
		c.skip("L1.header.timestamp", "no string timestamp (see L1.header.fields)")
	}

	if n, ok := asInt(h["count"]); ok {
		if int(n) == len(f.lines) {
			c.pass("L1.header.count")
		} else {
			c.fail("L1.header.count", "the header's count is %d but %d lines follow it", n, len(f.lines))
		}
	} else {
		c.skip("L1.header.count", "no integer count (see L1.header.fields)")
	}

	if q, ok := lc.args[c.cfg.QueryArgument].(string); ok {
		if got, present := h["query"]; !present {
			c.skip("L1.header.query", "the header has no query (see L1.header.fields)")
		} else if got != q {
			c.fail("L1.header.query", "the header's query is %s, want %q (the call's %s argument)", jsonText(got), q, c.cfg.QueryArgument)
		} else {
			c.pass("L1.header.query")
		}
	} else {
		c.skip("L1.header.query", "the call has no string %s argument", c.cfg.QueryArgument)
	}

	if est, ok := asInt(h["estimated_tokens"]); ok {
		if est > int64(c.cfg.ThresholdTokens) {
			c.pass("L1.offload.threshold")
		} else {
			c.fail("L1.offload.threshold", "offloaded although the header estimates %d tokens, not above the threshold of %d", est, c.cfg.ThresholdTokens)
		}
	} else {
		c.skip("L1.offload.threshold", "no integer estimated_tokens in the header (see L1.header.fields)")
	}
}

// parseTimestamp parses an ISO 8601 date and time with a time zone.
func parseTimestamp(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999Z0700", "2006-01-02T15:04:05.999999999Z07"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, errors.New("not an ISO 8601 date and time with a time zone (RFC 3339)")
}

// checkEstimate compares the header's estimate with characters / 4.
func (c *checker) checkEstimate(f *fileView) {
	const id = "L1.estimate"
	if f.header == nil {
		c.skip(id, "no header")
		return
	}
	est, ok := asInt(f.header["estimated_tokens"])
	if !ok {
		c.skip(id, "no integer estimated_tokens in the header (see L1.header.fields)")
		return
	}
	var chars, narrow, wide int
	for _, l := range f.lines {
		for _, r := range string(l) {
			chars++
			if isWide(r) {
				wide++
			} else {
				narrow++
			}
		}
	}
	lo := float64(chars) / 4 / 2
	hi := 2 * (float64(narrow)/4 + float64(wide) + float64(len(f.lines)))
	if float64(est) < lo || float64(est) > hi {
		c.fail(id, "the header estimates %d tokens; the record lines hold %d characters, ~%d tokens at 4 characters per token", est, chars, chars/4)
		return
	}
	c.pass(id)
}

// isWide reports whether r belongs to the scripts that tokenizers spend about
// one token per rune on (Hangul, CJK, kana, fullwidth forms).
func isWide(r rune) bool {
	return r >= 0x1100 && r <= 0x11FF || r >= 0x2E80 && r <= 0xA4CF || r >= 0xAC00 && r <= 0xD7AF ||
		r >= 0xF900 && r <= 0xFAFF || r >= 0xFE30 && r <= 0xFE4F || r >= 0xFF00 && r <= 0xFFEF || r >= 0x20000 && r <= 0x3FFFF
}

func (c *checker) checkOperation(f *fileView, summary map[string]any, hasSummary bool, nameOp string) {
	type src struct{ where, op string }
	var ops []src
	if f != nil && f.header != nil {
		if op, ok := f.header["operation"].(string); ok {
			ops = append(ops, src{"the header", op})
		}
	}
	if hasSummary {
		if op, ok := summary["operation"].(string); ok {
			ops = append(ops, src{"the summary", op})
		}
	}
	if nameOp != "" {
		ops = append(ops, src{"the file name", nameOp})
	}
	if len(ops) == 0 {
		c.skip("L1.operation", "no operation to compare")
		return
	}
	want := ops[0]
	if c.cfg.Operation != "" {
		want = src{"Config.Operation", c.cfg.Operation}
	}
	var problems []string
	for _, s := range ops {
		if s.op != want.op {
			problems = append(problems, fmt.Sprintf("%s names operation %q but %s %q", s.where, s.op, want.where, want.op))
		}
	}
	c.check("L1.operation", problems)
}

func (c *checker) checkDetail(lc largeCase, f *fileView, summary map[string]any, hasSummary bool) {
	var got [][2]string
	if f != nil && f.header != nil {
		if d, ok := f.header["detail"].(string); ok {
			got = append(got, [2]string{"the header", d})
		}
	}
	if hasSummary {
		if d, ok := summary["detail"].(string); ok {
			got = append(got, [2]string{"the summary", d})
		}
	}
	if len(got) == 0 {
		c.skip("L1.detail", "no detail to compare (see L1.header.fields, L1.summary.fields)")
		return
	}
	want, from := lc.detail, "the call's detail level"
	if want == "" {
		if len(got) < 2 {
			c.skip("L1.detail", "the call names no detail level and Config.DefaultDetail is empty")
			return
		}
		want, from = got[0][1], got[0][0]
	}
	var problems []string
	for _, g := range got {
		if !strings.EqualFold(g[1], want) {
			problems = append(problems, fmt.Sprintf("%s says detail %q but %s is %q", g[0], g[1], from, want))
		}
	}
	c.check("L1.detail", problems)
}

func (c *checker) checkSummaryFields(desc map[string]any) {
	const id = "L1.summary.fields"
	raw, present := desc["summary"]
	s, ok := raw.(map[string]any)
	switch {
	case !present:
		c.fail(id, "the descriptor has no summary")
		return
	case !ok:
		c.fail(id, "summary is %s, not an object", jsonText(raw))
		return
	}
	var problems []string
	field := func(name string, check func(v any) string) {
		v, ok := s[name]
		if !ok {
			problems = append(problems, name+" is missing")
			return
		}
		if why := check(v); why != "" {
			problems = append(problems, fmt.Sprintf("%s is %s: %s", name, why, jsonText(v)))
		}
	}
	field("count", nonNegativeInt)
	field("estimated_tokens", nonNegativeInt)
	field("operation", nonEmptyString)
	field("detail", nonEmptyString)
	field("top_namespaces", func(v any) string {
		list, ok := v.([]any)
		if !ok {
			return "not an array"
		}
		if len(list) > 5 {
			return "longer than 5"
		}
		seen := map[string]bool{}
		for _, e := range list {
			ns, ok := e.(string)
			if !ok {
				return "not an array of strings"
			}
			if seen[ns] {
				return "not distinct"
			}
			seen[ns] = true
		}
		return ""
	})
	field("score_range", func(v any) string {
		if v == nil {
			return ""
		}
		pair, ok := v.([]any)
		if !ok || len(pair) != 2 {
			return "not null or a [min, max] pair"
		}
		lo, ok1 := asFloat(pair[0])
		hi, ok2 := asFloat(pair[1])
		switch {
		case !ok1 || !ok2:
			return "not a pair of numbers"
		case lo > hi:
			return "a pair whose min is above its max"
		}
		return ""
	})
	c.check(id, problems)
}

func (c *checker) checkSummary(f *fileView, s map[string]any) {
	if f == nil {
		return // the file-dependent checks are skipped with the blocker
	}
	if n, ok := asInt(s["count"]); ok {
		if int(n) == len(f.lines) {
			c.pass("L1.summary.count")
		} else {
			c.fail("L1.summary.count", "summary.count is %d but the file holds %d record lines", n, len(f.lines))
		}
	} else {
		c.skip("L1.summary.count", "no integer summary.count (see L1.summary.fields)")
	}

	st, ok1 := asInt(s["estimated_tokens"])
	var ht int64
	ok2 := false
	if f.header != nil {
		ht, ok2 = asInt(f.header["estimated_tokens"])
	}
	switch {
	case !ok1 || !ok2:
		c.skip("L1.summary.tokens", "no integer estimated_tokens in the summary or the header")
	case st <= 0:
		c.fail("L1.summary.tokens", "summary.estimated_tokens is %d: offloading a result set above the threshold saves tokens", st)
	case st > ht:
		c.fail("L1.summary.tokens", "summary.estimated_tokens (%d) is more than the header's estimate of the whole result set (%d)", st, ht)
	default:
		c.pass("L1.summary.tokens")
	}

	list, ok := s["top_namespaces"].([]any)
	if !ok {
		c.skip("L1.summary.top_namespaces", "no top_namespaces array (see L1.summary.fields)")
		return
	}
	counts := map[string]int{}
	for _, r := range f.validRecords() {
		if m, ok := r.(map[string]any); ok {
			if ns, ok := m["namespace"].(string); ok && ns != "" {
				counts[ns]++
			}
		}
	}
	var listed []string
	for _, e := range list {
		ns, _ := e.(string)
		listed = append(listed, ns)
	}
	var problems []string
	if want := min(5, len(counts)); len(listed) != want {
		problems = append(problems, fmt.Sprintf("lists %d namespaces; the records have %d distinct ones, so want %d", len(listed), len(counts), want))
	}
	inList := map[string]bool{}
	for i, ns := range listed {
		inList[ns] = true
		switch {
		case counts[ns] == 0:
			problems = append(problems, fmt.Sprintf("%q is the namespace of no record", ns))
		case i > 0 && counts[ns] > counts[listed[i-1]]:
			problems = append(problems, fmt.Sprintf("%q (%d records) comes after %q (%d records): not most frequent first", ns, counts[ns], listed[i-1], counts[listed[i-1]]))
		}
	}
	if len(listed) > 0 {
		least := counts[listed[len(listed)-1]]
		for _, ns := range slices.Sorted(maps.Keys(counts)) {
			if !inList[ns] && counts[ns] > least {
				problems = append(problems, fmt.Sprintf("%q (%d records) is left out, but is more frequent than %q (%d)", ns, counts[ns], listed[len(listed)-1], least))
			}
		}
	}
	c.check("L1.summary.top_namespaces", problems)
}

// Level 2.

// recipeView is one recipe as the kit understands it.
type recipeView struct {
	n           int // 1-based
	description string
	command     string
	parsed      *recipeCommand // nil when the command is outside the subset
	parseErr    error
	refs        filterRefs // field paths of the filter; zero with refsErr
	refsErr     error
	run         *recipeRun // nil when not run
}

func (c *checker) checkLevel2(ctx context.Context, lc largeCase, desc map[string]any, f *fileView) {
	var missing []string
	for _, k := range []string{"line_schema", "jq_recipes", "guidance"} {
		if _, ok := desc[k]; !ok {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		c.fail("L2.descriptor.fields", "the descriptor lacks %s", strings.Join(missing, ", "))
	} else {
		c.pass("L2.descriptor.fields")
	}
	c.checkLineSchema(desc, f)
	recipes := c.checkRecipeList(desc)
	if recipes != nil {
		c.checkRecipes(ctx, lc, desc, f, recipes)
	}
	c.checkGuidance(lc, desc, f)
}

func (c *checker) checkLineSchema(desc map[string]any, f *fileView) {
	const id = "L2.line_schema"
	raw, ok := desc["line_schema"]
	if !ok {
		c.skip(id, "no line_schema (see L2.descriptor.fields)")
		return
	}
	if _, isObj := raw.(map[string]any); !isObj {
		c.fail(id, "line_schema is %s, not a JSON Schema object", jsonText(raw))
		return
	}
	resolved, err := resolveSchema(raw)
	if err != nil {
		c.fail(id, "line_schema is not a JSON Schema that resolves: %v", err)
		return
	}
	if f == nil {
		return
	}
	for i, r := range f.records {
		if !f.valid[i] {
			continue
		}
		if err := resolved.Validate(r); err != nil {
			c.fail(id, "line %d is not valid under line_schema: %s", i+2, oneLine(err.Error(), 300))
			return
		}
	}
	c.pass(id)
}

// checkRecipeList checks the jq_recipes array and returns its recipes, or nil
// when there is none to check further.
func (c *checker) checkRecipeList(desc map[string]any) []*recipeView {
	raw, ok := desc["jq_recipes"]
	if !ok {
		c.block("L2.descriptor.fields")
		return nil
	}
	list, ok := raw.([]any)
	if !ok {
		c.fail("L2.recipes.count", "jq_recipes is %s, not an array", jsonText(raw))
		c.block("L2.recipes.count")
		return nil
	}
	if len(list) == 10 {
		c.pass("L2.recipes.count")
	} else {
		c.fail("L2.recipes.count", "%d recipes, want exactly 10", len(list))
	}
	var problems []string
	var out []*recipeView
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			problems = append(problems, fmt.Sprintf("recipe %d is %s, not an object", i+1, jsonText(e)))
			continue
		}
		rv := &recipeView{n: i + 1}
		if d, ok := m["description"].(string); !ok || strings.TrimSpace(d) == "" {
			problems = append(problems, fmt.Sprintf("recipe %d has no description", i+1))
		} else {
			rv.description = d
		}
		cmd, ok := m["command"].(string)
		if !ok || strings.TrimSpace(cmd) == "" {
			problems = append(problems, fmt.Sprintf("recipe %d has no command", i+1))
			continue
		}
		rv.command = cmd
		rv.parsed, rv.parseErr = parseRecipe(cmd)
		if rv.parsed != nil {
			rv.refs, rv.refsErr = fieldRefs(rv.parsed.jq.filter)
		} else {
			rv.refsErr = rv.parseErr
		}
		out = append(out, rv)
	}
	c.check("L2.recipes.fields", problems)
	return out
}

var scoreRef = regexp.MustCompile(`\.\s*"?score"?\b|\[\s*"score"\s*\]`)

func (c *checker) checkRecipes(ctx context.Context, lc largeCase, desc map[string]any, f *fileView, rs []*recipeView) {
	// No .score.
	var problems []string
	for _, r := range rs {
		uses := scoreRef.MatchString(r.command)
		for _, ref := range r.refs.all {
			uses = uses || slices.Contains(ref, "score")
		}
		if uses {
			problems = append(problems, fmt.Sprintf("recipe %d references .score: %s", r.n, r.command))
		}
	}
	c.check("L2.recipes.no_score", problems)

	// The header is skipped.
	problems = nil
	for _, r := range rs {
		switch {
		case r.parsed != nil && !r.parsed.skipHeader:
			problems = append(problems, fmt.Sprintf("recipe %d feeds jq the whole file, header line included: %s", r.n, r.command))
		case r.parsed == nil && !strings.Contains(r.command, "tail -n +2"):
			problems = append(problems, fmt.Sprintf("recipe %d does not skip the header with tail -n +2: %s", r.n, r.command))
		}
	}
	c.check("L2.recipes.skip_header", problems)

	if f == nil {
		return // the file-dependent checks are skipped with the blocker
	}

	// The file.
	problems = nil
	for _, r := range rs {
		switch {
		case strings.Contains(r.command, "{file}"):
			problems = append(problems, fmt.Sprintf("recipe %d still holds the {file} placeholder: %s", r.n, r.command))
		case r.parsed != nil && r.parsed.file != f.path:
			problems = append(problems, fmt.Sprintf("recipe %d reads %q, not file_path %q", r.n, r.parsed.file, f.path))
		case r.parsed == nil && !strings.Contains(r.command, f.path) && !strings.Contains(r.command, shellQuote(f.path)):
			problems = append(problems, fmt.Sprintf("recipe %d does not name file_path %q: %s", r.n, f.path, r.command))
		}
	}
	c.check("L2.recipes.file", problems)

	// They run.
	problems = nil
	for _, r := range rs {
		rctx, cancel := context.WithTimeout(ctx, c.cfg.RecipeTimeout)
		run := c.runner.run(rctx, r.command, f.path, f.data)
		cancel()
		r.run = &run
		if run.err != nil {
			problems = append(problems, fmt.Sprintf("recipe %d (%s) failed: %v; command: %s", r.n, r.description, oneLine(run.err.Error(), 300), r.command))
		}
	}
	c.check("L2.recipes.run", problems)

	// The fields they use exist.
	records := f.validRecords()
	problems = nil
	var unparsed []string
	checked := 0
	for _, r := range rs {
		if r.refsErr != nil {
			unparsed = append(unparsed, fmt.Sprintf("recipe %d: %v", r.n, r.refsErr))
			continue
		}
		checked++
		var absent []string
		for _, ref := range r.refs.record {
			if !anyHasPath(records, ref) {
				absent = append(absent, "."+strings.Join(ref, "."))
			}
		}
		if len(absent) > 0 {
			problems = append(problems, fmt.Sprintf("recipe %d references %s, which no record has", r.n, strings.Join(dedupe(absent), ", ")))
		}
	}
	switch {
	case len(problems) > 0:
		c.check("L2.recipes.fields_exist", problems)
	case checked == 0:
		c.skip("L2.recipes.fields_exist", "no filter could be read: %s", strings.Join(unparsed, "; "))
	default:
		c.pass("L2.recipes.fields_exist")
	}

	c.checkDetailRecipes(lc, f, records, rs)
}

func anyHasPath(records []any, path []string) bool {
	for _, r := range records {
		if pathExists(r, path) {
			return true
		}
	}
	return false
}

// shellQuote quotes s for a POSIX shell, as recipe commands commonly do.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// lightFields are the memory fields present at Light detail.
var lightFields = map[string]bool{
	"id": true, "memory_type": true, "content": true, "created": true, "modified": true,
	"namespace": true, "title": true, "tags": true, "status": true,
}

// isMemory reports whether most records are memory objects.
func isMemory(records []any) bool {
	n := 0
	for _, r := range records {
		m, ok := r.(map[string]any)
		if !ok {
			continue
		}
		if _, ok := m["id"]; !ok {
			continue
		}
		if _, ok := m["title"]; !ok {
			continue
		}
		if _, ok := m["namespace"]; !ok {
			continue
		}
		if _, ok := m["memory_type"]; ok {
			n++
		}
	}
	return n > 0 && 2*n > len(records)
}

func hasRef(refs [][]string, path ...string) bool {
	for _, r := range refs {
		if slices.Equal(r, path) {
			return true
		}
	}
	return false
}

func refsText(refs [][]string) string {
	if len(refs) == 0 {
		return "no field"
	}
	var s []string
	for _, r := range refs {
		s = append(s, "."+strings.Join(r, "."))
	}
	return strings.Join(dedupe(s), ", ")
}

func (c *checker) checkDetailRecipes(lc largeCase, f *fileView, records []any, rs []*recipeView) {
	const id = "L2.recipes.detail"
	detail := lc.detail
	if detail == "" && f.header != nil {
		detail, _ = f.header["detail"].(string)
	}
	detail = strings.ToLower(detail)
	switch {
	case !isMemory(records):
		c.skip(id, "the records are not memory records (id, title, namespace, memory_type); the detail table applies to memories")
		return
	case len(rs) != 10:
		c.skip(id, "not exactly 10 recipes (see L2.recipes.count)")
		return
	case detail != "light" && detail != "medium" && detail != "full":
		c.skip(id, "detail level %q is not light, medium or full", detail)
		return
	}
	for _, r := range rs {
		if r.refsErr != nil {
			c.skip(id, "recipe %d cannot be read: %v", r.n, r.refsErr)
			return
		}
	}
	var problems []string
	for _, r := range rs[:8] {
		for _, ref := range r.refs.record {
			// A field no record has is L2.recipes.fields_exist's concern.
			if !lightFields[ref[0]] && anyHasPath(records, ref[:1]) {
				problems = append(problems, fmt.Sprintf("recipe %d references .%s, which is not a Light field", r.n, strings.Join(ref, ".")))
			}
		}
	}
	r9, r10 := rs[8].refs.all, rs[9].refs.all
	var all [][]string
	for _, r := range rs {
		all = append(all, r.refs.all...)
	}
	switch detail {
	case "light":
		if !hasRef(r9, "namespace") {
			problems = append(problems, fmt.Sprintf("at light detail recipe 9 lists unique namespaces, but it uses %s", refsText(r9)))
		}
		if !hasRef(r10, "memory_type") {
			problems = append(problems, fmt.Sprintf("at light detail recipe 10 counts by memory_type, but it uses %s", refsText(r10)))
		}
	case "medium":
		if !hasRef(r9, "confidence") {
			problems = append(problems, fmt.Sprintf("at medium detail recipe 9 sorts by the flattened .confidence, but it uses %s", refsText(r9)))
		}
		if hasRef(all, "provenance", "confidence") {
			problems = append(problems, "at medium detail confidence is the flattened .confidence, but a recipe uses .provenance.confidence")
		}
		if !hasRef(r10, "content") {
			problems = append(problems, fmt.Sprintf("at medium detail recipe 10 searches .content, but it uses %s", refsText(r10)))
		}
	case "full":
		if !hasRef(r9, "provenance", "confidence") {
			problems = append(problems, fmt.Sprintf("at full detail recipe 9 sorts by .provenance.confidence, but it uses %s", refsText(r9)))
		}
		if hasRef(all, "confidence") {
			problems = append(problems, "at full detail confidence MUST be accessed via .provenance.confidence, but a recipe uses .confidence")
		}
		if !hasRef(r10, "content") {
			problems = append(problems, fmt.Sprintf("at full detail recipe 10 searches .content, but it uses %s", refsText(r10)))
		}
	}
	if run := rs[8].run; detail != "light" && run != nil && run.err == nil {
		path := []string{"confidence"}
		if detail == "full" {
			path = []string{"provenance", "confidence"}
		}
		problems = append(problems, sortedByConfidence(run, path, len(records))...)
	}
	c.check(id, problems)
}

// sortedByConfidence checks that recipe 9 printed every record, by
// confidence descending.
func sortedByConfidence(run *recipeRun, path []string, want int) []string {
	vals, ok := run.values()
	if !ok {
		return []string{"recipe 9's output is not a stream of JSON records"}
	}
	// A recipe may print one array instead of a stream.
	if len(vals) == 1 {
		if a, ok := vals[0].([]any); ok {
			vals = a
		}
	}
	var problems []string
	if len(vals) != want {
		problems = append(problems, fmt.Sprintf("recipe 9 printed %d values, want all %d records", len(vals), want))
	}
	prev, seen := math.Inf(1), false
	for i, v := range vals {
		x := v
		for _, k := range path {
			m, _ := x.(map[string]any)
			x = m[k]
		}
		f, ok := x.(float64)
		if !ok {
			continue // records without a confidence sort last
		}
		if seen && f > prev {
			problems = append(problems, fmt.Sprintf("recipe 9 is not sorted by .%s descending: %v follows %v at output %d", strings.Join(path, "."), f, prev, i+1))
			break
		}
		prev, seen = f, true
	}
	return problems
}

func (c *checker) checkGuidance(lc largeCase, desc map[string]any, f *fileView) {
	raw, ok := desc["guidance"]
	if !ok {
		c.skip("L2.guidance", "no guidance (see L2.descriptor.fields)")
		c.skip("L2.guidance.template", "no guidance (see L2.descriptor.fields)")
		return
	}
	g, ok := raw.(string)
	if !ok || strings.TrimSpace(g) == "" {
		c.fail("L2.guidance", "guidance is %s, want a non-empty instruction block", jsonText(raw))
	} else {
		c.pass("L2.guidance")
	}
	var missing []string
	// The count: the summary's or the file's, whichever is right is
	// L1.summary.count's concern.
	var counts []int
	if s, ok := desc["summary"].(map[string]any); ok {
		if n, ok := asInt(s["count"]); ok {
			counts = append(counts, int(n))
		}
	}
	if f != nil {
		counts = append(counts, len(f.lines))
	}
	named := len(counts) == 0
	for _, n := range counts {
		named = named || regexp.MustCompile(`\b`+strconv.Itoa(n)+`\b`).MatchString(g)
	}
	if !named {
		missing = append(missing, fmt.Sprintf("the count %d", counts[0]))
	}
	detail := lc.detail
	if detail == "" && f != nil && f.header != nil {
		detail, _ = f.header["detail"].(string)
	}
	if detail != "" && !strings.Contains(strings.ToLower(g), strings.ToLower(detail)) {
		missing = append(missing, fmt.Sprintf("the detail level %q", detail))
	}
	if p, ok := desc["file_path"].(string); ok && p != "" && !strings.Contains(g, p) {
		missing = append(missing, "the file path")
	}
	if len(missing) > 0 {
		c.fail("L2.guidance.template", "guidance does not name %s", strings.Join(missing, ", "))
		return
	}
	c.pass("L2.guidance.template")
}

// Cleanup.

// planted is what the cleanup check put in the output folder.
type planted struct {
	expired, decoy string
	at             time.Time // when they were planted
	created        time.Time // the expired file's created_at
	err            error     // why nothing was planted
}

func (c *checker) plantExpired(dir, op string) {
	if op == "" {
		op = "lrotest"
	}
	p := &planted{at: time.Now()}
	c.plant = p
	ttl := c.cfg.Cleanup.TTL
	p.created = p.at.Add(-ttl - time.Minute)
	id, err := ulid.New(ulid.Timestamp(p.created), rand.Reader)
	if err != nil {
		p.err = err
		return
	}
	header, _ := json.Marshal(map[string]any{
		"type": "lro_header", "operation": op, "query": nil, "count": 0, "schema_version": "1.0",
		"timestamp": p.created.UTC().Format(time.RFC3339Nano), "estimated_tokens": 0, "detail": "light",
	})
	expired := filepath.Join(dir, fmt.Sprintf("%s-%s-%s.jsonl", c.cfg.Prefix, op, id))
	if err := writeNew(expired, append(header, '\n')); err != nil {
		p.err = err
		return
	}
	p.expired = expired
	if err := os.Chtimes(expired, p.created, p.created); err != nil {
		p.err = err
		return
	}
	decoy := filepath.Join(dir, fmt.Sprintf("lrotest-%s.txt", id))
	if err := writeNew(decoy, []byte("planted by lrotest: not an offloaded file, must be kept\n")); err != nil {
		p.err = err
		return
	}
	p.decoy = decoy
	_ = os.Chtimes(decoy, p.created, p.created)
}

func writeNew(path string, data []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}

func (c *checker) finishCleanup(ctx context.Context) {
	const id = "L2.cleanup"
	cl, p := c.cfg.Cleanup, c.plant
	switch {
	case cl == nil:
		c.skip(id, "no Config.Cleanup: cleanup is observable only in a server that sweeps its folder within a deadline (give the TTL and the deadline)")
		return
	case p == nil && cl.Dir == "":
		c.skip(id, "no offloaded file to find the output folder from, and no Config.Cleanup.Dir")
		return
	case p == nil:
		// Nothing was offloaded: plant in the configured folder now.
		if err := os.MkdirAll(cl.Dir, 0o700); err != nil {
			c.skip(id, "cannot make the output folder: %v", err)
			return
		}
		c.plantExpired(cl.Dir, c.cfg.Operation)
		p = c.plant
	}
	defer func() {
		for _, path := range []string{p.expired, p.decoy} {
			if path != "" {
				_ = os.Remove(path)
			}
		}
	}()
	if p.err != nil {
		c.skip(id, "cannot plant an expired file in the output folder: %v", p.err)
		return
	}
	deadline := p.at.Add(cl.Within)
	deleted := false
	for {
		if _, err := os.Lstat(p.expired); errors.Is(err, os.ErrNotExist) {
			deleted = true
			break
		}
		if !time.Now().Before(deadline) || ctx.Err() != nil {
			break
		}
		select {
		case <-ctx.Done():
		case <-time.After(min(25*time.Millisecond, time.Until(deadline))):
		}
	}
	var problems []string
	if !deleted {
		problems = append(problems, fmt.Sprintf("%s, created %s (ULID time and mtime), %s past its TTL of %s, was not deleted within %s",
			p.expired, p.created.UTC().Format(time.RFC3339), time.Since(p.created.Add(cl.TTL)).Round(time.Second), cl.TTL, cl.Within))
	}
	if _, err := os.Lstat(p.decoy); err != nil {
		problems = append(problems, fmt.Sprintf("%s, which is not an offloaded file, was deleted: %v", p.decoy, err))
	}
	for _, f := range c.files {
		if age := time.Since(f.created); age < cl.TTL {
			if _, err := os.Lstat(f.path); errors.Is(err, os.ErrNotExist) {
				problems = append(problems, fmt.Sprintf("%s was deleted %s after it was written, before its TTL of %s", f.path, age.Round(time.Millisecond), cl.TTL))
			}
		}
	}
	c.check(id, problems)
}

// Fallback.

var (
	failWords  = regexp.MustCompile(`(?i)fail|error|could not|couldn't|unable`)
	truncWords = regexp.MustCompile(`(?i)truncat|partial|omitted|showing \d+ of \d+`)
)

func (c *checker) runFallback(ctx context.Context) {
	c.begin("fallback")
	defer c.end(scopeBackup)
	if c.cfg.FallbackSession == nil {
		for _, id := range []string{"L3.fallback.succeeds", "L3.fallback.warning", "L3.fallback.truncated"} {
			c.skip(id, "no Config.FallbackSession: give a session to an instance of the server whose output folder cannot be written")
		}
		return
	}
	res, err := c.cfg.FallbackSession.CallTool(ctx, &mcp.CallToolParams{Name: c.cfg.Tool, Arguments: c.cfg.Large})
	ok := false
	switch {
	case err != nil:
		c.fail("L3.fallback.succeeds", "the call failed when the file could not be written: %v", err)
	case res.IsError:
		c.fail("L3.fallback.succeeds", "the tool returned an error when the file could not be written: %s", oneLine(resultText(res), 200))
	case findDescriptor(res, true) != nil:
		c.fail("L3.fallback.succeeds", "the result was offloaded: the fallback session's output folder must not be writable (%s)", describeDescriptor(findDescriptor(res, true)))
	default:
		c.pass("L3.fallback.succeeds")
		ok = true
	}
	if !ok {
		c.block("L3.fallback.succeeds")
		return
	}

	text := resultText(res)
	switch {
	case !failWords.MatchString(text) && !truncWords.MatchString(text):
		c.fail("L3.fallback.warning", "no text content warns that offloading failed and the result is truncated")
	case !failWords.MatchString(text):
		c.fail("L3.fallback.warning", "the text does not say that offloading failed")
	case !truncWords.MatchString(text):
		c.fail("L3.fallback.warning", "the text does not say that the result is truncated")
	default:
		c.pass("L3.fallback.warning")
	}

	arr, where := largestObjectArray(res)
	if arr == nil {
		c.fail("L3.fallback.truncated", "the result holds no array of records")
		return
	}
	var problems []string
	if c.fullCount >= 0 && len(arr) >= c.fullCount {
		problems = append(problems, fmt.Sprintf("%s holds %d records, as many as the offloaded file (%d): not truncated", where, len(arr), c.fullCount))
	}
	tokens := 0
	for _, e := range arr {
		b, _ := json.Marshal(e)
		tokens += (utf8.RuneCount(b) + 3) / 4
	}
	if limit := c.cfg.ThresholdTokens + c.cfg.ThresholdTokens/4; tokens > limit {
		problems = append(problems, fmt.Sprintf("the %d records of %s are ~%d tokens, above the threshold of %d", len(arr), where, tokens, c.cfg.ThresholdTokens))
	}
	c.check("L3.fallback.truncated", problems)
}

// largestObjectArray returns the longest array of objects in the result's
// JSON documents and where it is, or nil if there is none.
func largestObjectArray(res *mcp.CallToolResult) ([]any, string) {
	var best []any
	var where string
	found := false
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch x := v.(type) {
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(x[k], path+"."+k)
			}
		case []any:
			allObjects := true
			for _, e := range x {
				if _, ok := e.(map[string]any); !ok {
					allObjects = false
					break
				}
			}
			if allObjects && (!found || len(x) > len(best)) {
				best, where, found = x, path, true
			}
			for i, e := range x {
				walk(e, fmt.Sprintf("%s[%d]", path, i))
			}
		}
	}
	if res.StructuredContent != nil {
		if data, err := json.Marshal(res.StructuredContent); err == nil {
			if v, err := decodeNumbers(data); err == nil {
				walk(v, "structuredContent")
			}
		}
	}
	for i, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			if v, err := decodeNumbers([]byte(tc.Text)); err == nil {
				walk(v, fmt.Sprintf("content[%d]", i))
			}
		}
	}
	if !found {
		return nil, ""
	}
	if best == nil {
		best = []any{}
	}
	return best, where
}
