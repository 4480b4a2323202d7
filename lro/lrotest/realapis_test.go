package lrotest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/jqcmd"
	"github.com/zircote/lro-go/internal/testing/jqengines"
	"github.com/zircote/lro-go/internal/testing/realshapes"
	"github.com/zircote/lro-go/lro"
)

// TestRealAPIRecipes offloads each real API document of
// internal/testing/realshapes/testdata/apis (GitHub issues and search,
// kubectl, OpenAPI, a notebook, a package-lock.json) through lro.Wrap, as a
// tool's text result, and runs its 10 recipes under jq 1.6 (the command, as
// a shell runs it), jq 1.7.1 and 1.8.2 (package jqengines) and gojq
// (package jqcmd, as the kit runs it without jq): every recipe runs without
// an error and gives the same values everywhere. The records are those of
// the document at the pointer each case names, as many; the recipes that
// summarize every record give what Go computes from the document itself
// (not from the file), and every recipe gives under gojq, run on the
// records decoded from the document, what jq 1.6 gives on the file.
func TestRealAPIRecipes(t *testing.T) {
	jqInstalled(t)
	engines := startEngines(t)
	want := map[string]struct {
		at    string // JSON pointer of the records in the document
		whole bool   // the document is the one record
		count int
	}{
		"github-paginate-issues.json":    {"", false, 13},
		"github-search-issues.json":      {"/items", false, 2},
		"kubectl-get-pods.json":          {"/items", false, 1},
		"nbformat-test4.ipynb":           {"/cells", false, 9},
		"npm-package-lock.json":          {"", true, 1},
		"openapi-petstore-expanded.json": {"/servers", false, 1},
	}
	apis, err := realshapes.APIs()
	if err != nil {
		t.Fatal(err)
	}
	if len(apis) != len(want) {
		t.Fatalf("%d documents, want the %d of this test's table", len(apis), len(want))
	}
	for _, a := range apis {
		t.Run(a.Name, func(t *testing.T) {
			w, ok := want[a.Name]
			if !ok {
				t.Fatalf("no case for %s", a.Name)
			}
			d, header, records := offloadText(t, string(a.Data))
			var at []struct {
				At    string `json:"at"`
				As    string `json:"as"`
				Count int    `json:"count"`
			}
			if err := json.Unmarshal(header["records_at"], &at); err != nil || len(at) != 1 {
				t.Fatalf("records_at %s: %v", header["records_at"], err)
			}
			if wantAt := "/content/0/text" + w.at; at[0].At != wantAt || (at[0].As == "value") != w.whole || at[0].Count != w.count {
				t.Fatalf("records_at %+v, want %s (whole %v), %d records", at[0], wantAt, w.whole, w.count)
			}
			src := sourceRecords(t, a.Data, w.at, w.whole)
			if len(src) != w.count {
				t.Fatalf("the document holds %d records at %q, want %d", len(src), w.at, w.count)
			}
			if len(d.JqRecipes) != 10 {
				t.Fatalf("%d recipes, want 10", len(d.JqRecipes))
			}
			checked := 0
			for i, r := range d.JqRecipes {
				out16 := runJQ16(t, i+1, r.Command)
				c, err := jqcmd.Parse(r.Command)
				if err != nil {
					t.Fatalf("recipe %d: %v", i+1, err)
				}
				got16 := values(t, out16, c.JQ.Raw)
				for _, e := range engines {
					res, err := e.Run(c.JQ.Args, records)
					if err != nil {
						t.Fatal(err)
					}
					if res.ExitCode != 0 || res.Stderr != "" {
						t.Errorf("recipe %d %q under jq %s: exit code %d, %s", i+1, r.Description, e.Version, res.ExitCode, res.Stderr)
					} else if got := values(t, []byte(res.Stdout), c.JQ.Raw); !reflect.DeepEqual(got, got16) {
						t.Errorf("recipe %d %q: jq %s gives %v, jq 1.6 %v", i+1, r.Description, e.Version, got, got16)
					}
				}
				gojq, err := c.JQ.Run(context.Background(), slices.Clone(src), 1<<30)
				if err != nil {
					t.Errorf("recipe %d %q under gojq on the document's records: %v", i+1, r.Description, err)
				} else if got := values(t, gojq, c.JQ.Raw); !reflect.DeepEqual(got, got16) {
					t.Errorf("recipe %d %q: gojq on the document's records gives %v, jq 1.6 on the file %v", i+1, r.Description, got, got16)
				}
				if oracle, ok := realOracles[r.Description]; ok {
					checked++
					if want := oracle(src); !reflect.DeepEqual(got16, want) {
						t.Errorf("recipe %d %q gives %v, want %v", i+1, r.Description, got16, want)
					}
				}
			}
			if checked == 0 {
				t.Errorf("no recipe summarizes every record: none checked against Go (%d recipes)", len(d.JqRecipes))
			}
		})
	}
}

