package lro_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
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

// TestProvideInvalidRawRecords checks that records handed over already
// encoded are validated: a set with one that is not a JSON value is not
// offloaded (it would break the file), and the handler's own result goes
// out unchanged.
func TestProvideInvalidRawRecords(t *testing.T) {
	big := `{"text":"` + strings.Repeat("x", 9000) + `"}`
	tests := []struct {
		name    string
		records any
		offload bool
	}{
		{"valid raw messages are offloaded", []json.RawMessage{json.RawMessage(big), json.RawMessage(` {"a":1} `)}, true},
		{"a raw message cut short is refused", []json.RawMessage{json.RawMessage(big), json.RawMessage(`{"a":`)}, false},
		{"two values in one raw message are refused", []json.RawMessage{json.RawMessage(big + ` {"b":2}`)}, false},
		{"an empty byte slice is refused", [][]byte{[]byte(big), {}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			h := lro.Wrap(func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				lro.Provide(ctx, lro.ResultSet{Records: tt.records})
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "own result"}}}, nil
			}, &lro.Options{OutputDir: dir})
			res, err := h(context.Background(), &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "t"}})
			if err != nil {
				t.Fatal(err)
			}
			if !tt.offload {
				if got := res.Content[0].(*mcp.TextContent).Text; got != "own result" {
					t.Errorf("result %.80q, want the handler's own", got)
				}
				if entries, _ := os.ReadDir(dir); len(entries) != 0 {
					t.Errorf("wrote %d files", len(entries))
				}
				return
			}
			d := descriptorOf(t, res)
			if _, lines, err := jsonl.ReadFile(d.FilePath); err != nil || len(lines) != 2 {
				t.Errorf("file: %d lines, %v; want 2 valid lines", len(lines), err)
			}
		})
	}
}
