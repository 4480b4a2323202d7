package lrotest

import (
	"bytes"
	"cmp"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/oklog/ulid/v2"

	"github.com/zircote/lro-go/estimate"
)

// level1 are the requirements of Level 1, in report order.
var level1 = []requirement{
	{"L1.inline.small", 1, must, scopeSmall, 0, func(v *view) {
		switch d := findDescriptor(v.Result, true); {
		case v.Args == nil:
			v.skip("no Config.Small: give arguments whose result is within the threshold")
		case v.Failed != "":
			v.fail("%s", v.Failed)
		case d != nil:
			v.fail("the result was offloaded (file_path %s); the small arguments must give a result within the threshold of %d tokens",
				jsonText(d["file_path"]), v.c.srv.ThresholdTokens)
		}
	}, "If estimated_tokens <= threshold_tokens, return results inline as usual."},
	{"L1.offload.large", 1, must, scopeLarge, 0, func(v *view) {
		switch {
		case v.Failed != "":
			v.fail("%s", v.Failed)
		case v.Desc == nil:
			v.fail("the result is inline (%d characters of text), not offloaded; give large arguments whose result set is above the threshold of %d tokens",
				len(resultText(v.Result)), v.c.srv.ThresholdTokens)
		}
	}, "If estimated_tokens > threshold_tokens, offload to JSONL and return an OffloadResponse."},
	{"L1.offload.threshold", 1, must, scopeLarge, needFields, func(v *view) {
		est, _ := asInt(v.File.Header["estimated_tokens"])
		if limit := v.c.srv.ThresholdTokens; est <= int64(limit) {
			v.fail("offloaded although the header estimates %d tokens, not above the threshold of %d", est, limit)
		}
	}, "Results estimated to exceed this threshold are offloaded to JSONL."},
	{"L1.estimate", 1, must, scopeLarge, needFields, func(v *view) {
		// characters / 4 of the record lines or, for a file that keeps the
		// whole result beside its records (lro-go's "result"), of everything
		// the client would have received.
		est, _ := asInt(v.File.Header["estimated_tokens"])
		texts, what := v.File.Lines, "the record lines hold"
		if whole := v.File.wholeResult(); whole != nil {
			texts, what = whole, "the result the file keeps holds"
		}
		// The heuristic's own estimate, which counts a rune of Hangul, CJK, kana
		// and fullwidth forms as one token, bounds it from above.
		var chars, tokens int
		for _, l := range texts {
			chars += utf8.RuneCount(l)
			tokens += estimate.Tokens(string(l))
		}
		if float64(est) < float64(chars)/8 || est > 2*int64(tokens+len(texts)) {
			v.fail("the header estimates %d tokens; %s %d characters, ~%d tokens at 4 characters per token", est, what, chars, chars/4)
		}
	}, "Token estimation MUST use the same heuristic defined in Prompt Integration: tokens ~ characters / 4."},
	{"L1.descriptor.offloaded", 1, must, scopeLarge, needCall, func(v *view) {
		if v.Desc["offloaded"] != true {
			v.fail("offloaded is %s, want true", jsonText(v.Desc["offloaded"]))
		}
	}, "offloaded: Indicates this is an offloaded result."},
	{"L1.descriptor.file_path", 1, must, scopeLarge, needCall, func(v *view) {
		v.problems = v.Found[idPath]
	}, "file_path: Absolute path to the JSONL file."},
	{idHandle, 1, must, scopeLarge, needCall, func(v *view) {
		if _, ok := v.Desc["handle"]; !ok {
			v.skip("the descriptor has no handle: the server keeps its results where the client reads file_path")
		}
		v.problems = v.Found[idHandle]
	}, "Offer the result as an MCP resource_link too (served by resources/read), so clients that fetch resources can take it; across stateless calls, return an explicit handle with a bounded lifetime, and answer an unknown or expired handle with an error that says so."},
	{"L1.descriptor.output_schema", 1, must, scopeLarge, needCall, func(v *view) {
		if v.c.tool.OutputSchema == nil {
			v.skip("the tool advertises no outputSchema")
			return
		}
		resolved, err := resolveSchema(v.c.tool.OutputSchema)
		switch {
		case err != nil:
			v.fail("the tool's outputSchema does not resolve: %v", err)
		case v.Result.StructuredContent == nil:
			v.fail("the tool advertises an outputSchema but the offloaded result has no structuredContent")
		default:
			if err := resolved.Validate(v.Result.StructuredContent); err != nil {
				v.fail("structuredContent is not valid under the tool's outputSchema (a strict client rejects it): %v", oneLine(err.Error(), 300))
			}
		}
	}, "MCP: a tool that declares an outputSchema MUST return structured results that conform to it."},
	{"L1.no_cursor", 1, must, scopeLarge, needCall, func(v *view) {
		docs := resultDocs(v.Result)
		for k, m := range v.Result.Meta {
			docs = append(docs, jsonDoc{Where: "_meta", Value: map[string]any{k: m}})
		}
		var found []string
		for _, d := range docs {
			walk(d.Value, "", func(path, k string, _ any) {
				k2 := strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(k))
				if k != "" && cursorKey.MatchString(k2) && !strings.Contains(path+".", ".line_schema.") {
					found = append(found, d.Where+index.ReplaceAllString(path, "[]")+"."+k)
				}
			})
		}
		slices.Sort(found)
		if found = slices.Compact(found); len(found) > 0 {
			v.fail("the offloaded result carries a pagination cursor: %s", strings.Join(found, ", "))
		}
	}, "A result set MUST NOT simultaneously be offloaded to JSONL and have an active pagination cursor."},
	{"L1.file.name", 1, must, scopeLarge, needCall, func(v *view) {
		p, _ := v.Desc["file_path"].(string)
		if !filepath.IsAbs(p) {
			v.skip("depends on " + idPath)
			return
		}
		_, handle := v.Desc["handle"]
		base, prefix := filepath.Base(p), v.c.srv.Prefix
		switch _, u, ok := v.c.parseName(base, handle); {
		case !ok:
			v.fail("base name %q is not %s-{operation}-{ulid}.jsonl (with a handle, -{32+ lower-case hex digits} may follow the ULID)", base, prefix)
		case !v.inCall(ulid.Time(u.Time())):
			v.fail("the ULID's time %s is not the time of the call (%s)", ulid.Time(u.Time()).UTC().Format(time.RFC3339Nano), v.Start.UTC().Format(time.RFC3339))
		}
		if dir := cmp.Or(v.c.srv.ClientDir, v.c.srv.OutputDir); dir != "" && !sameDir(filepath.Dir(p), dir) {
			v.fail("the file is in %s, not in the output folder %s", filepath.Dir(p), dir)
		}
	}, "Files MUST be written to a configurable output directory using the naming convention {output_dir}/atlatl-{operation}-{ulid}.jsonl."},
	{"L1.operation", 1, must, scopeLarge, needCall, func(v *view) {
		v.agree("operation", v.NameOp, v.c.srv.Operation, "Config.Server.Operation", false)
	}, "operation: The operation that produced these results (header, summary and {operation} in the file name)."},
	{"L1.header.type", 1, must, scopeLarge, needFile, func(v *view) {
		switch f := v.File; {
		case len(f.Data) == 0:
			v.fail("the file is empty")
		case f.Header == nil:
			v.fail("line 1 is not a JSON object: %s", oneLine(string(f.Data[:min(len(f.Data), 120)]), 120))
		case f.Header["type"] != "lro_header":
			v.fail("the header's type is %s, want \"lro_header\"", jsonText(f.Header["type"]))
		}
	}, "The first line is a metadata header conforming to OffloadHeader; type is always \"lro_header\"."},
	{"L1.header.fields", 1, must, scopeLarge, needHeader, func(v *view) {
		if err := headerSchema.Validate(v.File.Header); err != nil {
			v.fail("the header does not type its fields as OffloadHeader: %v", err)
		}
	}, "OffloadHeader: type, operation, query, count, schema_version, timestamp, estimated_tokens, detail."},
	{"L1.header.timestamp", 1, must, scopeLarge, needFields, func(v *view) {
		ts := str(v.File.Header["timestamp"])
		t, err := time.Parse(time.RFC3339Nano, ts)
		for _, layout := range []string{"2006-01-02T15:04:05.999999999Z0700", "2006-01-02T15:04:05.999999999Z07"} {
			if err != nil {
				t, err = time.Parse(layout, ts)
			}
		}
		switch {
		case err != nil:
			v.fail("timestamp %q is not an ISO 8601 date and time with a time zone (RFC 3339)", ts)
		case !v.inCall(t):
			v.fail("timestamp %s is not the time of the call (%s)", ts, v.Start.UTC().Format(time.RFC3339))
		}
	}, "timestamp: ISO 8601 timestamp of when the file was written."},
	{"L1.header.count", 1, must, scopeLarge, needFields, func(v *view) {
		if n, _ := asInt(v.File.Header["count"]); int(n) != len(v.File.Lines) {
			v.fail("the header's count is %d but %d lines follow it", n, len(v.File.Lines))
		}
	}, "count: Total number of memory lines following the header."},
	{"L1.header.query", 1, must, scopeLarge, needFields, func(v *view) {
		qa := v.c.srv.QueryArgument
		q, ok := v.Args[qa].(string)
		got := v.File.Header["query"]
		switch {
		case !ok:
			v.skip("the call has no string %s argument", qa)
		case got != q:
			v.fail("the header's query is %s, want %q (the call's %s argument)", jsonText(got), q, qa)
		}
	}, "query: The query string (if applicable)."},
	{"L1.detail", 1, must, scopeLarge, needCall, func(v *view) {
		v.agree("detail", "", v.Detail, "the call's detail level", true)
	}, "The JSONL file MUST serialize memories at the detail level specified in the original tool call; if none is specified, the tool's default applies."},
	{"L1.records.jsonl", 1, must, scopeLarge, needFile, func(v *view) {
		for n, i := range v.File.Bad {
			what := "not one JSON value"
			if len(bytes.TrimSpace(v.File.Lines[i])) == 0 {
				what = "empty"
			}
			if n == 3 {
				v.fail("and %d more", len(v.File.Bad)-3)
				break
			}
			v.fail("line %d is %s", i+2, what)
		}
	}, "Offloaded results are written as line-delimited JSON (JSONL): a header line followed by one object per line."},
	{"L1.summary.fields", 1, must, scopeLarge, needCall, func(v *view) {
		raw, present := v.Desc["summary"]
		switch {
		case !present:
			v.fail("the descriptor has no summary")
		case v.Summary == nil:
			v.fail("summary is %s, not an object", jsonText(raw))
		default:
			if err := summarySchema.Validate(v.Summary); err != nil {
				v.fail("summary does not type its fields as OffloadSummary: %v", err)
			} else if r, _ := v.Summary["score_range"].([]any); r != nil && r[0].(float64) > r[1].(float64) {
				v.fail("score_range %s has its min above its max", jsonText(r))
			}
		}
	}, "Level 1: the descriptor contains file reference and summary statistics (OffloadSummary)."},
	{"L1.summary.count", 1, must, scopeLarge, needFile, func(v *view) {
		if n, ok := asInt(v.Summary["count"]); !ok {
			v.skip("no integer summary.count (see L1.summary.fields)")
		} else if int(n) != len(v.File.Lines) {
			v.fail("summary.count is %d but the file holds %d record lines", n, len(v.File.Lines))
		}
	}, "count: Total number of memories in the file."},
	{"L1.summary.tokens", 1, must, scopeLarge, needFields, func(v *view) {
		st, ok := asInt(v.Summary["estimated_tokens"])
		ht, _ := asInt(v.File.Header["estimated_tokens"])
		switch {
		case !ok:
			v.skip("no integer summary.estimated_tokens (see L1.summary.fields)")
		case st <= 0:
			v.fail("summary.estimated_tokens is %d: offloading a result set above the threshold saves tokens", st)
		case st > ht:
			v.fail("summary.estimated_tokens (%d) is more than the header's estimate of the whole result set (%d)", st, ht)
		}
	}, "estimated_tokens: Estimated total tokens saved by offloading."},
	{"L1.summary.top_namespaces", 1, must, scopeLarge, needFile, func(v *view) {
		list, ok := v.Summary["top_namespaces"].([]any)
		if !ok {
			v.skip("no top_namespaces array (see L1.summary.fields)")
			return
		}
		counts := map[string]int{}
		for _, r := range v.File.Records {
			m, _ := r.(map[string]any)
			if ns := str(m["namespace"]); ns != "" {
				counts[ns]++
			}
		}
		// The i-th namespace listed must have as many records as the i-th most
		// frequent one.
		top := slices.SortedFunc(maps.Values(counts), func(a, b int) int { return b - a })
		top = top[:min(5, len(top))]
		if len(list) != len(top) {
			v.fail("lists %d namespaces; the records have %d distinct ones, so want %d", len(list), len(counts), len(top))
		}
		for i, e := range list[:min(len(list), len(top))] {
			if ns := str(e); counts[ns] != top[i] {
				v.fail("top_namespaces[%d] %q has %d records, but namespace %d by frequency has %d: want the most frequent first",
					i, ns, counts[ns], i+1, top[i])
			}
		}
	}, "top_namespaces: Top namespaces represented (up to 5)."},
}

