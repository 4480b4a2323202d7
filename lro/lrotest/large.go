package lrotest

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
	"github.com/zircote/lro-go/internal/jsonlfile"
	"github.com/zircote/lro-go/internal/offload"
)

// fileView is an offloaded file as read by the kit.
type fileView struct {
	path    string // the descriptor's file_path
	local   string // where data is on this machine: path, or the kit's copy
	fetched bool   // data was fetched with resources/read (local is a copy)
	data    []byte
	header  map[string]any // nil unless line 1 is a JSON object
	lines   [][]byte       // record lines (line 2 on)
	records []any          // the record lines that decoded
	bad     []int          // the indexes in lines of those that did not
}

// offloadedFile is a file this run made the server write.
type offloadedFile struct {
	path    string
	created time.Time
}

func (c *checker) runLarge(ctx context.Context, lc largeCase) {
	c.begin(lc.label)
	defer c.end(scopeLarge)
	start := time.Now()
	res, failed := c.call(ctx, c.cs, lc.args)
	end := time.Now()
	var desc map[string]any
	if failed != "" {
		c.fail("L1.offload.large", "%s", failed)
	} else if desc = findDescriptor(res, false); desc == nil {
		c.fail("L1.offload.large", "the result is inline (%d characters of text), not offloaded; give large arguments whose result set is above the threshold of %d tokens",
			len(resultText(res)), c.srv.ThresholdTokens)
	}
	if desc == nil {
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

	f := c.readFile(ctx, desc, res)
	_, hasHandle := desc["handle"]
	var nameOp string
	if p, ok := desc["file_path"].(string); ok && p != "" {
		nameOp = c.checkFileName(p, hasHandle, start, end)
	}
	summary, _ := desc["summary"].(map[string]any)
	c.checkSummaryFields(desc)
	if f != nil {
		c.checkFile(lc, f, start, end)
		if c.fullCount < 0 {
			c.fullCount = len(f.lines)
		}
		if f.fetched {
			c.fetched++
		} else {
			c.local++
			created := start
			if _, id, ok := c.parseName(filepath.Base(f.path), hasHandle); ok {
				created = ulid.Time(id.Time())
			}
			c.files = append(c.files, offloadedFile{path: f.path, created: created})
		}
		dir := c.srv.OutputDir
		if dir == "" && !f.fetched {
			dir = filepath.Dir(f.path)
		}
		if c.srv.CleanupInterval > 0 && dir != "" && c.plant == nil && c.cfg.Level >= 2 {
			// Plant once the server has made its folder.
			c.plantExpired(dir, cmp.Or(nameOp, c.srv.Operation))
		}
	}
	var header map[string]any
	if f != nil {
		header = f.header
	}
	c.agree("L1.operation", "operation", header, summary, nameOp, c.srv.Operation, "Config.Server.Operation", false)
	c.agree("L1.detail", "detail", header, summary, "", lc.detail, "the call's detail level", true)
	if summary != nil {
		c.checkSummary(f, summary)
	} else {
		c.block("L1.summary.fields")
	}
	if c.cfg.Level >= 2 {
		c.checkLevel2(ctx, lc, desc, f)
	}
}

// doc is a JSON document of a result, and where it is.
type doc struct {
	where string
	v     any
}

// resultDocs returns the JSON documents of a result: its structuredContent
// and every text content that is one JSON value, decoded with numbers as
// json.Number.
func resultDocs(res *mcp.CallToolResult) []doc {
	var docs []doc
	if res.StructuredContent != nil {
		if data, err := json.Marshal(res.StructuredContent); err == nil {
			if v, err := decodeNumbers(data); err == nil {
				docs = append(docs, doc{"structuredContent", v})
			}
		}
	}
	for i, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			if v, err := decodeNumbers([]byte(tc.Text)); err == nil {
				docs = append(docs, doc{fmt.Sprintf("content[%d]", i), v})
			}
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
		_, hasPath := m["file_path"]
		if m["offloaded"] == true || !strict && (hasFlag || hasPath) {
			return m
		}
	}
	return nil
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
	var texts []string
	for _, ct := range res.Content {
		if tc, ok := ct.(*mcp.TextContent); ok {
			texts = append(texts, tc.Text)
		}
	}
	return strings.Join(texts, "\n")
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
		return int64(n), n == math.Trunc(n) && math.Abs(n) < 1<<53
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

// walk calls visit on every object key of v, sorted, with its path.
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

var cursorKey = regexp.MustCompile(`cursor|^(nextoffset|nextpage|nextpagetoken|pagetoken|nexttoken)$`)

func isCursorKey(k string) bool {
	return cursorKey.MatchString(strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(k)))
}

