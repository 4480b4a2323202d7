package lrotest

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/oklog/ulid/v2"

	"github.com/zircote/lro-go/internal/shell"
	"github.com/zircote/lro-go/lro"
)

// Helpers that break a descriptor or its file.

func filePath(d map[string]any) string { p, _ := d["file_path"].(string); return p }

func summaryOf(d map[string]any) map[string]any { s, _ := d["summary"].(map[string]any); return s }

func detailOf(d map[string]any) string { s, _ := summaryOf(d)["detail"].(string); return s }

func recipeList(d map[string]any) []any { r, _ := d["jq_recipes"].([]any); return r }

func recipeAt(d map[string]any, n int) map[string]any { return recipeList(d)[n-1].(map[string]any) }

// setRecipe replaces recipe n's command with tail -n +2 FILE | jq ARGS.
func setRecipe(d map[string]any, n int, jqArgs string) {
	recipeAt(d, n)["command"] = "tail -n +2 " + shell.Quote(filePath(d)) + " | jq " + jqArgs
}

// editLines rewrites the file's lines.
func editLines(t *testing.T, path string, edit func(lines []string) []string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := edit(strings.Split(strings.TrimSuffix(string(data), "\n"), "\n"))
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// editHeader rewrites the file's header line.
func editHeader(t *testing.T, path string, edit func(h map[string]any)) {
	t.Helper()
	editLines(t, path, func(lines []string) []string {
		var h map[string]any
		if err := json.Unmarshal([]byte(lines[0]), &h); err != nil {
			t.Fatal(err)
		}
		edit(h)
		b, _ := json.Marshal(h)
		lines[0] = string(b)
		return lines
	})
}

// moveFile renames the file and replaces its path everywhere in d.
func moveFile(t *testing.T, d map[string]any, to string) {
	t.Helper()
	from := filePath(d)
	if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(from, to); err != nil {
		t.Fatal(err)
	}
	replacePath(t, d, from, to)
}

// replacePath replaces a path in every string of d.
func replacePath(t *testing.T, d map[string]any, from, to string) {
	t.Helper()
	data, _ := json.Marshal(d)
	fromJ, _ := json.Marshal(from)
	toJ, _ := json.Marshal(to)
	data = []byte(strings.ReplaceAll(string(data), strings.Trim(string(fromJ), `"`), strings.Trim(string(toJ), `"`)))
	clear(d)
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
}

// mutation is one way to break the server, and what the kit must say.
type mutation struct {
	name     string
	primary  serverOptions // the server under test
	fallback serverOptions // the server whose folder cannot be written
	wantFail []string      // exactly the requirements that must fail
	wantWarn []string      // exactly the requirements that must warn
	reason   string        // if not empty, what the reasons of the first of wantFail say
	// realJQ runs the check a second time with the recipes run by sh and
	// the real jq, for mutations that concern how recipes run. Every
	// mutation runs with gojq in process, which is ten times faster.
	realJQ bool
}

var mutations = []mutation{
	// Threshold.
	{name: "small result offloaded (threshold 10 tokens)",
		primary:  serverOptions{opts: func(o *lro.Options) { o.ThresholdTokens = 10 }},
		wantFail: []string{"L1.inline.small"}},
	{name: "large result inline (offloading disabled)",
		primary:  serverOptions{opts: func(o *lro.Options) { o.Disabled = true }},
		wantFail: []string{"L1.offload.large"}},

	// Descriptor.
	{name: "offloaded is false",
		primary:  serverOptions{desc: func(t *testing.T, d map[string]any) { d["offloaded"] = false }},
		wantFail: []string{"L1.descriptor.offloaded"}},
	{name: "offloaded is missing",
		primary:  serverOptions{desc: func(t *testing.T, d map[string]any) { delete(d, "offloaded") }},
		wantFail: []string{"L1.descriptor.offloaded", "L1.descriptor.output_schema"}},
	{name: "relative file_path",
		primary:  serverOptions{desc: func(t *testing.T, d map[string]any) { d["file_path"] = filepath.Base(filePath(d)) }},
		wantFail: []string{"L1.descriptor.file_path"}},
	{name: "file_path names a deleted file",
		primary: serverOptions{desc: func(t *testing.T, d map[string]any) {
			if err := os.Remove(filePath(d)); err != nil {
				t.Fatal(err)
			}
		}},
		wantFail: []string{"L1.descriptor.file_path"}},
	{name: "output schema not widened for the descriptor",
		primary: serverOptions{list: func(tool *mcp.Tool) {
			s := tool.OutputSchema.(map[string]any)
			tool.OutputSchema = s["anyOf"].([]any)[0]
		}},
		wantFail: []string{"L1.descriptor.output_schema"}},
	{name: "cursor in the offloaded response",
		primary:  serverOptions{desc: func(t *testing.T, d map[string]any) { d["next_cursor"] = "page-2" }},
		wantFail: []string{"L1.no_cursor"}},
	{name: "next_offset in the summary",
		primary:  serverOptions{desc: func(t *testing.T, d map[string]any) { summaryOf(d)["next_offset"] = 50 }},
		wantFail: []string{"L1.no_cursor"}},

	// File name.
	{name: "file name breaks the convention",
		primary: serverOptions{desc: func(t *testing.T, d map[string]any) {
			moveFile(t, d, filepath.Join(filepath.Dir(filePath(d)), "result-recall.jsonl"))
		}},
		wantFail: []string{"L1.file.name"}},
	{name: "file name's ULID is not the time of the call",
		primary: serverOptions{desc: func(t *testing.T, d map[string]any) {
			id := ulid.MustNew(ulid.Timestamp(time.Now().Add(24*time.Hour)), nil)
			moveFile(t, d, filepath.Join(filepath.Dir(filePath(d)), "atlatl-recall-"+id.String()+".jsonl"))
		}},
		wantFail: []string{"L1.file.name"}},
	{name: "file outside the output folder",
		primary: serverOptions{desc: func(t *testing.T, d map[string]any) {
			moveFile(t, d, filepath.Join(filepath.Dir(filePath(d)), "elsewhere", filepath.Base(filePath(d))))
		}},
		wantFail: []string{"L1.file.name"}},

	// Header.
	{name: "header type is not lro_header",
		primary: serverOptions{desc: func(t *testing.T, d map[string]any) {
			editHeader(t, filePath(d), func(h map[string]any) { h["type"] = "header" })
		}},
		wantFail: []string{"L1.header.type"}},
	{name: "header lacks schema_version",
		primary: serverOptions{desc: func(t *testing.T, d map[string]any) {
			editHeader(t, filePath(d), func(h map[string]any) { delete(h, "schema_version") })
		}},
		wantFail: []string{"L1.header.fields"}},
	{name: "header count is a string",
		primary: serverOptions{desc: func(t *testing.T, d map[string]any) {
			editHeader(t, filePath(d), func(h map[string]any) { h["count"] = "60" })
		}},
		wantFail: []string{"L1.header.fields"}},
	{name: "header count off by one",
		primary: serverOptions{desc: func(t *testing.T, d map[string]any) {
			editHeader(t, filePath(d), func(h map[string]any) { h["count"] = h["count"].(float64) + 1 })
		}},
		wantFail: []string{"L1.header.count"}},
	{name: "header query is not the call's",
		primary: serverOptions{desc: func(t *testing.T, d map[string]any) {
			editHeader(t, filePath(d), func(h map[string]any) { h["query"] = "something else" })
		}},
		wantFail: []string{"L1.header.query"}},
	{name: "header timestamp is yesterday",
		primary: serverOptions{desc: func(t *testing.T, d map[string]any) {
			editHeader(t, filePath(d), func(h map[string]any) { h["timestamp"] = time.Now().Add(-24 * time.Hour).Format(time.RFC3339) })
		}},
		wantFail: []string{"L1.header.timestamp"}},
	{name: "header timestamp is not ISO 8601",
		primary: serverOptions{desc: func(t *testing.T, d map[string]any) {
			editHeader(t, filePath(d), func(h map[string]any) { h["timestamp"] = time.Now().Format(time.RFC1123) })
		}},
		wantFail: []string{"L1.header.timestamp"}},
	{name: "header detail is not the call's",
		primary: serverOptions{desc: func(t *testing.T, d map[string]any) {
			editHeader(t, filePath(d), func(h map[string]any) { h["detail"] = "summary" })
		}},
		wantFail: []string{"L1.detail"}},
	{name: "header operation differs from the summary and name",
		primary: serverOptions{desc: func(t *testing.T, d map[string]any) {
			editHeader(t, filePath(d), func(h map[string]any) { h["operation"] = "search" })
		}},
		wantFail: []string{"L1.operation"}},
	{name: "header operation is empty",
		primary: serverOptions{desc: func(t *testing.T, d map[string]any) {
			editHeader(t, filePath(d), func(h map[string]any) { h["operation"] = "" })
		}},
		wantFail: []string{"L1.header.fields", "L1.operation"}},
	{name: "header estimate counts bytes, not characters / 4",
		primary: serverOptions{desc: func(t *testing.T, d map[string]any) {
			editHeader(t, filePath(d), func(h map[string]any) { h["estimated_tokens"] = h["estimated_tokens"].(float64) * 4 })
		}},
		wantFail: []string{"L1.estimate"}},
	{name: "header estimate below the threshold",
		primary: serverOptions{desc: func(t *testing.T, d map[string]any) {
			editHeader(t, filePath(d), func(h map[string]any) { h["estimated_tokens"] = 100 })
		}},
		wantFail: []string{"L1.offload.threshold", "L1.estimate", "L1.summary.tokens"}},

	// Records.
	{name: "a record line is dropped",
		primary: serverOptions{desc: func(t *testing.T, d map[string]any) {
			editLines(t, filePath(d), func(l []string) []string { return l[:len(l)-1] })
		}},
		wantFail: []string{"L1.header.count", "L1.summary.count"}},
	{name: "a record line is not JSON (counts kept right)",
		primary: serverOptions{desc: func(t *testing.T, d map[string]any) {
			editLines(t, filePath(d), func(l []string) []string { return append(l, `{"id":`) })
			editHeader(t, filePath(d), func(h map[string]any) { h["count"] = h["count"].(float64) + 1 })
			summaryOf(d)["count"] = summaryOf(d)["count"].(float64) + 1
			d["guidance"] = strings.Replace(d["guidance"].(string), "(60 ", "(61 ", 1)
		}},
		wantFail: []string{"L1.records.jsonl", "L2.recipes.run"}},

	// Summary.
	{name: "summary is missing",
		primary:  serverOptions{desc: func(t *testing.T, d map[string]any) { delete(d, "summary") }},
		wantFail: []string{"L1.summary.fields"}},
	{name: "summary count is wrong",
		primary:  serverOptions{desc: func(t *testing.T, d map[string]any) { summaryOf(d)["count"] = 7 }},
		wantFail: []string{"L1.summary.count"}},
	{name: "score_range min above max",
		primary:  serverOptions{desc: func(t *testing.T, d map[string]any) { summaryOf(d)["score_range"] = []any{0.9, 0.1} }},
		wantFail: []string{"L1.summary.fields"}},
	{name: "summary tokens above the whole result set's",
		primary: serverOptions{desc: func(t *testing.T, d map[string]any) {
			summaryOf(d)["estimated_tokens"] = summaryOf(d)["estimated_tokens"].(float64) * 3
		}},
		wantFail: []string{"L1.summary.tokens"}},
	{name: "top_namespaces least frequent first",
		primary: serverOptions{desc: func(t *testing.T, d map[string]any) {
			slices.Reverse(summaryOf(d)["top_namespaces"].([]any))
		}},
		wantFail: []string{"L1.summary.top_namespaces"}},
	{name: "top_namespaces lists six",
		primary: serverOptions{desc: func(t *testing.T, d map[string]any) {
			s := summaryOf(d)
			s["top_namespaces"] = append(s["top_namespaces"].([]any), "_semantic/preferences")
		}},
		wantFail: []string{"L1.summary.fields", "L1.summary.top_namespaces"}},

	// Line schema.
	{name: "line_schema is missing",
		primary:  serverOptions{desc: func(t *testing.T, d map[string]any) { delete(d, "line_schema") }},
		wantFail: []string{"L2.descriptor.fields"}},
	{name: "line_schema rejects the records",
		primary: serverOptions{desc: func(t *testing.T, d map[string]any) {
			d["line_schema"].(map[string]any)["required"] = []any{"no_such_field"}
		}},
		wantFail: []string{"L2.line_schema"}},

	// Recipes.
	{name: "9 recipes",
		primary:  serverOptions{desc: func(t *testing.T, d map[string]any) { d["jq_recipes"] = recipeList(d)[:9] }},
		wantFail: []string{"L2.recipes.count"}},
	{name: "a recipe without a command",
		primary:  serverOptions{desc: func(t *testing.T, d map[string]any) { recipeAt(d, 4)["command"] = "" }},
		wantFail: []string{"L2.recipes.fields"}},
	{name: "a recipe sorts by .score",
		primary:  serverOptions{desc: func(t *testing.T, d map[string]any) { setRecipe(d, 8, `-s -c 'sort_by(.score) | .[]'`) }},
		wantFail: []string{"L2.recipes.no_score", "L2.recipes.fields_exist"}},
	{name: "a recipe references a field no record has",
		primary:  serverOptions{desc: func(t *testing.T, d map[string]any) { setRecipe(d, 5, `-c 'select(.kind == "semantic")'`) }},
		wantFail: []string{"L2.recipes.fields_exist"}},
	{name: "recipe 9 uses .confidence at full detail",
		primary: serverOptions{desc: func(t *testing.T, d map[string]any) {
			if detailOf(d) == "full" {
				setRecipe(d, 9, `-s -c 'sort_by(.confidence) | reverse | .[]'`)
			}
		}},
		wantFail: []string{"L2.recipes.detail", "L2.recipes.fields_exist"}},
	{name: "recipe 9 uses .provenance.confidence at medium detail",
		primary: serverOptions{desc: func(t *testing.T, d map[string]any) {
			if detailOf(d) == "medium" {
				setRecipe(d, 9, `-s -c 'sort_by(.provenance.confidence) | reverse | .[]'`)
			}
		}},
		wantFail: []string{"L2.recipes.detail", "L2.recipes.fields_exist"}},
	{name: "recipe 9 sorts ascending",
		primary: serverOptions{desc: func(t *testing.T, d map[string]any) {
			r := recipeAt(d, 9)
			r["command"] = strings.Replace(r["command"].(string), "|reverse", "", 1)
		}},
		wantFail: []string{"L2.recipes.detail"}},
	{name: "recipe 10 at light detail searches .content",
		primary: serverOptions{desc: func(t *testing.T, d map[string]any) {
			if detailOf(d) == "light" {
				setRecipe(d, 10, `-c 'select(.title | test("cache"; "i"))'`)
			}
		}},
		wantFail: []string{"L2.recipes.detail"}},
	{name: "a recipe is not valid jq",
		primary:  serverOptions{desc: func(t *testing.T, d map[string]any) { setRecipe(d, 4, `-c '{id, title'`) }},
		realJQ:   true,
		wantFail: []string{"L2.recipes.run"}},
	{name: "a recipe holds a brace expansion, two words in bash",
		primary:  serverOptions{desc: func(t *testing.T, d map[string]any) { setRecipe(d, 4, `-c {id,title,namespace}`) }},
		realJQ:   true,
		wantFail: []string{"L2.recipes.run"}},
	{name: "a recipe fails at run time",
		primary:  serverOptions{desc: func(t *testing.T, d map[string]any) { setRecipe(d, 4, `'.title | tonumber'`) }},
		wantFail: []string{"L2.recipes.run"}},
	{name: "a recipe keeps the {file} placeholder",
		primary: serverOptions{desc: func(t *testing.T, d map[string]any) {
			recipeAt(d, 1)["command"] = `tail -n +2 {file} | jq -r '[.title, .namespace] | @tsv'`
		}},
		realJQ:   true,
		wantFail: []string{"L2.recipes.file", "L2.recipes.run"}},
	{name: "a recipe reads the header line as a record",
		primary: serverOptions{desc: func(t *testing.T, d map[string]any) {
			recipeAt(d, 4)["command"] = "jq -c '{id, title, namespace}' " + shell.Quote(filePath(d))
		}},
		realJQ:   true,
		wantFail: []string{"L2.recipes.skip_header"}},

	// Guidance.
	{name: "guidance is missing",
		primary:  serverOptions{desc: func(t *testing.T, d map[string]any) { delete(d, "guidance") }},
		wantFail: []string{"L2.descriptor.fields"}},
	{name: "guidance is empty",
		primary:  serverOptions{desc: func(t *testing.T, d map[string]any) { d["guidance"] = " " }},
		wantFail: []string{"L2.guidance"}, wantWarn: []string{"L2.guidance.template"}},
	{name: "guidance does not name the file",
		primary: serverOptions{desc: func(t *testing.T, d map[string]any) {
			d["guidance"] = strings.ReplaceAll(d["guidance"].(string), filePath(d), "the file")
		}},
		wantWarn: []string{"L2.guidance.template"}},

	// Results kept in a store, by handle.
	{name: "store: no resource_link follows the descriptor",
		primary: serverOptions{store: bucketStore, result: func(t *testing.T, r *mcp.CallToolResult) {
			r.Content = slices.DeleteFunc(r.Content, func(c mcp.Content) bool { _, ok := c.(*mcp.ResourceLink); return ok })
		}},
		wantFail: []string{"L1.descriptor.handle"},
		reason:   "no resource_link follows the descriptor: want one to lro://results/"},
	{name: "store: the resource_link names another resource",
		primary: serverOptions{store: bucketStore, result: func(t *testing.T, r *mcp.CallToolResult) {
			for _, c := range r.Content {
				if l, ok := c.(*mcp.ResourceLink); ok {
					l.URI = "file:///tmp/" + l.Name
				}
			}
		}},
		wantFail: []string{"L1.descriptor.handle"},
		reason:   `the result links "file:///tmp/`},
	{name: "store: the resource_link's mimeType is not application/jsonl",
		primary: serverOptions{store: bucketStore, result: func(t *testing.T, r *mcp.CallToolResult) {
			for _, c := range r.Content {
				if l, ok := c.(*mcp.ResourceLink); ok {
					l.MIMEType = "application/json"
				}
			}
		}},
		wantFail: []string{"L1.descriptor.handle"},
		reason:   "the resource_link's mimeType is \"application/json\", want \"application/jsonl\""},
	{name: "store: resources/read fails",
		primary: serverOptions{store: bucketStore, read: func(t *testing.T, uri string, r *mcp.ReadResourceResult, err error) (*mcp.ReadResourceResult, error) {
			return nil, errors.New("the bucket is unreachable")
		}},
		wantFail: []string{"L1.descriptor.handle"},
		reason:   "the bucket is unreachable"},
	{name: "store: resources/read drops the last record",
		primary: serverOptions{store: bucketStore, read: func(t *testing.T, uri string, r *mcp.ReadResourceResult, err error) (*mcp.ReadResourceResult, error) {
			if err == nil {
				text := strings.TrimSuffix(r.Contents[0].Text, "\n")
				r.Contents[0].Text = text[:strings.LastIndexByte(text, '\n')+1]
			}
			return r, err
		}},
		wantFail: []string{"L1.descriptor.handle", "L1.header.count", "L1.summary.count"},
		reason:   "but the resource_link's size is"},
	{name: "store: resources/read differs from the file at file_path",
		primary: serverOptions{store: folderStore, read: func(t *testing.T, uri string, r *mcp.ReadResourceResult, err error) (*mcp.ReadResourceResult, error) {
			if err == nil {
				r.Contents[0].Text = strings.Replace(r.Contents[0].Text, "cache layer", "cache_layer", 1)
			}
			return r, err
		}},
		wantFail: []string{"L1.descriptor.handle"},
		reason:   "that differ from file_path's"},
	{name: "store: resources/read answers a handle it never gave",
		primary: serverOptions{store: bucketStore, read: func(t *testing.T, uri string, r *mcp.ReadResourceResult, err error) (*mcp.ReadResourceResult, error) {
			if err != nil {
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/jsonl", Text: "{}\n"}}}, nil
			}
			return r, err
		}},
		wantFail: []string{"L1.descriptor.handle"},
		reason:   "a handle the server never gave, returned a resource"},
	{name: "store: a recipe fails at run time on the fetched copy",
		primary:  serverOptions{store: bucketStore, desc: func(t *testing.T, d map[string]any) { setRecipe(d, 4, `'.title | tonumber'`) }},
		realJQ:   true,
		wantFail: []string{"L2.recipes.run"},
		reason:   "run on the copy fetched with resources/read"},
	{name: "store: the file name has a random part but the descriptor no handle",
		primary:  serverOptions{store: folderStore, desc: func(t *testing.T, d map[string]any) { delete(d, "handle") }},
		wantFail: []string{"L1.file.name"},
		reason:   "is not atlatl-{operation}-{ulid}.jsonl"},

	// Cleanup.
	{name: "no cleanup",
		primary:  serverOptions{noJanitor: true},
		wantFail: []string{"L2.cleanup"}},

	// Fallback.
	{name: "write failure fails the call",
		fallback: serverOptions{result: func(t *testing.T, r *mcp.CallToolResult) {
			r.IsError = true
			r.Content = []mcp.Content{&mcp.TextContent{Text: "cannot write the offload file"}}
			r.StructuredContent = nil
		}},
		wantFail: []string{"L3.fallback.succeeds"}},
	{name: "write failure truncates without a warning",
		fallback: serverOptions{result: func(t *testing.T, r *mcp.CallToolResult) {
			r.Content = r.Content[1:]
		}},
		wantFail: []string{"L3.fallback.warning"}},
	{name: "write failure returns everything",
		fallback: serverOptions{result: func(t *testing.T, r *mcp.CallToolResult) {
			_, out, _ := recall(context.Background(), nil, recallIn{N: 60})
			data, _ := json.Marshal(out)
			r.Content[1] = &mcp.TextContent{Text: string(data)}
			r.StructuredContent = json.RawMessage(data)
		}},
		wantFail: []string{"L3.fallback.truncated"}},
}

// TestMutationsAreCaught breaks a conforming server in one way at a time and
// checks that the kit reports exactly the requirements that way violates:
// no fewer (the check works) and no more (the checks are independent).
func TestMutationsAreCaught(t *testing.T) {
	for _, m := range mutations {
		for _, inProcess := range []bool{true, false} {
			if !inProcess && !m.realJQ {
				continue
			}
			name := m.name
			if !inProcess {
				name += " (jq)"
			}
			t.Run(name, func(t *testing.T) {
				if !inProcess {
					jqInstalled(t)
				}
				t.Parallel()
				checkMutation(t, m, inProcess)
			})
		}
	}
}

func checkMutation(t *testing.T, m mutation, inProcess bool) {
	srv := startServer(t, m.primary)
	fb := m.fallback
	fb.unwritable = true
	cfg := config(srv, startServer(t, fb))
	rep, err := check(context.Background(), srv.cs, cfg, inProcess)
	if err != nil {
		t.Fatal(err)
	}
	got := statuses(rep)
	want := map[status][]string{fail: m.wantFail, warn: m.wantWarn}
	for _, s := range []status{fail, warn} {
		w, g := slices.Clone(want[s]), got[s]
		sort.Strings(w)
		sort.Strings(g)
		if diff := cmp.Diff(w, g, cmpEmpty); diff != "" {
			t.Errorf("%s requirements (-want +got):\n%s", s, diff)
		}
	}
	if m.reason != "" {
		if r, _ := rep.result(m.wantFail[0]); !strings.Contains(strings.Join(r.reasons, "\n"), m.reason) {
			t.Errorf("%s says %q, want it to say %q", r.id, r.reasons, m.reason)
		}
	}
	if t.Failed() {
		var b strings.Builder
		rep.writeTable(&b)
		t.Log(b.String())
	}
}

// cmpEmpty equates nil and empty slices.
var cmpEmpty = cmp.Comparer(func(a, b []string) bool { return slices.Equal(a, b) })

// TestMutationsCoverEveryCheck checks that the mutation table makes every
// requirement that the protocol can observe fail (or warn) at least once.
func TestMutationsCoverEveryCheck(t *testing.T) {
	caught := map[string]bool{}
	for _, m := range mutations {
		for _, id := range append(slices.Clone(m.wantFail), m.wantWarn...) {
			caught[id] = true
		}
	}
	for _, r := range catalogue {
		if r.id == "L3.events" {
			continue // not observable over the protocol
		}
		if !caught[r.id] {
			t.Errorf("no mutation violates %s", r.id)
		}
	}
}

// jqInstalled skips a test that needs jq, except in CI.
func jqInstalled(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("jq"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("jq is not installed")
		}
		t.Skip("jq is not installed")
	}
}
