package lro_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/estimate"
	"github.com/zircote/lro-go/jsonl"
	"github.com/zircote/lro-go/lro"
)

// arrayText is a JSON array of n records as a tool might print it: some
// records indented over several lines, white space between records, and
// some non-ASCII text.
func arrayText(n int) string {
	var b strings.Builder
	b.WriteString(" [\n")
	for i := range n {
		if i > 0 {
			b.WriteString(" ,\r\n ")
		}
		switch i % 5 {
		case 0:
			fmt.Fprintf(&b, "{\n  \"id\": %d,\n  \"namespace\": \"ns-%d\",\n  \"tags\": [ \"a\", \"b\" ]\n}", i, i%3)
		case 1:
			fmt.Fprintf(&b, `{"id":%d,"namespace":"ns-%d","text":"café – 東京 %d"}`, i, i%3, i)
		default:
			fmt.Fprintf(&b, `{"id":%d,"namespace":"ns-%d","score":%d.5}`, i, i%3, i%7)
		}
	}
	b.WriteString("\n] ")
	return b.String()
}

// TestOffloadWritesEveryRecordAsALine offloads arrays of records, below and
// beyond the number of records whose offsets are noted while validating,
// with every descriptor profile (which infer the schema or not), and checks
// that each line of the file is its record, compacted, and that the count
// and estimate are those of the lines.
func TestOffloadWritesEveryRecordAsALine(t *testing.T) {
	for _, n := range []int{60, 20_000} {
		text := arrayText(n)
		var elems []json.RawMessage
		if err := json.Unmarshal([]byte(text), &elems); err != nil {
			t.Fatal(err)
		}
		var want []string
		tokens := 0
		for _, e := range elems {
			var b bytes.Buffer
			if err := json.Compact(&b, e); err != nil {
				t.Fatal(err)
			}
			want = append(want, b.String())
			tokens += estimate.Bytes(b.Bytes())
		}
		for _, profile := range []lro.Profile{lro.ProfileFull, lro.ProfileNoSchema} {
			t.Run(fmt.Sprintf("%d records, profile %v", n, profile), func(t *testing.T) {
				h := lro.Wrap(func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
				}, &lro.Options{OutputDir: t.TempDir(), Profile: profile, ThresholdTokens: 100})
				res, err := h(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "t"}})
				if err != nil {
					t.Fatal(err)
				}
				d := descriptorOf(t, res)
				hdr, lines, err := jsonl.ReadFile(d.FilePath)
				if err != nil {
					t.Fatal(err)
				}
				got := make([]string, len(lines))
				for i, l := range lines {
					got[i] = string(l)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("lines (-want +got):\n%s", diff)
				}
				if hdr.Count != n || hdr.EstimatedTokens != tokens || d.Summary.EstimatedTokens != tokens {
					t.Errorf("count %d, estimate %d (summary %d); want %d and %d, the estimate of the lines",
						hdr.Count, hdr.EstimatedTokens, d.Summary.EstimatedTokens, n, tokens)
				}
				if diff := cmp.Diff([]string{"ns-0", "ns-1", "ns-2"}, d.Summary.TopNamespaces); diff != "" {
					t.Errorf("top namespaces (-want +got):\n%s", diff)
				}
				if d.Summary.ScoreRange == nil || *d.Summary.ScoreRange != [2]float64{0.5, 6.5} {
					t.Errorf("score range %v, want [0.5 6.5]", d.Summary.ScoreRange)
				}
				if profile == lro.ProfileFull {
					validateAll(t, d.LineSchema, lines)
				}
			})
		}
	}
}

// TestInvalidArrayIsOffloadedAsText checks that a document that is not
// valid JSON only at its very end, after more records than are noted while
// validating, is offloaded as lines of text, never as a broken JSONL file.
func TestInvalidArrayIsOffloadedAsText(t *testing.T) {
	text := strings.TrimSpace(arrayText(10_000))
	text = text[:len(text)-1] + ",]" // a trailing comma
	h := lro.Wrap(func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	}, &lro.Options{OutputDir: t.TempDir()})
	res, err := h(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "t"}})
	if err != nil {
		t.Fatal(err)
	}
	d := descriptorOf(t, res)
	_, lines, err := jsonl.ReadFile(d.FilePath)
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Count(text, "\n") + 1; len(lines) != want {
		t.Fatalf("%d lines, want %d, one per line of text", len(lines), want)
	}
	var first struct {
		Line int    `json:"line"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(lines[0], &first); err != nil || first.Line != 1 || first.Text != "[" {
		t.Errorf("first record %s, want the first line of text", lines[0])
	}
}
