package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tiktoken-go/tokenizer"

	"github.com/zircote/lro-go/estimate"
	"github.com/zircote/lro-go/examples/memory/memory"
	"github.com/zircote/lro-go/lro"
	"github.com/zircote/lro-go/lro/descriptor"
	"github.com/zircote/lro-go/recipes"
)

// bpe adapts a tiktoken codec to estimate.Tokenizer. It lives here, not in
// package estimate, so that the library does not pull in the vocabularies.
type bpe struct {
	name  string
	codec tokenizer.Codec
}

// Tokens implements estimate.Tokenizer. A text the codec cannot encode
// panics rather than be counted wrong.
func (b bpe) Tokens(text []byte) int {
	n, err := b.codec.Count(string(text))
	if err != nil {
		panic(fmt.Sprintf("%s: %v", b.name, err))
	}
	if n == 0 && len(text) > 0 {
		n = 1 // the Tokenizer contract: at least 1 for non-empty text
	}
	return n
}

// counters are the ways the report counts tokens, the estimator first.
type counters struct {
	est    estimate.Tokenizer
	o200k  estimate.Tokenizer
	cl100k estimate.Tokenizer
}

// newCounters returns the estimator and the o200k_base and cl100k_base BPE
// tokenizers.
func newCounters() (counters, error) {
	o, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		return counters{}, fmt.Errorf("o200k_base: %w", err)
	}
	c, err := tokenizer.Get(tokenizer.Cl100kBase)
	if err != nil {
		return counters{}, fmt.Errorf("cl100k_base: %w", err)
	}
	return counters{
		est:    estimate.Heuristic{},
		o200k:  bpe{"o200k_base", o},
		cl100k: bpe{"cl100k_base", c},
	}, nil
}

// size is one text measured every way.
type size struct {
	Bytes  int
	Est    int // the library's estimator (estimate.Heuristic)
	O200k  int
	Cl100k int
}

func (c counters) measure(text string) size {
	b := []byte(text)
	return size{Bytes: len(b), Est: c.est.Tokens(b), O200k: c.o200k.Tokens(b), Cl100k: c.cl100k.Tokens(b)}
}

func (s size) add(x size) size {
	return size{Bytes: s.Bytes + x.Bytes, Est: s.Est + x.Est, O200k: s.O200k + x.O200k, Cl100k: s.Cl100k + x.Cl100k}
}

// variant is one kind of descriptor the report measures.
type variant struct {
	Name         string
	Profile      descriptor.Profile
	ExtractTools bool // guidance for the native extraction tools (lro.Options.ExtractTools)
}

// profiles are the descriptors measured, in the order the report shows them:
// the four profiles, then the full profile with the native tools' guidance.
var profiles = []variant{
	{Name: "full", Profile: descriptor.ProfileFull},
	{Name: "no recipes", Profile: descriptor.ProfileNoRecipes},
	{Name: "no schema", Profile: descriptor.ProfileNoSchema},
	{Name: "bare pointer", Profile: descriptor.ProfileBarePointer},
	{Name: "full, native tools guidance", Profile: descriptor.ProfileFull, ExtractTools: true},
}

// details are the memory detail levels, in the order the report shows them.
var details = []memory.Detail{memory.Light, memory.Medium, memory.Full}

// tokenRow is the inline result and its descriptors for one result set.
type tokenRow struct {
	N           int
	Detail      memory.Detail
	Inline      size
	Descriptors []size // one per profile, in the order of profiles
	PathBytes   int    // length of the file path the descriptors carry
}

// desc returns the o200k size of the descriptor of profile i.
func (t tokenRow) desc(i int) float64 { return float64(t.Descriptors[i].O200k) }

// hitsOutput is the output of examples/memory's recall_memories tool (a
// main package, which cannot be imported).
type hitsOutput struct {
	Memories []memory.Record `json:"memories" jsonschema:"the matching memories, best first, at the requested detail level"`
	Scores   []float64       `json:"scores" jsonschema:"relevance score of each memory, in the same order, between 0 and 1"`
	Count    int             `json:"count" jsonschema:"number of memories returned"`
}

type recallArgs struct {
	Query  string `json:"query" jsonschema:"the words to look for"`
	Limit  int    `json:"limit,omitempty" jsonschema:"largest number of memories returned"`
	Detail string `json:"detail,omitempty" jsonschema:"detail level of each memory: light, medium or full"`
}

// recallServer returns an MCP server with a recall_memories tool registered
// with opts as examples/memory registers it, answering the first limit
// memories of corpus with decreasing scores.
func recallServer(corpus []memory.Memory, opts lro.Options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "benchreport", Version: "v0"}, nil)
	opts.Operation = "recall"
	opts.DefaultDetail = recipes.Light
	opts.RecordsField = "memories"
	opts.RecordType = reflect.TypeFor[memory.Record]()
	lro.AddTool(s, &mcp.Tool{Name: "recall_memories", Description: "Recall memories."},
		func(ctx context.Context, _ *mcp.CallToolRequest, in recallArgs) (*mcp.CallToolResult, hitsOutput, error) {
			d, err := memory.ParseDetail(in.Detail)
			if err != nil {
				return nil, hitsOutput{}, err
			}
			if in.Limit < 1 || in.Limit > len(corpus) {
				return nil, hitsOutput{}, fmt.Errorf("limit %d is outside 1..%d", in.Limit, len(corpus))
			}
			out := hitsOutput{Memories: memory.ProjectAll(corpus[:in.Limit], d), Scores: make([]float64, in.Limit), Count: in.Limit}
			for i := range out.Scores {
				// Scores in (0, 1], four decimals, best first, as Recall's.
				out.Scores[i] = math.Round((1-0.9*float64(i)/float64(in.Limit))*1e4) / 1e4
			}
			lro.Provide(ctx, lro.ResultSet{Records: out.Memories, Scores: out.Scores})
			return nil, out, nil
		}, &opts)
	return s
}

