package lro_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/estimate"
	"github.com/zircote/lro-go/internal/jqcmd"
	"github.com/zircote/lro-go/internal/testing/jqengines"
	"github.com/zircote/lro-go/internal/testing/realshapes"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/event"
	"github.com/zircote/lro-go/lro/internal/offload"
)

// The tests of this file run every item of the corpus of real shapes
// (internal/testing/realshapes: tool results recorded from the reference MCP
// servers, the Python reference servers' formats, sqlite3, Python's csv
// module and public API examples), made large, through lro.Wrap, and check
// what issue 21 asks of each: offloaded, never the fallback; the file
// rebuilds the result byte for byte; one record per row or element where
// the corpus knows how many; ten recipes that run with the same
// output under jq 1.6, 1.7.1, 1.8.2 and gojq, each within ten times the
// CPU time of jq -c . on the same file; a line schema true to every line.
// TestRealShapesAnswersFit checks what issue 24 asks of the recipes on
// records of 1 KB or more.

// realLargeTokens is how large each item is made: well above the default
// threshold.
const realLargeTokens = 12000

// recipeCostFactor and recipeStartCPU bound a recipe's CPU time under
// jq 1.6: at most recipeCostFactor times that of jq -c . on the same file,
// plus recipeStartCPU for starting the processes (sh, tail and jq).
const (
	recipeCostFactor = 10
	recipeStartCPU   = 50 * time.Millisecond
)

// offloadedShape is one corpus item offloaded through lro.Wrap.
type offloadedShape struct {
	sent        *mcp.CallToolResult // the large result the tool returns
	want        []byte              // the result's JSON as the server sends it without offloading
	wantRecords int                 // records a reader of its format counts, 0 if unknown
	res         *mcp.CallToolResult
	events      []event.Event
	desc        offloadResponse
	header      []byte   // the file's header line
	records     [][]byte // the file's record lines
	rebuilt     []byte
	err         error // why the descriptor or file could not be read
}

