package extract_test

import (
	"context"
	"encoding/json"
	"github.com/zircote/lro-go/lro"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/zircote/lro-go/lro/extract"
	"github.com/zircote/lro-go/lro/internal/describe"
	core "github.com/zircote/lro-go/lro/internal/offload"
	"github.com/zircote/lro-go/recipes"
)

type toolCall struct {
	tool string
	args map[string]any
}

var (
	callStart = regexp.MustCompile(`^- [^:]+: (lro_\w+)\(`)
	argsLine  = regexp.MustCompile(`^- [^:]+: `)
)

// parseCalls finds the tool calls written in a guidance text: a whole call
// on a line "- Label: tool(name=<JSON value>, ...)", and then, after a line
// "and with the same file_path:" (or handle), lines "- Label: name=<JSON
// value>, ..." that call the same tool with the same first argument.
func parseCalls(t *testing.T, text string) []toolCall {
	t.Helper()
	args := func(rest string, c toolCall) toolCall {
		for rest != "" && !strings.HasPrefix(rest, ")") {
			eq := strings.IndexByte(rest, '=')
			if eq < 0 {
				t.Fatalf("no '=' in %q", rest)
			}
			name := rest[:eq]
			dec := json.NewDecoder(strings.NewReader(rest[eq+1:]))
			var v any
			if err := dec.Decode(&v); err != nil {
				t.Fatalf("argument %s of %s: %v in %q", name, c.tool, err, rest)
			}
			c.args[name] = v
			rest = strings.TrimPrefix(rest[eq+1+int(dec.InputOffset()):], ", ")
		}
		return c
	}
	var calls []toolCall
	var first *toolCall
	same := false
	for line := range strings.Lines(text) {
		line = strings.TrimSuffix(line, "\n")
		switch m := callStart.FindStringSubmatchIndex(line); {
		case m != nil:
			c := args(line[m[1]:], toolCall{tool: line[m[2]:m[3]], args: map[string]any{}})
			calls = append(calls, c)
			first = &calls[len(calls)-1]
		case strings.HasPrefix(line, "and with the same "):
			same = first != nil
		case same && argsLine.MatchString(line):
			c := toolCall{tool: first.tool, args: map[string]any{}}
			for _, k := range []string{"file_path", "handle"} {
				if v, ok := first.args[k]; ok {
					c.args[k] = v
				}
			}
			calls = append(calls, args(line[len(argsLine.FindString(line)):], c))
		default:
			same = false
		}
	}
	return calls
}

// TestGuidanceRunsAsWritten renders the guidance of real files, in a folder
// and in a bucket (the native guidance by handle), and makes every call it
// shows, over the transport: each names arguments the tool's schema has,
// the file by its file_path or its handle, and succeeds with output.
func TestGuidanceRunsAsWritten(t *testing.T) {
	for _, tc := range []struct {
		name, detail string
		records      []any
		bucket       bool
	}{
		{"memory full", "full", memories(50, "full"), false},
		{"memory medium", "medium", memories(50, "medium"), false},
		{"memory light", "light", memories(50, "light"), false},
		{"generic", "full", generic(50), false},
		{"memory full in a bucket", "full", memories(50, "full"), true},
		{"generic in a bucket", "full", generic(50), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := offload(t, dir, tc.detail, tc.records)
			sample := fileLines(t, path)[:core.SampleSize]
			rs, memory := recipes.Select(recipes.Detail(tc.detail), sample)
			in := describe.Input{Path: path, Summary: describe.Summary{Detail: tc.detail, Count: len(tc.records), EstimatedTokens: 9000}, Recipes: describe.Recipes(rs),
				LineSchema: json.RawMessage(`{"type":"object","properties":{"kind":{"type":"string"},"name":{"type":"string"},"size":{"type":"integer"}}}`)}
			if memory {
				in.Noun = "memories"
			}
			arg, value := "file_path", path
			guidance := describe.Native(&in)
			opts := &extract.Options{LRO: &lro.Options{OutputDir: dir, ThresholdTokens: 1 << 30}}
			if tc.bucket {
				st := newStore(t, newBucket(t))
				in.Handle = put(t, st, tc.detail, tc.records)
				arg, value = "handle", in.Handle
				in.ByHandle = true
				guidance = describe.Native(&in)
				opts = &extract.Options{LRO: &lro.Options{Store: st, ThresholdTokens: 1 << 30}}
				// A copy saved for jq goes to file_path.
				if !strings.Contains(guidance, "lro://results/{handle} to "+path+".") {
					t.Errorf("the guidance does not say where to save the file for jq:\n%s", guidance)
				}
			}
			cs := session(t, opts)
			schemas := map[string]map[string]any{}
			for tool, err := range cs.Tools(context.Background(), nil) {
				if err != nil {
					t.Fatal(err)
				}
				b, _ := json.Marshal(tool.InputSchema)
				var s struct {
					Properties map[string]any `json:"properties"`
				}
				_ = json.Unmarshal(b, &s)
				schemas[tool.Name] = s.Properties
			}
			calls := parseCalls(t, guidance)
			// The template's calls: browse, up to two recipes with
			// parameters (which take different ones; one for records
			// that are not memories), a custom filter, and a filter
			// without jq.
			params := map[string]bool{}
			for _, r := range describe.Recipes(rs) {
				if len(r.Params) > 0 {
					params[r.Params[0].Name] = true
				}
			}
			most := 2
			if !memory {
				most = 1
			}
			if len(calls) != 3+min(most, len(params)) || calls[len(calls)-1].args["where"] == nil {
				t.Fatalf("%d calls in the guidance:\n%s", len(calls), guidance)
			}
			for _, c := range calls {
				props, ok := schemas[c.tool]
				if !ok {
					t.Fatalf("the guidance names %s, which is not registered", c.tool)
				}
				for name := range c.args {
					if _, ok := props[name]; !ok {
						t.Errorf("%s has no argument %q", c.tool, name)
					}
				}
				if c.args[arg] != value || len(c.args) > 1 && c.args["file_path"] != nil && c.args["handle"] != nil {
					t.Errorf("%s(%v): want %s %v", c.tool, c.args, arg, value)
				}
				texts, isErr := call(t, cs, c.tool, c.args)
				if isErr || texts[0] == "" || strings.HasPrefix(texts[0], "No ") {
					t.Errorf("%s(%v) as the guidance writes it: %v %.300q", c.tool, c.args, isErr, texts)
				}
			}
			// Every recipe of memories is listed with its parameters, as
			// the specification's template does; other records' recipes
			// are described in jq_recipes alone.
			for _, r := range in.Recipes {
				if !memory {
					break
				}
				entry := " " + itoa(r.Number) + "="
				if !strings.Contains(guidance, entry) {
					t.Errorf("recipe %d is not listed", r.Number)
				}
				for _, p := range r.Params {
					if !strings.Contains(guidance, p.Name) {
						t.Errorf("parameter %s of recipe %d is not named", p.Name, r.Number)
					}
				}
			}
		})
	}
}