// session connects a client to s in memory.
func session(ctx context.Context, s *mcp.Server) (*mcp.ClientSession, func(), error) {
	st, ct := mcp.NewInMemoryTransports()
	ss, err := s.Connect(ctx, st, nil)
	if err != nil {
		return nil, nil, err
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "benchreport-client", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		ss.Close()
		return nil, nil, err
	}
	return cs, func() { cs.Close(); ss.Close() }, nil
}

// callText calls recall_memories and returns the text the client receives:
// the result's single text content.
func callText(ctx context.Context, cs *mcp.ClientSession, n int, d memory.Detail) (string, error) {
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "recall_memories",
		Arguments: map[string]any{"query": "cache", "limit": n, "detail": string(d)}})
	if err != nil {
		return "", err
	}
	if text := textOf(res); !res.IsError && text != "" {
		return text, nil
	}
	return "", fmt.Errorf("recall_memories n=%d detail=%s: unexpected result %+v", n, d, res.Content)
}

// descriptorCalls is how many times each descriptor is made; the report
// shows the one of median o200k size, as the random part of the file name
// tokenizes into a varying number of tokens.
const descriptorCalls = 5

// errNotOffloaded is returned when a call meant to offload came back inline.
var errNotOffloaded = errors.New("benchreport: result was not offloaded")

// measureTokens measures, for every n and detail level, the inline result of
// the recall tool and its descriptor under every profile, as the client
// receives them. Descriptors are forced (threshold 1 token); their files go
// to the default folder, so that the path has its usual length, and are
// deleted at once.
func measureTokens(ctx context.Context, c counters, ns []int) ([]tokenRow, error) {
	corpus := memory.Generate(slices.Max(ns), memory.DefaultSeed)

	inline, closeInline, err := session(ctx, recallServer(corpus, lro.Options{Disabled: true}))
	if err != nil {
		return nil, err
	}
	defer closeInline()
	offload := make([]*mcp.ClientSession, len(profiles))
	for i, p := range profiles {
		cs, closeFn, err := session(ctx, recallServer(corpus, lro.Options{ThresholdTokens: 1, Profile: p.Profile, ExtractTools: p.ExtractTools}))
		if err != nil {
			return nil, err
		}
		defer closeFn()
		offload[i] = cs
	}

	var rows []tokenRow
	for _, n := range ns {
		for _, d := range details {
			text, err := callText(ctx, inline, n, d)
			if err != nil {
				return nil, err
			}
			if len(text) > 0 && text[0] != '{' || jsonHas(text, "offloaded") {
				return nil, fmt.Errorf("inline result n=%d detail=%s is not the records", n, d)
			}
			row := tokenRow{N: n, Detail: d, Inline: c.measure(text)}
			for i, p := range profiles {
				var sizes []size
				for range descriptorCalls {
					desc, err := callText(ctx, offload[i], n, d)
					if err != nil {
						return nil, err
					}
					var dr struct {
						Offloaded bool   `json:"offloaded"`
						FilePath  string `json:"file_path"`
					}
					if err := json.Unmarshal([]byte(desc), &dr); err != nil || !dr.Offloaded || dr.FilePath == "" {
						return nil, fmt.Errorf("n=%d detail=%s descriptor %q: %w", n, d, p.Name, errNotOffloaded)
					}
					if err := os.Remove(dr.FilePath); err != nil {
						return nil, err
					}
					row.PathBytes = len(dr.FilePath)
					sizes = append(sizes, c.measure(desc))
				}
				slices.SortFunc(sizes, func(a, b size) int { return cmp.Compare(a.O200k, b.O200k) })
				row.Descriptors = append(row.Descriptors, sizes[len(sizes)/2])
			}
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// jsonHas reports whether the JSON object text has the top-level key.
func jsonHas(text, key string) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(text), &m) != nil {
		return false
	}
	_, ok := m[key]
	return ok
}

// recordMean is the mean size of one record line at a detail level.
type recordMean struct {
	Detail            memory.Detail
	Records           int
	Bytes, Est, O200k float64
	Cl100k            float64
}

// measureRecords measures every record of the first n memories of the
// corpus as a JSONL line (its JSON, without the newline) at each detail
// level, and returns the means.
func measureRecords(c counters, n int) ([]recordMean, error) {
	corpus := memory.Generate(n, memory.DefaultSeed)
	var out []recordMean
	for _, d := range details {
		var sum size
		for i := range corpus {
			b, err := json.Marshal(memory.Project(&corpus[i], d))
			if err != nil {
				return nil, err
			}
			sum = sum.add(c.measure(string(b)))
		}
		f := float64(n)
		out = append(out, recordMean{Detail: d, Records: n, Bytes: float64(sum.Bytes) / f, Est: float64(sum.Est) / f,
			O200k: float64(sum.O200k) / f, Cl100k: float64(sum.Cl100k) / f})
	}
	return out, nil
}