// offloadReal makes it large and calls it through lro.Wrap.
func offloadReal(t *testing.T, it realshapes.Item) *offloadedShape {
	t.Helper()
	large, recs, err := largeResult(it, realLargeTokens)
	if err != nil {
		t.Fatal(err)
	}
	h := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		cp := *large // the offloader rewrites the result in place
		return &cp, nil
	}
	o := &offloadedShape{sent: large, wantRecords: recs}

	// What the server sends of the result without offloading.
	o.want = resultJSON(t, large)

	obs := &recorder{}
	s := newServer()
	s.AddTool(&mcp.Tool{Name: "t", InputSchema: rawInputSchema}, lro.Wrap(h, &lro.Options{OutputDir: t.TempDir(), Observer: obs}))
	if o.res, err = connect(t, s).CallTool(context.Background(), &mcp.CallToolParams{Name: "t", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	o.events = obs.all()
	if len(o.res.Content) != 1 {
		o.err = fmt.Errorf("the result has %d content items, not one descriptor", len(o.res.Content))
		return o
	}
	tc, ok := o.res.Content[0].(*mcp.TextContent)
	if !ok {
		o.err = fmt.Errorf("the result is a %T, not a descriptor", o.res.Content[0])
		return o
	}
	if err := json.Unmarshal([]byte(tc.Text), &o.desc); err != nil || !o.desc.Offloaded {
		o.err = fmt.Errorf("the result is not a descriptor (%v): %.300s", err, tc.Text)
		return o
	}
	h1, lines, err := offload.ReadFile(o.desc.FilePath)
	if err != nil {
		o.err = err
		return o
	}
	data, err := os.ReadFile(o.desc.FilePath)
	if err != nil {
		o.err = err
		return o
	}
	o.header, _, _ = bytes.Cut(data, []byte("\n"))
	for _, l := range lines {
		o.records = append(o.records, l)
	}
	if o.rebuilt, err = offload.Rebuild(h1, o.records); err != nil {
		o.err = err
	}
	return o
}

// realItems returns the corpus.
func realItems(t *testing.T) []realshapes.Item {
	t.Helper()
	items, err := realshapes.Items()
	if err != nil {
		t.Fatal(err)
	}
	return items
}

func TestRealShapes(t *testing.T) {
	needRealJQ(t)
	engs := realEngines(t)
	for _, it := range realItems(t) {
		t.Run(it.Name, func(t *testing.T) {
			// The items run two at a time or more (go test's -parallel is
			// the number of processors): most of the time goes to jq
			// processes and engines, and the cost check compares
			// processor times, which other items do not change.
			t.Parallel()
			o := offloadReal(t, it)
			checkOffloaded(t, o)
			if o.err != nil {
				t.Fatal(o.err)
			}
			if why, ok := spacedByHand[it.Name]; ok {
				t.Logf("compared with its JSON text compacted: %s", why)
				checkRebuilt(t, o.want, o.rebuilt)
			} else {
				checkExactRebuild(t, o)
			}
			if o.wantRecords > 0 && len(o.records) != o.wantRecords {
				t.Errorf("%d records, want %d: one per row or element", len(o.records), o.wantRecords)
			}
			checkOneCopy(t, o.sent, o)
			checkLineSchema(t, o)
			if len(o.desc.JqRecipes) != 10 {
				t.Errorf("%d recipes, want 10", len(o.desc.JqRecipes))
			}
			base := jqBaseline(t, o.desc.FilePath)
			for i, r := range o.desc.JqRecipes {
				runEverywhere(t, engs, i+1, r, o.desc.FilePath, base)
			}
		})
	}
}

// spacedByHand are the corpus items whose JSON text, as recorded from its
// source, no printer's layout gives back: package offload's one exception,
// they come back compact.
var spacedByHand = map[string]string{
	"world-countries/json": `countries.json indents each "srp" translation's members by 14 spaces where all others at that depth have 16`,
}

// checkExactRebuild checks that the file rebuilds the result byte for byte
// (stricter than checkRebuilt, which compacts JSON texts first):
// every text byte, every number as written, every member in its order.
// The two are compared in compact form with strings spelled one way, since
// how a JSON encoder escapes a character (< or \u003c) or spaces the
// envelope is not part of the result.
func checkExactRebuild(t *testing.T, o *offloadedShape) {
	t.Helper()
	want, got := compactJSON(t, o.want), compactJSON(t, o.rebuilt)
	if bytes.Equal(want, got) {
		return
	}
	how := "the content differs"
	if nw, ng := normalResult(t, o.want), normalResult(t, o.rebuilt); bytes.Equal(nw, ng) {
		how = "text items holding JSON come back compacted: their spacing is lost"
	} else {
		want, got = nw, ng
		how += ", even with JSON texts compacted"
	}
	at := 0
	for at < min(len(want), len(got)) && want[at] == got[at] {
		at++
	}
	from := max(0, at-60)
	t.Errorf("the file does not rebuild the result byte for byte (%s): from byte %d of %d (rebuilt %d),\nwant %.200q\n got %.200q", how, at, len(want), len(got), want[from:], got[from:])
}

// checkOneCopy checks that data the result sends twice, as text and as
// structured content (server-filesystem sends {"content": <the text>}), is
// stored once: the file's header, which keeps what is not records, is
// smaller than the repeated text.
func checkOneCopy(t *testing.T, res *mcp.CallToolResult, o *offloadedShape) {
	t.Helper()
	sc, ok := res.StructuredContent.(json.RawMessage)
	if !ok {
		return
	}
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok || len(tc.Text) < 1024 {
			continue
		}
		quoted, err := json.Marshal(tc.Text)
		if err != nil {
			t.Fatal(err)
		}
		dup := bytes.Contains(sc, quoted)
		if !dup && json.Valid([]byte(tc.Text)) {
			dup = bytes.Equal(compactJSON(t, sc), compactJSON(t, []byte(tc.Text)))
		}
		if dup && len(o.header) >= len(tc.Text) {
			t.Errorf("the structured content repeats a text of %d bytes, and the file's header line is %d bytes: the copy is stored twice", len(tc.Text), len(o.header))
		}
	}
}

