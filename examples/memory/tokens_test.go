package main

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/oklog/ulid/v2"
	"github.com/tiktoken-go/tokenizer"

	"github.com/zircote/lro-go/estimate"
	"github.com/zircote/lro-go/examples/memory/memory"
	"github.com/zircote/lro-go/internal/shell"
)

// tokenNames are the file names' ULIDs, and the handles' random parts,
// that the token counts put in place of the golden cases' real ones: eight
// ULIDs of the golden clock with random parts from a fixed seed, each with
// 32 hex digits from the same seed, in paths in the default output folder
// of Linux (/tmp). A ULID tokenizes into a varying number of tokens (18 to
// 22 with o200k_base), and so do the hex digits; the path is in a
// descriptor eleven times or more: a case is measured with each and the
// largest count is the one checked.
func tokenNames() (ids, randoms []string) {
	r := rand.New(rand.NewPCG(1, 2))
	ids, randoms = make([]string, 8), make([]string, 8)
	for i := range ids {
		var entropy [10]byte
		for j := range entropy {
			entropy[j] = byte(r.Uint32())
		}
		var id ulid.ULID
		if err := id.SetTime(ulid.Timestamp(goldenNow)); err != nil {
			panic(err)
		}
		if err := id.SetEntropy(entropy[:]); err != nil {
			panic(err)
		}
		ids[i] = id.String()
		var random [16]byte
		for j := range random {
			random[j] = byte(r.Uint32())
		}
		randoms[i] = hex.EncodeToString(random[:])
	}
	return ids, randoms
}

// tokenCeiling is what a golden case's descriptor may cost, in o200k_base
// tokens, at most, and what issue 15 asks of it.
type tokenCeiling struct {
	guard  int // asserted: what this version achieves, plus a little
	target int // issue 15's ceiling; 0 when it names none
}

// tokenCeilings holds the ceilings of the golden cases by name; every case
// has one. The guards are what this version measures plus about 1%, so that
// a change that makes a descriptor larger again fails here and is seen.
//
// Issue 15's targets (800 at full detail, 700 at light, 700 for the issue
// listing and the log, under 60 for the bare pointer) are met by the bare
// pointer only. The "floor" column of the table shows why: it is the
// descriptor with each recipe cut to what the specification requires of it,
// {"description":"","command":"tail -n +2 PATH | jq ."}, and so the cost of
// the file path in file_path, in each of the ten recipes and in the
// guidance (some 27 tokens from /tmp: the ULID of the specification's name
// alone is 18 to 22), of the summary's fields, of the schema and of the
// guidance. At light detail it is already above 700, at full above 800.
var tokenCeilings = map[string]tokenCeiling{
	"list/full/light":                {guard: 1160, target: 700},
	"list/full/medium":               {guard: 1180, target: 800},
	"list/full/full":                 {guard: 1510, target: 800},
	"list/no_recipes/light":          {guard: 510},
	"list/no_recipes/medium":         {guard: 525},
	"list/no_recipes/full":           {guard: 855},
	"list/no_schema/light":           {guard: 1045},
	"list/no_schema/medium":          {guard: 1050},
	"list/no_schema/full":            {guard: 1055},
	"list/bare_pointer/light":        {guard: 59, target: 59},
	"list/bare_pointer/medium":       {guard: 59, target: 59},
	"list/bare_pointer/full":         {guard: 59, target: 59},
	"list/full_native/light":         {guard: 1380},
	"recall/full/light":              {guard: 1185, target: 700},
	"recall/full/medium":             {guard: 1210, target: 800},
	"recall/full/full":               {guard: 1540, target: 800},
	"issues/full":                    {guard: 1150, target: 700},
	"logs/full":                      {guard: 1190, target: 700},
	"folder/list/full/light":         {guard: 1585},
	"folder/list/full/medium":        {guard: 1605},
	"folder/list/full/full":          {guard: 1770},
	"folder/list/bare_pointer/light": {guard: 235},
	"folder/list/full_native/light":  {guard: 1805},
	"folder/recall/full/full":        {guard: 1790},
	"folder/issues/full":             {guard: 1605},
	"folder/logs/full":               {guard: 1620},
	"bucket/list/full/light":         {guard: 1595},
	"bucket/list/full/medium":        {guard: 1620},
	"bucket/list/full/full":          {guard: 1960},
	"bucket/list/bare_pointer/light": {guard: 190},
	"bucket/list/full_native/light":  {guard: 1595},
	"bucket/recall/full/full":        {guard: 1990},
	"bucket/issues/full":             {guard: 1475},
	"bucket/logs/full":               {guard: 1510},
}

