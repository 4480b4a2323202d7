package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/lro"
)

// TestPreviewRecordsFlag: -preview-records sets Options.PreviewRecords
// over the file and the environment, 0 (none) as -1; out of 0..16 it is
// refused.
func TestPreviewRecordsFlag(t *testing.T) {
	tests := []struct {
		args    []string
		env     map[string]string
		want    int
		wantErr string
	}{
		{[]string{"srv"}, nil, 0, ""},
		{[]string{"-preview-records", "0", "srv"}, nil, -1, ""},
		{[]string{"-preview-records", "5", "srv"}, map[string]string{"ATLATL_PROMPT__OFFLOAD__PREVIEW_RECORDS": "0"}, 5, ""},
		{[]string{"srv"}, map[string]string{"ATLATL_PROMPT__OFFLOAD__PREVIEW_RECORDS": "0"}, -1, ""},
		{[]string{"-preview-records", "17", "srv"}, nil, 0, "flag -preview-records=17"},
		{[]string{"-preview-records", "-1", "srv"}, nil, 0, "flag -preview-records=-1"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			setEnv(t, tt.env)
			c, err := setup(tt.args, new(strings.Builder), env(tt.env))
			switch {
			case tt.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want one containing %q", err, tt.wantErr)
				}
			case err != nil:
				t.Fatal(err)
			case c.opts.PreviewRecords != tt.want:
				t.Errorf("PreviewRecords = %d, want %d", c.opts.PreviewRecords, tt.want)
			}
		})
	}
}

// genericListing returns n records of a listing as a tool would print them
// in a file: pretty JSON, nine fields each.
func genericListing(n int) string {
	statuses := []string{"open", "closed", "merged"}
	out := make([]map[string]any, n)
	for i := range out {
		out[i] = map[string]any{
			"id":          1000 + i,
			"name":        fmt.Sprintf("project-%04d", i),
			"title":       fmt.Sprintf("Fix the parser for case %d when the input is long", i),
			"status":      statuses[i%3],
			"owner":       fmt.Sprintf("user%d", i%17),
			"created_at":  fmt.Sprintf("2026-%02d-%02dT10:00:00Z", 1+i%12, 1+i%28),
			"size":        i * 37 % 10000,
			"url":         fmt.Sprintf("https://example.com/projects/%d", 1000+i),
			"description": fmt.Sprintf("A longer description of project %d, which says what it does and why anyone would care about it at all.", i),
		}
	}
	data, _ := json.MarshalIndent(out, "", "  ")
	return string(data)
}

// maxListingDescriptor is what the descriptor of a 3,000-record listing
// may cost through the proxy, its file in /tmp, preview included (issue
// 32).
const maxListingDescriptor = 3600

// TestListingDescriptorSize: through the proxy's configuration (native
// guidance, the system's temporary folder), the descriptor of a
// 3,000-record listing read as a file by server-filesystem's
// read_text_file (the text, and {"content": the text}) is at most 3,600
// bytes with its preview, counted as if the folder were /tmp.
func TestListingDescriptorSize(t *testing.T) {
	c, err := setup([]string{"srv"}, new(strings.Builder), env(nil))
	if err != nil {
		t.Fatal(err)
	}
	localTools(c.opts, c.extract) // sets ExtractTools, as run does
	text := genericListing(3000)
	sc, _ := json.Marshal(map[string]string{"content": text})
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: json.RawMessage(sc)}
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "read_text_file"}}
	first := res.Content[0]
	// The offloading the proxy applies to a result it read: lro.Wrap's.
	h := lro.Wrap(func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return res, nil }, c.opts)
	if _, err := h(context.Background(), req); err != nil || res.Content[0] == first {
		t.Fatal("not offloaded")
	}
	d := res.Content[0].(*mcp.TextContent).Text
	var desc offloadResponse
	if err := json.Unmarshal([]byte(d), &desc); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(desc.FilePath)
	if desc.Preview == nil || len(desc.Preview.Records) != 3 || desc.ExpiresAt == "" {
		t.Errorf("preview %+v, expires_at %q: want 3 records and the expiry", desc.Preview, desc.ExpiresAt)
	}
	// The folder's name is in file_path, in each recipe and the guidance.
	dir := strings.TrimSuffix(os.TempDir(), "/")
	size := len(d) - strings.Count(d, dir+"/")*(len(dir)-len("/tmp"))
	t.Logf("descriptor: %d bytes (%d with the folder %s)", size, len(d), dir)
	if size > maxListingDescriptor {
		t.Errorf("the descriptor is %d bytes, more than %d:\n%s", size, maxListingDescriptor, d)
	}
}