// startEngines starts jq 1.7.1 and 1.8.2; it skips the test when they are
// not installed, except under CI.
func startEngines(t *testing.T) []*jqengines.Engine {
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

// realDescriptor is what the test reads of a descriptor.
type realDescriptor struct {
	FilePath  string `json:"file_path"`
	JqRecipes []struct {
		Description string `json:"description"`
		Command     string `json:"command"`
	} `json:"jq_recipes"`
}

// offloadText offloads text, a tool's one text item, through lro.Wrap
// (redaction off: the documents hold placeholder tokens only), and returns
// the descriptor, the file's header and its record lines.
func offloadText(t *testing.T, text string) (realDescriptor, map[string]json.RawMessage, []byte) {
	t.Helper()
	h := func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "real-apis", Version: "v0"}, nil)
	s.AddTool(&mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)},
		lro.Wrap(h, &lro.Options{OutputDir: t.TempDir(), ThresholdTokens: 1, DisableRedaction: true}))
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v0"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "t", Arguments: map[string]any{}})
	if err != nil {
		t.Fatal(err)
	}
	var d realDescriptor
	if tc, ok := res.Content[0].(*mcp.TextContent); !ok || json.Unmarshal([]byte(tc.Text), &d) != nil || d.FilePath == "" {
		t.Fatalf("not a descriptor: %v", res.Content[0])
	}
	data, err := os.ReadFile(d.FilePath)
	if err != nil {
		t.Fatal(err)
	}
	line, records, _ := bytes.Cut(data, []byte("\n"))
	var header map[string]json.RawMessage
	if err := json.Unmarshal(line, &header); err != nil {
		t.Fatal(err)
	}
	return d, header, records
}

// sourceRecords returns the records of the document data at the JSON
// pointer at (names only), or the document itself when whole, decoded as
// jq reads them.
func sourceRecords(t *testing.T, data []byte, at string, whole bool) []any {
	t.Helper()
	v, err := jqcmd.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if whole {
		return []any{v}
	}
	for _, name := range strings.Split(at, "/")[1:] {
		v = v.(map[string]any)[name]
	}
	return v.([]any)
}

// runJQ16 runs a recipe's command with the shell and the jq on the PATH.
func runJQ16(t *testing.T, n int, command string) []byte {
	t.Helper()
	cmd := exec.Command("sh", "-c", command)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil || stderr.Len() > 0 {
		t.Fatalf("recipe %d under jq 1.6: %v %s\ncommand: %s", n, err, stderr.String(), command)
	}
	return out.Bytes()
}

// values returns jq's output as its lines with -r, else as the JSON values
// it holds, numbers as float64 (the releases print some differently).
func values(t *testing.T, out []byte, raw bool) []any {
	t.Helper()
	if raw {
		var lines []any
		for _, l := range strings.SplitAfter(string(out), "\n") {
			if l != "" {
				lines = append(lines, l)
			}
		}
		return lines
	}
	vs, err := jqcmd.Inputs(out)
	if err != nil {
		t.Fatalf("jq printed no JSON values: %v\n%.500s", err, out)
	}
	return vs
}

// realOracles compute, from the records of a document, what the recipes
// that summarize every record output, keyed by description.
var realOracles = map[string]func(recs []any) []any{
	"Count the records": func(recs []any) []any { return []any{float64(len(recs))} },
	"Count by JSON type": func(recs []any) []any {
		return counted(recs, "type", func(v any) []string { return []string{jsonType(v)} })
	},
	"Count by field name": func(recs []any) []any {
		return counted(recs, "field", func(v any) []string { return keysOf(v) })
	},
	"Count by nested field": func(recs []any) []any {
		return counted(recs, "path", func(v any) []string {
			var paths []string
			for _, k := range keysOf(v) {
				for _, sub := range keysOf(v.(map[string]any)[k]) {
					paths = append(paths, k+"."+sub)
				}
			}
			return paths
		})
	},
}

// counted returns {name: key, count: n} for each key that keys gives of
// the records, in the order of the keys (jq's group_by on strings).
func counted(recs []any, name string, keys func(any) []string) []any {
	n := map[string]int{}
	for _, r := range recs {
		for _, k := range keys(r) {
			n[k]++
		}
	}
	var out []any
	for _, k := range sortedKeys(n) {
		out = append(out, map[string]any{name: k, "count": float64(n[k])})
	}
	return out
}

// keysOf returns the names of v, sorted by code point as jq's keys sorts
// them, or none when v is not an object.
func keysOf(v any) []string {
	o, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	ks := make([]string, 0, len(o))
	for k := range o {
		ks = append(ks, k)
	}
	sortCodePoints(ks)
	return ks
}

func sortedKeys(m map[string]int) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sortCodePoints(ks)
	return ks
}

// sortCodePoints sorts strings by code point (jq's order of strings); Go's
// byte order is the same for valid UTF-8.
func sortCodePoints(ss []string) { sort.Strings(ss) }

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	}
	return "object"
}
