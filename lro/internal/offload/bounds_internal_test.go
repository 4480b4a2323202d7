package offload

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro/internal/describe"
)

// TestBesideNamesWithinThreshold: what the descriptor's beside shows of a
// result's other members costs a bounded number of tokens, whatever their
// names and values: long member names (or names and values of escapes)
// beside the records do not push the descriptor past the threshold, nor
// past maxDescriptorTokens to the bare pointer; the file keeps them all.
func TestBesideNamesWithinThreshold(t *testing.T) {
	records := `[` + strings.Repeat(`{"id":"abcdefgh"},`, 300) + `{"id":"z"}]`
	for _, tt := range []struct {
		name   string
		member func(i int) string
	}{
		{"long names", func(i int) string { return fmt.Sprintf(`"%s":%d`, strings.Repeat(string(rune('a'+i)), 600), i) }},
		{"long paths of other parts", func(i int) string {
			return fmt.Sprintf(`"%s":[%d]`, strings.Repeat(string(rune('a'+i)), 600), i)
		}},
		{"escapes", func(i int) string {
			return fmt.Sprintf(`"%s%d":"%s"`, strings.Repeat(`\u0001`, 100), i, strings.Repeat(`\u0001`, 70))
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var sc strings.Builder
			sc.WriteString(`{"items":` + records)
			for i := range 16 {
				sc.WriteString("," + tt.member(i))
			}
			sc.WriteString("}")
			res := &mcp.CallToolResult{StructuredContent: json.RawMessage(sc.String())}
			c := testConfig(t)
			c.Threshold = 1600
			if !c.Apply(context.Background(), func() Call { return Call{Tool: "t"} }, res, nil, nil).Offloaded {
				t.Fatal("not offloaded")
			}
			d := res.StructuredContent.(json.RawMessage)
			var desc testDescriptor
			if err := json.Unmarshal(d, &desc); err != nil {
				t.Fatal(err)
			}
			if tokens := c.Tokenizer.Tokens(d); tokens > c.Threshold || len(desc.JqRecipes) != 10 {
				t.Errorf("a descriptor of %d tokens with %d recipes; want at most the threshold %d, with 10: %.400s", tokens, len(desc.JqRecipes), c.Threshold, d)
			}
			if !bytes.Contains(d, []byte(`"beside":`)) {
				t.Errorf("no beside: %.400s", d)
			}
			h, _, _ := readBack(t, res)
			if !bytes.Contains(h.Result, []byte(strings.TrimSuffix(strings.SplitN(tt.member(15), ":", 2)[0], `"`))) {
				t.Error("the file's header does not keep the last member")
			}
		})
	}
}

// TestNamespacesWithinThreshold: the summary's top namespaces cost a
// bounded number of tokens as the descriptor writes them: a namespace of 200
// bytes of control characters (six bytes each once escaped) is left out, as
// a longer one is.
func TestNamespacesWithinThreshold(t *testing.T) {
	var recs []string
	for i := range 300 {
		recs = append(recs, fmt.Sprintf(`{"namespace":"%s%d","id":%d}`, strings.Repeat(`\u0001`, 198), i%5, i))
	}
	res := &mcp.CallToolResult{StructuredContent: json.RawMessage("[" + strings.Join(recs, ",") + "]")}
	c := testConfig(t)
	c.Threshold = 1600
	if !c.Apply(context.Background(), func() Call { return Call{Tool: "t"} }, res, nil, nil).Offloaded {
		t.Fatal("not offloaded")
	}
	d := res.StructuredContent.(json.RawMessage)
	var desc testDescriptor
	if err := json.Unmarshal(d, &desc); err != nil {
		t.Fatal(err)
	}
	if tokens := c.Tokenizer.Tokens(d); tokens > c.Threshold || len(desc.JqRecipes) != 10 {
		t.Errorf("a descriptor of %d tokens with %d recipes; want at most the threshold %d, with 10: %.400s", tokens, len(desc.JqRecipes), c.Threshold, d)
	}
}

// TestQuotedLen: quotedLen is the length of the JSON string the descriptor
// writes.
func TestQuotedLen(t *testing.T) {
	for _, s := range []string{"", "a", `a"b\c`, "\n\r\t\b\f\x00\x01\x1f", "\u2028\u2029", "\xff\xfe", "é日😀", "<>&", "\x7f"} {
		want, err := describe.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := quotedLen([]byte(s)); got != len(want) {
			t.Errorf("quotedLen(%q) = %d, want %d (%s)", s, got, len(want), want)
		}
	}
}

// TestNamespacesMemoryFlat: the summary counts a bounded number of distinct
// namespaces, so records that each name another allocate no more than
// records that all name one.
func TestNamespacesMemoryFlat(t *testing.T) {
	const n = 200_000
	allocated := func(ns func(i int) string) uint64 {
		var b strings.Builder
		b.WriteByte('[')
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"namespace":"%s","i":%d}`, ns(i), i)
		}
		b.WriteByte(']')
		res := &mcp.CallToolResult{StructuredContent: json.RawMessage(b.String())}
		c := testConfig(t)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		if !c.Apply(context.Background(), func() Call { return Call{Tool: "t"} }, res, nil, nil).Offloaded {
			t.Fatal("not offloaded")
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	one := allocated(func(int) string { return "namespace-00000000000" })
	distinct := allocated(func(i int) string { return fmt.Sprintf("namespace-%011d", i) })
	if distinct > one+4<<20 {
		t.Errorf("%d records of distinct namespaces allocated %d bytes; of one namespace, %d", n, distinct, one)
	}
}