var (
	cursorKey = regexp.MustCompile(`cursor|^(nextoffset|nextpage|nextpagetoken|pagetoken|nexttoken)$`)
	index     = regexp.MustCompile(`\[\d+\]`)
)

func (v *view) inCall(t time.Time) bool {
	return !t.Before(v.Start.Add(-maxClockSkew)) && !t.After(v.End.Add(maxClockSkew))
}

// agree checks that the header's, the summary's and (for the operation) the
// file name's key agree, with want (from) when it is set.
func (v *view) agree(key, fromName, want, from string, fold bool) {
	var got [][2]string // where, what it says
	add := func(where string, s any) {
		if s, ok := s.(string); ok {
			got = append(got, [2]string{where, s})
		}
	}
	if v.File != nil {
		add("the header", v.File.Header[key])
	}
	add("the summary", v.Summary[key])
	if fromName != "" {
		add("the file name", fromName)
	}
	switch {
	case len(got) == 0:
		v.skip("no %s to compare (see L1.header.fields, L1.summary.fields)", key)
		return
	case want == "" && key == "detail" && len(got) < 2:
		v.skip("the call names no detail level and Config.Server.DefaultDetail is empty")
		return
	case want == "":
		want, from = got[0][1], got[0][0]
	}
	for _, g := range got {
		if g[1] != want && !(fold && strings.EqualFold(g[1], want)) {
			v.fail("%s says %s %q but %s is %q", g[0], key, g[1], from, want)
		}
	}
}

