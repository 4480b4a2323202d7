package lro_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro"
)

// TestPreviewRecordsOption: Options.PreviewRecords sets how many records
// the descriptor previews, through a go-sdk client: 3 by default, as many
// as set, and none (no preview field at all) when negative.
func TestPreviewRecordsOption(t *testing.T) {
	for _, tt := range []struct {
		set, want int
	}{{0, 3}, {5, 5}, {1, 1}, {-1, 0}} {
		t.Run(fmt.Sprint(tt.set), func(t *testing.T) {
			s := newServer()
			s.AddTool(&mcp.Tool{Name: "items", InputSchema: rawInputSchema},
				lro.Wrap(textHandler(300), &lro.Options{OutputDir: t.TempDir(), PreviewRecords: tt.set}))
			res, err := connect(t, s).CallTool(context.Background(), &mcp.CallToolParams{Name: "items"})
			if err != nil {
				t.Fatal(err)
			}
			d := descriptorOf(t, res)
			switch {
			case tt.want == 0 && d.Preview != nil:
				t.Errorf("preview %+v, want none", d.Preview)
			case tt.want == 0 && strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"preview"`):
				t.Error("the text names a preview")
			case tt.want > 0 && (d.Preview == nil || len(d.Preview.Records) != tt.want):
				t.Errorf("preview %+v, want %d records", d.Preview, tt.want)
			}
		})
	}
}

// TestHugeNumbersDecode: a result whose JSON text holds a number no
// float64 holds (1e400) beside its records and in them is offloaded into a
// descriptor that go-sdk's client decodes, the whole call with it.
func TestHugeNumbersDecode(t *testing.T) {
	s := newServer()
	s.AddTool(&mcp.Tool{Name: "items", InputSchema: rawInputSchema}, lro.Wrap(func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		items := make([]string, 300)
		for i := range items {
			items[i] = fmt.Sprintf(`{"id":"it-%d","name":"item number %d","price":%d}`, i, i, i%9)
		}
		items[0] = `{"id":"it-0","name":"item number 0","price":1e400}`
		text := `{"total":1e400,"items":[` + strings.Join(items, ",") + `]}`
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	}, &lro.Options{OutputDir: t.TempDir()}))
	res, err := connect(t, s).CallTool(context.Background(), &mcp.CallToolParams{Name: "items"})
	if err != nil {
		t.Fatalf("the call fails in go-sdk's client: %v", err)
	}
	d := descriptorOf(t, res)
	var values map[string]any
	if d.Beside == nil || json.Unmarshal(d.Beside.Values, &values) != nil || values[".content[0].text.total"] != "1e400" {
		t.Errorf("beside = %+v, want the total as the text 1e400", d.Beside)
	}
}