func (c *checker) checkNoCursor(res *mcp.CallToolResult) {
	docs := resultDocs(res)
	for k, v := range res.Meta {
		docs = append(docs, doc{"_meta", map[string]any{k: v}})
	}
	var found []string
	for _, d := range docs {
		walk(d.v, "", func(path, k string, _ any) {
			if k != "" && isCursorKey(k) && !strings.Contains(path+".", ".line_schema.") {
				found = append(found, d.where+regexp.MustCompile(`\[\d+\]`).ReplaceAllString(path, "[]")+"."+k)
			}
		})
	}
	if found = dedupe(found); len(found) > 0 {
		c.fail("L1.no_cursor", "the offloaded result carries a pagination cursor: %s", strings.Join(found, ", "))
		return
	}
	c.pass("L1.no_cursor")
}

func (c *checker) checkOutputSchema(res *mcp.CallToolResult) {
	const id = "L1.descriptor.output_schema"
	if c.tool.OutputSchema == nil {
		c.skip(id, "the tool advertises no outputSchema")
		return
	}
	resolved, err := resolveSchema(c.tool.OutputSchema)
	if err != nil {
		c.fail(id, "the tool's outputSchema does not resolve: %v", err)
		return
	}
	if res.StructuredContent == nil {
		c.fail(id, "the tool advertises an outputSchema but the offloaded result has no structuredContent")
		return
	}
	var v any
	data, err := json.Marshal(res.StructuredContent)
	if err == nil {
		err = json.Unmarshal(data, &v)
	}
	if err != nil {
		c.fail(id, "structuredContent: %v", err)
	} else if err := resolved.Validate(v); err != nil {
		c.fail(id, "structuredContent is not valid under the tool's outputSchema (a strict client rejects it): %v", oneLine(err.Error(), 300))
	} else {
		c.pass(id)
	}
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
// When the descriptor has a handle, it checks the handle too (see
// checkHandle), and reads the file with resources/read if file_path is not
// on this machine.
func (c *checker) readFile(ctx context.Context, desc map[string]any, res *mcp.CallToolResult) *fileView {
	const id = "L1.descriptor.file_path"
	raw, present := desc["file_path"]
	p, ok := raw.(string)
	_, hasHandle := desc["handle"]
	if !hasHandle {
		c.skip(idHandle, "the descriptor has no handle: the server keeps its results where the client reads file_path")
	}
	var fi os.FileInfo
	var err error
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
		fi, err = os.Stat(p)
	}
	var data []byte
	switch {
	case fi == nil && err == nil:
	case err != nil && hasHandle:
		// The result is on the server: file_path is where a client that
		// downloads it keeps it.
		c.pass(id)
		if data = c.checkHandle(ctx, desc, res, nil); data == nil {
			c.block(idHandle)
			return nil
		}
		local, err := c.keep(data)
		if err != nil {
			c.block(fmt.Sprintf("a copy of the file fetched with resources/read, which the kit could not keep (%v)", err))
			return nil
		}
		f := parseFile(p, data)
		f.local, f.fetched = local, true
		return f
	case err != nil:
		c.fail(id, "file_path names no file the client can read, and the descriptor has no handle to fetch it by: %v", err)
	case !fi.Mode().IsRegular():
		c.fail(id, "file_path %q is not a regular file (%s)", p, fi.Mode().Type())
	default:
		if data, err = os.ReadFile(p); err != nil {
			c.fail(id, "reading file_path: %v", err)
			break
		}
		c.pass(id)
		if hasHandle {
			c.checkHandle(ctx, desc, res, data)
		}
		f := parseFile(p, data)
		f.local = p
		return f
	}
	if hasHandle {
		c.checkHandle(ctx, desc, res, nil)
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
	for i, l := range f.lines {
		if v, err := jqcmd.Decode(l); err == nil {
			f.records = append(f.records, v)
		} else {
			f.bad = append(f.bad, i)
		}
	}
	return f
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

// checkFileName checks the naming convention and returns the file name's
// operation ("" when the name does not follow it). A result with a handle
// may carry a random part in its name.
func (c *checker) checkFileName(p string, handle bool, start, end time.Time) string {
	base := filepath.Base(p)
	op, u, ok := c.parseName(base, handle)
	var problems []string
	switch {
	case !ok && handle:
		problems = append(problems, fmt.Sprintf("base name %q is not %s-{operation}-{ulid}.jsonl or, with a handle, %s-{operation}-{ulid}-{random}.jsonl, with a canonical 26-character ULID and at least 32 lower-case hex digits of random", base, c.srv.Prefix, c.srv.Prefix))
	case !ok:
		problems = append(problems, fmt.Sprintf("base name %q is not %s-{operation}-{ulid}.jsonl with a canonical 26-character ULID", base, c.srv.Prefix))
	case !inCall(ulid.Time(u.Time()), start, end):
		problems = append(problems, fmt.Sprintf("the ULID's time %s is not the time of the call (%s)", ulid.Time(u.Time()).UTC().Format(time.RFC3339Nano), start.UTC().Format(time.RFC3339)))
	}
	if dir := cmp.Or(c.srv.ClientDir, c.srv.OutputDir); dir != "" && filepath.IsAbs(p) && !sameDir(filepath.Dir(p), dir) {
		problems = append(problems, fmt.Sprintf("the file is in %s, not in the output folder %s", filepath.Dir(p), dir))
	}
	c.check("L1.file.name", problems)
	return op
}

func inCall(t, start, end time.Time) bool {
	return !t.Before(start.Add(-maxClockSkew)) && !t.After(end.Add(maxClockSkew))
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

// A fieldCheck says what is wrong with a field's value, or "".
type fieldCheck func(v any) string

func nonEmptyString(v any) string {
	if s, ok := v.(string); !ok {
		return "not a string"
	} else if s == "" {
		return "empty"
	}
	return ""
}

func nonNegativeInt(v any) string {
	if n, ok := asInt(v); !ok {
		return "not an integer"
	} else if n < 0 {
		return "negative"
	}
	return ""
}

// fieldProblems checks the fields of m, in order.
func fieldProblems(m map[string]any, names []string, checks []fieldCheck) []string {
	var problems []string
	for i, name := range names {
		if v, ok := m[name]; !ok {
			problems = append(problems, name+" is missing")
		} else if why := checks[i](v); why != "" {
			problems = append(problems, fmt.Sprintf("%s is %s: %s", name, why, jsonText(v)))
		}
	}
	return problems
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
	var bad []string
	for _, i := range f.bad {
		what := "not one JSON value"
		if len(bytes.TrimSpace(f.lines[i])) == 0 {
			what = "empty"
		}
		bad = append(bad, fmt.Sprintf("line %d is %s", i+2, what))
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
	stringOrNull := func(v any) string {
		if _, ok := v.(string); ok || v == nil {
			return ""
		}
		return "not a string or null"
	}
	c.check("L1.header.fields", fieldProblems(h,
		[]string{"type", "operation", "query", "count", "schema_version", "timestamp", "estimated_tokens", "detail"},
		[]fieldCheck{nonEmptyString, nonEmptyString, stringOrNull, nonNegativeInt, nonEmptyString, nonEmptyString, nonNegativeInt, nonEmptyString}))

	if ts, ok := h["timestamp"].(string); !ok {
		c.skip("L1.header.timestamp", "no string timestamp (see L1.header.fields)")
	} else if t, err := parseTimestamp(ts); err != nil {
		c.fail("L1.header.timestamp", "timestamp %q: %v", ts, err)
	} else if !inCall(t, start, end) {
		c.fail("L1.header.timestamp", "timestamp %s is not the time of the call (%s)", ts, start.UTC().Format(time.RFC3339))
	} else {
		c.pass("L1.header.timestamp")
	}

	if n, ok := asInt(h["count"]); !ok {
		c.skip("L1.header.count", "no integer count (see L1.header.fields)")
	} else if int(n) != len(f.lines) {
		c.fail("L1.header.count", "the header's count is %d but %d lines follow it", n, len(f.lines))
	} else {
		c.pass("L1.header.count")
	}

	qa := c.srv.QueryArgument
	if q, ok := lc.args[qa].(string); !ok {
		c.skip("L1.header.query", "the call has no string %s argument", qa)
	} else if got, present := h["query"]; !present {
		c.skip("L1.header.query", "the header has no query (see L1.header.fields)")
	} else if got != q {
		c.fail("L1.header.query", "the header's query is %s, want %q (the call's %s argument)", jsonText(got), q, qa)
	} else {
		c.pass("L1.header.query")
	}

	if est, ok := asInt(h["estimated_tokens"]); !ok {
		c.skip("L1.offload.threshold", "no integer estimated_tokens in the header (see L1.header.fields)")
	} else if est <= int64(c.srv.ThresholdTokens) {
		c.fail("L1.offload.threshold", "offloaded although the header estimates %d tokens, not above the threshold of %d", est, c.srv.ThresholdTokens)
	} else {
		c.pass("L1.offload.threshold")
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
	// What was estimated: the record lines, or, for a file that keeps the
	// whole result beside its records (lro-go's "result"), everything the
	// client would have received: its texts and structured content.
	texts, what := f.lines, "the record lines hold"
	if whole, ok := f.wholeResult(); ok {
		texts, what = whole, "the result the file keeps holds"
	}
	var chars, wide int
	for _, l := range texts {
		for _, r := range string(l) {
			chars++
			// Tokenizers spend about one token per rune of Hangul, CJK,
			// kana and fullwidth forms.
			if r >= 0x1100 && r <= 0x11FF || r >= 0x2E80 && r <= 0xA4CF || r >= 0xAC00 && r <= 0xD7AF ||
				r >= 0xF900 && r <= 0xFAFF || r >= 0xFE30 && r <= 0xFE4F || r >= 0xFF00 && r <= 0xFFEF || r >= 0x20000 && r <= 0x3FFFF {
				wide++
			}
		}
	}
	lo := float64(chars) / 4 / 2
	hi := 2 * (float64(chars-wide)/4 + float64(wide) + float64(len(texts)))
	if float64(est) < lo || float64(est) > hi {
		c.fail(id, "the header estimates %d tokens; %s %d characters, ~%d tokens at 4 characters per token", est, what, chars, chars/4)
		return
	}
	c.pass(id)
}

// wholeResult returns the texts a client would have received of the result
// a file keeps whole (its header's "result", with the records put back):
// every text item and the structured content's JSON. ok is false for a file
// without "result".
func (f *fileView) wholeResult() (texts [][]byte, ok bool) {
	if f.header == nil || f.header["result"] == nil {
		return nil, false
	}
	line, _, _ := bytes.Cut(f.data, []byte("\n"))
	var layout struct {
		Result    json.RawMessage       `json:"result"`
		RecordsAt []jsonlfile.Placement `json:"records_at"`
		Copies    []jsonlfile.Copy      `json:"copies"`
	}
	if json.Unmarshal(line, &layout) != nil {
		return nil, false
	}
	h := jsonlfile.FileHeader{Result: layout.Result, RecordsAt: layout.RecordsAt, Copies: layout.Copies}
	rebuilt, err := offload.Rebuild(h, f.lines)
	if err != nil {
		// The lines do not fit the header (other checks say why): count
		// them, twice when a text repeated them, beside the rest.
		texts = append(append(texts, h.Result), f.lines...)
		if len(h.Copies) > 0 {
			texts = append(texts, f.lines...)
		}
		return texts, true
	}
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if json.Unmarshal(rebuilt, &res) != nil {
		return nil, false
	}
	for _, c := range res.Content {
		if c.Type == "text" {
			texts = append(texts, []byte(c.Text))
		}
	}
	if res.StructuredContent != nil {
		texts = append(texts, res.StructuredContent)
	}
	return texts, true
}

// agree checks that the header's, the summary's and (for the operation)
// the file name's key agree, with want (from) when it is set.
func (c *checker) agree(id, key string, header, summary map[string]any, fromName, want, from string, fold bool) {
	var got [][2]string
	for _, src := range []struct {
		where string
		m     map[string]any
	}{{"the header", header}, {"the summary", summary}} {
		if v, ok := src.m[key].(string); ok {
			got = append(got, [2]string{src.where, v})
		}
	}
	if fromName != "" {
		got = append(got, [2]string{"the file name", fromName})
	}
	switch {
	case len(got) == 0:
		c.skip(id, "no %s to compare (see L1.header.fields, L1.summary.fields)", key)
		return
	case want == "" && key == "detail" && len(got) < 2:
		c.skip(id, "the call names no detail level and Config.Server.DefaultDetail is empty")
		return
	case want == "":
		want, from = got[0][1], got[0][0]
	}
	var problems []string
	for _, g := range got {
		if g[1] != want && !(fold && strings.EqualFold(g[1], want)) {
			problems = append(problems, fmt.Sprintf("%s says %s %q but %s is %q", g[0], key, g[1], from, want))
		}
	}
	c.check(id, problems)
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
	topNamespaces := func(v any) string {
		list, ok := v.([]any)
		switch {
		case !ok:
			return "not an array"
		case len(list) > 5:
			return "longer than 5"
		}
		for i, e := range list {
			if _, ok := e.(string); !ok {
				return "not an array of strings"
			}
			if slices.Contains(list[:i], e) {
				return "not distinct"
			}
		}
		return ""
	}
	scoreRange := func(v any) string {
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
	}
	c.check(id, fieldProblems(s, []string{"count", "estimated_tokens", "operation", "detail", "top_namespaces", "score_range"},
		[]fieldCheck{nonNegativeInt, nonNegativeInt, nonEmptyString, nonEmptyString, topNamespaces, scoreRange}))
}

func (c *checker) checkSummary(f *fileView, s map[string]any) {
	if f == nil {
		return // the file-dependent checks are skipped with the blocker
	}
	if n, ok := asInt(s["count"]); !ok {
		c.skip("L1.summary.count", "no integer summary.count (see L1.summary.fields)")
	} else if int(n) != len(f.lines) {
		c.fail("L1.summary.count", "summary.count is %d but the file holds %d record lines", n, len(f.lines))
	} else {
		c.pass("L1.summary.count")
	}

	st, ok1 := asInt(s["estimated_tokens"])
	ht, ok2 := asInt(f.header["estimated_tokens"])
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
	for _, r := range f.records {
		if m, ok := r.(map[string]any); ok {
			if ns, ok := m["namespace"].(string); ok && ns != "" {
				counts[ns]++
			}
		}
	}
	var problems []string
	if want := min(5, len(counts)); len(list) != want {
		problems = append(problems, fmt.Sprintf("lists %d namespaces; the records have %d distinct ones, so want %d", len(list), len(counts), want))
	}
	var prev string
	for i, e := range list {
		ns, _ := e.(string)
		switch {
		case counts[ns] == 0:
			problems = append(problems, fmt.Sprintf("%q is the namespace of no record", ns))
		case i > 0 && counts[ns] > counts[prev]:
			problems = append(problems, fmt.Sprintf("%q (%d records) comes after %q (%d records): not most frequent first", ns, counts[ns], prev, counts[prev]))
		}
		prev = ns
	}
	for _, ns := range slices.Sorted(maps.Keys(counts)) {
		if len(list) > 0 && !slices.Contains(list, any(ns)) && counts[ns] > counts[prev] {
			problems = append(problems, fmt.Sprintf("%q (%d records) is left out, but is more frequent than %q (%d)", ns, counts[ns], prev, counts[prev]))
		}
	}
	c.check("L1.summary.top_namespaces", problems)
}