// checkOffloaded checks that the call offloaded: one Offloaded event and
// no WriteFailed (the fallback).
func checkOffloaded(t *testing.T, o *offloadedShape) {
	t.Helper()
	var kinds []string
	offloaded := 0
	for _, e := range o.events {
		kinds = append(kinds, fmt.Sprintf("%T", e))
		switch e := e.(type) {
		case event.Offloaded:
			offloaded++
		case event.WriteFailed:
			t.Errorf("the fallback: %+v", e)
		}
	}
	if offloaded != 1 {
		t.Errorf("events %v, want one event.Offloaded", kinds)
	}
}

// checkLineSchema validates every record line against the descriptor's
// line_schema.
func checkLineSchema(t *testing.T, o *offloadedShape) {
	t.Helper()
	if o.desc.LineSchema == nil {
		t.Errorf("the descriptor has no line_schema")
		return
	}
	data, err := json.Marshal(o.desc.LineSchema)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Errorf("line_schema is not a JSON Schema: %v", err)
		return
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Errorf("line_schema does not resolve: %v", err)
		return
	}
	bad := 0
	for i, l := range o.records {
		var v any
		if err := json.Unmarshal(l, &v); err != nil {
			t.Errorf("line %d is not JSON: %v", i+2, err)
			continue
		}
		if err := rs.Validate(v); err != nil {
			if bad++; bad <= 3 {
				t.Errorf("line %d is not valid under line_schema: %v\nline: %.300s", i+2, err, l)
			}
		}
	}
	if bad > 3 {
		t.Errorf("... %d lines in all are not valid under line_schema", bad)
	}
}

// needRealJQ skips the test when jq is not on the PATH, except under CI.
func needRealJQ(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("jq"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("jq is required under CI: %v", err)
		}
		t.Skipf("jq not found: %v", err)
	}
}

// realEngines starts jq 1.7.1 and 1.8.2 for the test; it skips the test
// when they are not installed, except under CI.
func realEngines(t *testing.T) []*jqengines.Engine {
	t.Helper()
	var engs []*jqengines.Engine
	for _, v := range jqengines.Versions {
		e, err := jqengines.Start(v)
		if err != nil {
			if os.Getenv("CI") == "" && errors.Is(err, jqengines.ErrNotInstalled) {
				t.Skip(err)
			}
			t.Fatal(err)
		}
		t.Cleanup(func() { e.Close() })
		engs = append(engs, e)
	}
	return engs
}