// plainMemory is a sample of one memory whose recipes have the
// specification's default parameters: its namespace is "_semantic", and its
// title has no word to search for.
var plainMemory = []json.RawMessage{json.RawMessage(`{"id":"01J1","title":"Go","namespace":"_semantic","memory_type":"semantic"}`)}

// TestGuidanceFollowsTheTemplate checks the lines the specification's
// native-tool template fixes.
func TestGuidanceFollowsTheTemplate(t *testing.T) {
	rs, _ := recipes.Select(recipes.Full, plainMemory)
	in := describe.Input{
		Path: "/tmp/atlatl-recall-01JABCDEFGHJKMNPQRSTVWXYZ0.jsonl", Summary: describe.Summary{Detail: "full", Count: 200, EstimatedTokens: 31000},
		Saved: 30000, Recipes: describe.Recipes(rs), Noun: "memories",
	}
	g := describe.Native(&in)
	for _, want := range []string{
		"Results offloaded to JSONL (200 memories, ~30000 tokens saved).\nDetail level: full\nUse the `lro_extract` tool to query this result set. Examples:\n",
		"- Browse: lro_extract(file_path=\"/tmp/atlatl-recall-01JABCDEFGHJKMNPQRSTVWXYZ0.jsonl\", recipe=1)\nand with the same file_path:\n",
		`- Filter namespace: recipe=2, params={"namespace": "_semantic"}`,
		`- Search titles: recipe=3, params={"keyword": "keyword"}`,
		`- Custom filter: query="select(.provenance.confidence > 0.8) | {id, title}"`,
		"Available recipes [params]: 1=titles+namespaces, 2=filter namespace [namespace], 3=search titles [keyword], 4=IDs+titles, 5=filter type [memory_type], 6=count by namespace, 7=filter tag [tag], 8=sort by date, 9=sort by confidence, 10=search content [keyword].\n",
		"Line 1 is a metadata header; memories start at line 2.",
	} {
		if !strings.Contains(g, want) {
			t.Errorf("guidance lacks %q:\n%s", want, g)
		}
	}
	if strings.Contains(g, "tail -n") || strings.Contains(g, "| jq") {
		t.Errorf("native guidance points to the shell:\n%s", g)
	}
}

// TestGuidanceText renders the whole native-tool guidance of a descriptor of
// memories at the medium detail level, as a server that registered the
// tools sends it.
func TestGuidanceText(t *testing.T) {
	rs, _ := recipes.Select(recipes.Medium, plainMemory)
	in := describe.Input{
		Path:    "/tmp/atlatl-recall-01JABCDEFGHJKMNPQRSTVWXYZ0.jsonl",
		Summary: describe.Summary{Detail: "medium", Count: 200, EstimatedTokens: 31000},
		Saved:   30000,
		Recipes: describe.Recipes(rs),
		Noun:    "memories",
	}
	const want = `Results offloaded to JSONL (200 memories, ~30000 tokens saved).
Detail level: medium
Use the ` + "`" + `lro_extract` + "`" + ` tool to query this result set. Examples:
- Browse: lro_extract(file_path="/tmp/atlatl-recall-01JABCDEFGHJKMNPQRSTVWXYZ0.jsonl", recipe=1)
and with the same file_path:
- Filter namespace: recipe=2, params={"namespace": "_semantic"}
- Search titles: recipe=3, params={"keyword": "keyword"}
- Custom filter: query="select(.confidence > 0.8) | {id, title}"
- Filter without jq: where={"namespace": {"prefix": "_semantic"}, "confidence": {"gte": 0.8}}, count=true
Available recipes [params]: 1=titles+namespaces, 2=filter namespace [namespace], 3=search titles [keyword], 4=IDs+titles, 5=filter type [memory_type], 6=count by namespace, 7=filter tag [tag], 8=sort by date, 9=sort by confidence, 10=search content [keyword].
Add slurp=true to run a query on all records at once. lro_read (file_path, line, limit) shows lines as they are, lro_search (file_path, pattern) finds records by regular expression.
Line 1 is a metadata header; memories start at line 2.`
	if diff := cmp.Diff(want, describe.Native(&in)); diff != "" {
		t.Errorf("guidance (-want +got):\n%s", diff)
	}
}
