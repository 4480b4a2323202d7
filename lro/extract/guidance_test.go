package extract_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	core "github.com/zircote/lro-go/internal/offload"
	"github.com/zircote/lro-go/lro/descriptor"
	"github.com/zircote/lro-go/lro/extract"
	"github.com/zircote/lro-go/recipes"
)

type toolCall struct {
	tool string
	args map[string]any
}

var callStart = regexp.MustCompile(`\b(lro_\w+)\(`)

// parseCalls finds the tool calls written in a guidance text:
// tool(name=<JSON value>, ...).
func parseCalls(t *testing.T, text string) []toolCall {
	t.Helper()
	var calls []toolCall
	for _, m := range callStart.FindAllStringSubmatchIndex(text, -1) {
		c := toolCall{tool: text[m[2]:m[3]], args: map[string]any{}}
		rest := text[m[1]:]
		for !strings.HasPrefix(rest, ")") {
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
		calls = append(calls, c)
	}
	return calls
}

// TestGuidanceRunsAsWritten renders the guidance of real files and makes
// every call it shows, over the transport: each names arguments the tool's
// schema has and succeeds with output.
func TestGuidanceRunsAsWritten(t *testing.T) {
	for _, tc := range []struct {
		name, detail string
		records      []any
	}{
		{"memory full", "full", memories(50, "full")},
		{"memory medium", "medium", memories(50, "medium")},
		{"memory light", "light", memories(50, "light")},
		{"generic", "full", generic(50)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := offload(t, dir, tc.detail, tc.records)
			sample := fileLines(t, path)[:core.SampleSize]
			rs, memory := recipes.Select(recipes.Detail(tc.detail), sample)
			in := descriptor.Input{Path: path, Detail: tc.detail, Count: len(tc.records), EstimatedTokens: 9000, Recipes: rs,
				LineSchema: json.RawMessage(`{"type":"object","properties":{"kind":{"type":"string"},"name":{"type":"string"},"size":{"type":"integer"}}}`)}
			if memory {
				in.Noun = "memories"
			}
			guidance := core.NativeGuidance(in)
			cs := session(t, &extract.Options{Dir: dir, ThresholdTokens: 1 << 30})
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
			// parameters, a custom filter, and a filter without jq.
			withParams := 0
			for _, r := range rs {
				if len(r.Params) > 0 {
					withParams++
				}
			}
			if len(calls) != 3+min(2, withParams) || calls[len(calls)-1].args["where"] == nil {
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
				if c.args["file_path"] != path {
					t.Errorf("%s: file_path %v", c.tool, c.args["file_path"])
				}
				texts, isErr := call(t, cs, c.tool, c.args)
				if isErr || texts[0] == "" || strings.HasPrefix(texts[0], "No ") {
					t.Errorf("%s(%v) as the guidance writes it: %v %.300q", c.tool, c.args, isErr, texts)
				}
			}
			// Every recipe is listed with its parameters.
			for _, r := range in.Recipes {
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
	in := descriptor.Input{
		Path: "/tmp/atlatl-recall-01JABCDEFGHJKMNPQRSTVWXYZ0.jsonl", Detail: "full", Count: 200, EstimatedTokens: 31000,
		Saved: 30000, Recipes: rs, Noun: "memories",
	}
	g := core.NativeGuidance(in)
	for _, want := range []string{
		"Results offloaded to JSONL (200 memories, ~30000 tokens saved).\nDetail level: full\nUse the `lro_extract` tool to query this result set. Examples:\n",
		`- Browse: lro_extract(file_path="/tmp/atlatl-recall-01JABCDEFGHJKMNPQRSTVWXYZ0.jsonl", recipe=1)`,
		`lro_extract(file_path="/tmp/atlatl-recall-01JABCDEFGHJKMNPQRSTVWXYZ0.jsonl", recipe=2, params={"namespace": "_semantic"})`,
		`lro_extract(file_path="/tmp/atlatl-recall-01JABCDEFGHJKMNPQRSTVWXYZ0.jsonl", recipe=3, params={"keyword": "keyword"})`,
		`query="select(.provenance.confidence > 0.8) | {id, title}"`,
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
	in := descriptor.Input{
		Path:            "/tmp/atlatl-recall-01JABCDEFGHJKMNPQRSTVWXYZ0.jsonl",
		Detail:          "medium",
		Count:           200,
		EstimatedTokens: 31000,
		Saved:           30000,
		Recipes:         rs,
		Noun:            "memories",
	}
	const want = `Results offloaded to JSONL (200 memories, ~30000 tokens saved).
Detail level: medium
Use the ` + "`" + `lro_extract` + "`" + ` tool to query this result set. Examples:
- Browse: lro_extract(file_path="/tmp/atlatl-recall-01JABCDEFGHJKMNPQRSTVWXYZ0.jsonl", recipe=1)
- Filter by namespace prefix: lro_extract(file_path="/tmp/atlatl-recall-01JABCDEFGHJKMNPQRSTVWXYZ0.jsonl", recipe=2, params={"namespace": "_semantic"})
- Search titles by keyword (case-insensitive regex): lro_extract(file_path="/tmp/atlatl-recall-01JABCDEFGHJKMNPQRSTVWXYZ0.jsonl", recipe=3, params={"keyword": "keyword"})
- Custom filter: lro_extract(file_path="/tmp/atlatl-recall-01JABCDEFGHJKMNPQRSTVWXYZ0.jsonl", query="select(.confidence > 0.8) | {id, title}")
- Filter without jq: lro_extract(file_path="/tmp/atlatl-recall-01JABCDEFGHJKMNPQRSTVWXYZ0.jsonl", where={"namespace": {"prefix": "_semantic"}, "confidence": {"gte": 0.8}}, count=true)
Add slurp=true to run a query on all records at once (count, group, sort).
Available recipes [params]: 1=list titles with namespaces; 2=filter by namespace prefix [namespace]; 3=search titles by keyword (case-insensitive regex) [keyword]; 4=extract IDs and titles only; 5=filter by memory type [memory_type]; 6=count by namespace; 7=filter by tag [tag]; 8=sort by created date, oldest first; 9=sort by confidence, highest first; 10=search content by keyword (case-insensitive regex) [keyword].
Also: lro_read shows lines as they are (file_path, line, limit); lro_search finds records by regular expression (file_path, pattern, such as "keyword").
Line 1 is a metadata header; memories start at line 2.`
	if diff := cmp.Diff(want, core.NativeGuidance(in)); diff != "" {
		t.Errorf("guidance (-want +got):\n%s", diff)
	}
}