// cpuRun runs a shell command and returns its standard output and the CPU
// time of the shell and the processes it waited for.
func cpuRun(command string) (stdout []byte, cpu time.Duration, err error) {
	cmd := exec.Command("sh", "-c", command)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	err = cmd.Run()
	if cmd.ProcessState != nil {
		cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	if err == nil && stderr.Len() > 0 {
		err = errors.New("wrote to standard error")
	}
	if err != nil {
		err = fmt.Errorf("%v: %.500s", err, stderr.String())
	}
	return out.Bytes(), cpu, err
}

// jqBaseline is the CPU time of jq -c . on the file under jq 1.6, the
// least of three runs.
func jqBaseline(t *testing.T, path string) time.Duration {
	t.Helper()
	var least time.Duration
	for i := range 3 {
		_, cpu, err := cpuRun("jq -c . " + shellQuote(path) + " > /dev/null")
		if err != nil {
			t.Fatalf("jq -c . on the file: %v", err)
		}
		if i == 0 || cpu < least {
			least = cpu
		}
	}
	return least
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// runEverywhere runs recipe n under jq 1.6 (its command, checking its CPU
// time), jq 1.7.1 and 1.8.2 (package jqengines) and gojq, and compares the
// outputs.
func runEverywhere(t *testing.T, engs []*jqengines.Engine, n int, r jqRecipe, path string, base time.Duration) {
	t.Helper()
	out16, cpu, err := cpuRun(r.Command)
	if err != nil {
		t.Errorf("recipe %d %q under jq 1.6: %v\ncommand: %s", n, r.Description, err, r.Command)
		return
	}
	if bound := recipeCostFactor*base + recipeStartCPU; cpu > bound {
		t.Errorf("recipe %d %q: %v of CPU under jq 1.6, above %v (%dx the %v of jq -c . on the file, plus %v)\ncommand: %s",
			n, r.Description, cpu, bound, recipeCostFactor, base, recipeStartCPU, r.Command)
	}
	call, err := parseCommand(r.Command, path)
	if err != nil {
		t.Errorf("recipe %d %q: %v\ncommand: %s", n, r.Description, err, r.Command)
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	records := data[bytes.IndexByte(data, '\n')+1:]
	want := outputValues(out16, call.JQ.Raw)
	for _, e := range engs {
		res, err := e.Run(call.JQ.Args, records)
		if err != nil {
			t.Fatal(err)
		}
		if res.ExitCode != 0 || res.Stderr != "" {
			t.Errorf("recipe %d %q under jq %s: exit code %d, stderr %.500s", n, r.Description, e.Version, res.ExitCode, res.Stderr)
			continue
		}
		if diff := cmp.Diff(want, outputValues([]byte(res.Stdout), call.JQ.Raw), outputApprox); diff != "" {
			t.Errorf("recipe %d %q: jq %s differs from jq 1.6 (-1.6 +%s):\n%.2000s", n, r.Description, e.Version, e.Version, diff)
		}
	}
	got, err := runGojq(call, records)
	if err != nil {
		t.Errorf("recipe %d %q under gojq: %v", n, r.Description, err)
	} else if diff := cmp.Diff(want, outputValues(got, call.JQ.Raw), outputApprox); diff != "" {
		t.Errorf("recipe %d %q: gojq differs from jq 1.6 (-1.6 +gojq):\n%.2000s", n, r.Description, diff)
	}
}

// outputApprox compares numbers with a relative tolerance: averages may
// differ in their last bits between engines.
var outputApprox = cmpopts.EquateApprox(1e-9, 0)

// outputValues returns jq's output as values: the JSON values it holds,
// or, for raw output (or output that is not a stream of JSON values), its
// lines, a line that is a number as that number (jq releases print some
// numbers differently).
func outputValues(out []byte, raw bool) []any {
	var vals []any
	if !raw {
		dec := json.NewDecoder(bytes.NewReader(out))
		for {
			var v any
			err := dec.Decode(&v)
			if errors.Is(err, io.EOF) {
				return vals
			}
			if err != nil {
				break
			}
			vals = append(vals, v)
		}
		vals = vals[:0]
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<30)
	for sc.Scan() {
		var f float64
		if json.Unmarshal(sc.Bytes(), &f) == nil {
			vals = append(vals, f)
		} else {
			vals = append(vals, sc.Text())
		}
	}
	return vals
}

// parseCommand parses a recipe's command, which must read path with
// tail -n +2 and pipe it into jq.
func parseCommand(command, path string) (*jqcmd.Command, error) {
	c, err := jqcmd.Parse(command)
	if err == nil && (c.File != path || !c.SkipHeader) {
		err = fmt.Errorf("not tail -n +2 FILE | jq ...: %s", command)
	}
	return c, err
}

// runGojq runs the command's jq program with gojq on the record lines, and
// returns what jq would print.
func runGojq(c *jqcmd.Command, records []byte) ([]byte, error) {
	inputs, err := jqcmd.Inputs(records)
	if err != nil {
		return nil, err
	}
	return c.JQ.Run(context.Background(), inputs, 1<<30)
}

// TestRealShapesAnswersFit checks issue 24 on the items whose records are
// 1 KB or more: the list, top-k and filter recipes answer inline (their
// first ten answers, records or lines, fit the threshold) and list no field
// that is null, or the same, in every record.
func TestRealShapesAnswersFit(t *testing.T) {
	needRealJQ(t)
	for _, it := range realItems(t) {
		t.Run(it.Name, func(t *testing.T) {
			o := offloadReal(t, it)
			if o.err != nil {
				t.Skipf("not offloaded (TestRealShapes says why): %v", o.err)
			}
			size := 0
			for _, l := range o.records {
				size += len(l)
			}
			if len(o.records) == 0 || size/len(o.records) < 1024 {
				t.Skipf("records of %d bytes on average, under 1 KB", size/max(len(o.records), 1))
			}
			uninformative := uninformativeFields(o.records)
			for i, r := range o.desc.JqRecipes {
				kind := answerKind(r.Description)
				if kind == "" {
					continue
				}
				out, _, err := cpuRun(r.Command)
				if err != nil {
					t.Errorf("recipe %d %q: %v", i+1, r.Description, err)
					continue
				}
				call, err := parseCommand(r.Command, o.desc.FilePath)
				if err != nil {
					t.Errorf("recipe %d %q: %v", i+1, r.Description, err)
					continue
				}
				vals := outputValues(out, call.JQ.Raw)
				first := vals[:min(10, len(vals))]
				var b strings.Builder
				for _, v := range first {
					data, _ := json.Marshal(v)
					b.Write(data)
					b.WriteByte('\n')
				}
				if n := estimate.Tokens(b.String()); n > lro.DefaultThresholdTokens {
					t.Errorf("%s recipe %d %q: its first %d answers are ~%d tokens, above the threshold of %d: not inline", kind, i+1, r.Description, len(first), n, lro.DefaultThresholdTokens)
				}
				listed := map[string]bool{}
				for _, v := range first {
					if m, ok := v.(map[string]any); ok {
						for k := range m {
							if why, ok := uninformative[k]; ok && !listed[k] {
								listed[k] = true
								t.Errorf("%s recipe %d %q lists %s, which is %s", kind, i+1, r.Description, k, why)
							}
						}
					}
				}
			}
		})
	}
}

// answerKind says whether a recipe lists, ranks or filters records: "list",
// "top-k", "filter", or "".
func answerKind(description string) string {
	switch {
	case strings.HasPrefix(description, "List ") && strings.HasSuffix(description, " of each record"):
		return "list"
	case strings.HasPrefix(description, "Top "):
		return "top-k"
	case strings.HasPrefix(description, "Records "), strings.HasPrefix(description, "Search "):
		return "filter"
	}
	return ""
}

// uninformativeFields returns the top-level fields of the object records
// that are null in every record, or the same in every record, with why.
// Sameness is judged only when the records are not all copies of one.
func uninformativeFields(lines [][]byte) map[string]string {
	distinct := map[string]bool{}
	for _, l := range lines {
		distinct[string(l)] = true
	}
	first := map[string]string{} // field -> its first value, as JSON
	same := map[string]bool{}
	null := map[string]bool{}
	objects := 0
	for _, l := range lines {
		var m map[string]json.RawMessage
		if json.Unmarshal(l, &m) != nil {
			continue
		}
		objects++
		for k, v := range m {
			s := string(v)
			if _, ok := first[k]; !ok {
				if objects > 1 {
					same[k], null[k] = false, false // missing from an earlier record
				} else {
					same[k], null[k] = true, s == "null"
				}
				first[k] = s
			}
			same[k] = same[k] && s == first[k]
			null[k] = null[k] && s == "null"
		}
		for k := range first {
			if _, ok := m[k]; !ok {
				same[k], null[k] = false, false
			}
		}
	}
	out := map[string]string{}
	if objects < 2 {
		return out
	}
	for k := range first {
		switch {
		case null[k]:
			out[k] = "null in every record"
		case same[k] && len(distinct) > 1:
			out[k] = fmt.Sprintf("the same in every record (%.60s)", first[k])
		}
	}
	return out
}