// headerSchema and summarySchema give the fields of OffloadHeader and
// OffloadSummary their types.
var (
	headerSchema = mustResolve(`{
		"$defs": {"text": {"type": "string", "minLength": 1}, "count": {"type": "integer", "minimum": 0}},
		"required": ["type", "operation", "query", "count", "schema_version", "timestamp", "estimated_tokens", "detail"],
		"properties": {"type": {"$ref": "#/$defs/text"}, "operation": {"$ref": "#/$defs/text"},
			"query": {"type": ["string", "null"]}, "count": {"$ref": "#/$defs/count"},
			"schema_version": {"$ref": "#/$defs/text"}, "timestamp": {"$ref": "#/$defs/text"},
			"estimated_tokens": {"$ref": "#/$defs/count"}, "detail": {"$ref": "#/$defs/text"}}}`)
	summarySchema = mustResolve(`{
		"$defs": {"text": {"type": "string", "minLength": 1}, "count": {"type": "integer", "minimum": 0}},
		"required": ["count", "estimated_tokens", "operation", "detail", "top_namespaces", "score_range"],
		"properties": {"count": {"$ref": "#/$defs/count"}, "estimated_tokens": {"$ref": "#/$defs/count"},
			"operation": {"$ref": "#/$defs/text"}, "detail": {"$ref": "#/$defs/text"},
			"top_namespaces": {"type": "array", "items": {"type": "string"}, "maxItems": 5, "uniqueItems": true},
			"score_range": {"type": ["array", "null"], "items": {"type": "number"}, "minItems": 2, "maxItems": 2}}}`)
)