// TestDescriptorTokens counts, with the o200k_base tokenizer, what each
// golden case's descriptor costs the model, as the client receives it
// (compact JSON), with the resource link that follows it for a file in a
// store, and checks the ceilings. Run with -v for the table.
func TestDescriptorTokens(t *testing.T) {
	t.Parallel() // with TestReplicas, which mostly waits for its TTL
	codec, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	count := func(s string) int {
		n, err := codec.Count(s)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	ids, randoms := tokenNames()
	var table strings.Builder
	fmt.Fprintf(&table, "%-31s %6s %6s %6s %6s %6s %7s %6s %6s %6s\n", "case", "tokens", "guard", "target", "floor", "schema", "recipes", "guide", "path", "link")
	for _, o := range offloadGoldenCases(t) {
		n, floor, pathTokens, linkTokens := 0, 0, 0, 0
		var parts map[string]json.RawMessage
		for i, id := range ids {
			pairs := []string{o.dir, "/tmp", o.id, id}
			if o.random != "" {
				pairs = append(pairs, o.random, randoms[i])
			}
			r := strings.NewReplacer(pairs...)
			text := r.Replace(o.text)
			// What the model reads: the descriptor, and the resource link
			// that follows it for a file in a store.
			l := 0
			if o.link != "" {
				l = count(r.Replace(o.link))
			}
			if c := count(text) + l; c > n {
				n, linkTokens = c, l
				floor = count(recipeFloor(t, text)) + l
				_ = json.Unmarshal([]byte(text), &parts)
				var fp string
				_ = json.Unmarshal(parts["file_path"], &fp)
				pathTokens = count(fp)
			}
		}
		part := func(k string) int {
			if v, ok := parts[k]; ok {
				return count(string(v))
			}
			return 0
		}
		c, ok := tokenCeilings[o.name]
		fmt.Fprintf(&table, "%-31s %6d %6d %6d %6d %6d %7d %6d %6d %6d\n", o.name, n, c.guard, c.target, floor, part("line_schema"), part("jq_recipes"), part("guidance"), pathTokens, linkTokens)
		switch {
		case !ok:
			t.Errorf("%s: no ceiling in tokenCeilings: measured %d o200k tokens", o.name, n)
		case n > c.guard:
			t.Errorf("%s: the descriptor costs %d o200k tokens, more than %d", o.name, n, c.guard)
		}
	}
	t.Logf("o200k_base tokens of the largest descriptor over %d paths /tmp/atlatl-{operation}-{ULID}.jsonl (with a store, the handle's random part too):\n%s", len(ids), table.String())
}

// recipeFloor returns the descriptor text with each recipe cut to what the
// specification requires of it: no description, and the command
// tail -n +2 PATH | jq . on its file.
func recipeFloor(t *testing.T, text string) string {
	t.Helper()
	var d offloadResponse
	if err := json.Unmarshal([]byte(text), &d); err != nil {
		t.Fatal(err)
	}
	encode := func() string {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(d); err != nil {
			t.Fatal(err)
		}
		return strings.TrimSuffix(b.String(), "\n")
	}
	if again := encode(); again != text {
		t.Fatalf("the descriptor does not encode again as it was sent:\n%s\n%s", text, again)
	}
	for i := range d.JqRecipes {
		d.JqRecipes[i] = jqRecipe{Command: "tail -n +2 " + shell.Word(d.FilePath) + " | jq ."}
	}
	return encode()
}

// TestLineSchemaMatchesLines checks the rule of the line schema at every
// detail level and for every record shape of the golden cases: every line
// of the file validates against it, and every property it lists, at any
// depth, appears in some line.
func TestLineSchemaMatchesLines(t *testing.T) {
	t.Parallel() // with TestReplicas, which mostly waits for its TTL
	for _, o := range offloadGoldenCases(t) {
		var d struct {
			LineSchema json.RawMessage `json:"line_schema"`
		}
		if err := json.Unmarshal([]byte(o.text), &d); err != nil {
			t.Fatal(err)
		}
		if d.LineSchema == nil {
			continue // a profile without the schema
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(d.LineSchema, &s); err != nil {
			t.Fatalf("%s: line_schema is not a JSON Schema: %v", o.name, err)
		}
		resolved, err := s.Resolve(nil)
		if err != nil {
			t.Fatalf("%s: line_schema does not resolve: %v", o.name, err)
		}
		values := make([]any, len(o.lines))
		for i, l := range o.lines {
			if err := json.Unmarshal(l, &values[i]); err != nil {
				t.Fatal(err)
			}
			if err := resolved.Validate(values[i]); err != nil {
				t.Errorf("%s: line %d fails the line schema: %v", o.name, i+2, err)
				break
			}
		}
		var schema map[string]any
		_ = json.Unmarshal(d.LineSchema, &schema)
		for _, p := range unseenProperties(schema, values, "") {
			t.Errorf("%s: the line schema lists %s, which no line holds", o.name, p)
		}
	}
}

// unseenProperties returns the jq paths of the properties schema lists, at
// any depth, that none of values (the values at place, below the records)
// holds.
func unseenProperties(schema map[string]any, values []any, place string) []string {
	var unseen []string
	if props, ok := schema["properties"].(map[string]any); ok {
		names := make([]string, 0, len(props))
		for name := range props {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			var inner []any
			for _, v := range values {
				if obj, ok := v.(map[string]any); ok {
					if x, ok := obj[name]; ok {
						inner = append(inner, x)
					}
				}
			}
			at := place + "." + name
			if len(inner) == 0 {
				unseen = append(unseen, at)
				continue
			}
			sub, _ := props[name].(map[string]any)
			unseen = append(unseen, unseenProperties(sub, inner, at)...)
		}
	}
	if items, ok := schema["items"].(map[string]any); ok {
		var elems []any
		for _, v := range values {
			if arr, ok := v.([]any); ok {
				elems = append(elems, arr...)
			}
		}
		unseen = append(unseen, unseenProperties(items, elems, path.Join(place, "[]"))...)
	}
	return unseen
}

// TestEstimatorAgainstTokenizers measures the library's estimator
// (estimate.Tokens, about one token per four characters) against the
// o200k_base and cl100k_base tokenizers, on the example's record lines at
// each detail level (1,000 memories) and on its golden descriptors, and
// checks the error BENCHMARKS.md reports: the estimator undercounts, by less
// than half, so a threshold of N estimated tokens is more real tokens than
// N. Run with -v for the table.
func TestEstimatorAgainstTokenizers(t *testing.T) {
	t.Parallel() // with TestReplicas, which mostly waits for its TTL
	codecs := map[string]tokenizer.Codec{}
	for _, name := range []tokenizer.Encoding{tokenizer.O200kBase, tokenizer.Cl100kBase} {
		c, err := tokenizer.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		codecs[string(name)] = c
	}
	count := func(name string, texts []string) (n int) {
		for _, s := range texts {
			c, err := codecs[name].Count(s)
			if err != nil {
				t.Fatal(err)
			}
			n += c
		}
		return n
	}
	type row struct {
		name  string
		texts []string
	}
	var rows []row
	corpus := memory.Generate(1000, memory.DefaultSeed)
	for _, d := range []memory.Detail{memory.Light, memory.Medium, memory.Full} {
		r := row{name: fmt.Sprintf("%d record lines, %s", len(corpus), d)}
		for i := range corpus {
			b, err := json.Marshal(memory.Project(&corpus[i], d))
			if err != nil {
				t.Fatal(err)
			}
			r.texts = append(r.texts, string(b))
		}
		rows = append(rows, r)
	}
	descriptors := row{name: "the golden descriptors"}
	for _, o := range offloadGoldenCases(t) {
		descriptors.texts = append(descriptors.texts, o.text)
	}
	rows = append(rows, descriptors)

	var table strings.Builder
	fmt.Fprintf(&table, "%-30s %10s %10s %10s %10s %8s %8s\n",
		"text", "bytes", "estimator", "o200k", "cl100k", "vs o200k", "vs cl100k")
	for _, r := range rows {
		bytes, est := 0, 0
		for _, s := range r.texts {
			bytes += len(s)
			est += estimate.Tokens(s)
		}
		o200k, cl100k := count(string(tokenizer.O200kBase), r.texts), count(string(tokenizer.Cl100kBase), r.texts)
		errO, errC := float64(est)/float64(o200k)-1, float64(est)/float64(cl100k)-1
		fmt.Fprintf(&table, "%-30s %10d %10d %10d %10d %+7.1f%% %+7.1f%%\n",
			r.name, bytes, est, o200k, cl100k, 100*errO, 100*errC)
		for name, e := range map[string]float64{"o200k_base": errO, "cl100k_base": errC} {
			if e > 0 || e < -0.5 {
				t.Errorf("%s: the estimator counts %d tokens, %+.1f%% of %s's: want an undercount of less than half",
					r.name, est, 100*e, name)
			}
		}
	}
	t.Logf("estimate.Tokens against real tokenizers (error = estimator / tokenizer - 1):\n%s", table.String())
}
