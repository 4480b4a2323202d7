package lrotest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/offload"
	"github.com/zircote/lro-go/lro/store"
)

// Results kept on the server. A server whose results live in a store (a
// bucket that its replicas share) gives each descriptor a handle and
// follows it with a resource_link to lro://results/{handle}; its file_path
// is where a client that downloads the result keeps it, not yet there. The
// kit then fetches the file with resources/read of that link, keeps it in a
// private temporary folder, and checks that copy as it checks a file on
// its disk: the recipes, which name file_path, run on it with file_path
// replaced by the copy's path.

// idHandle is the requirement of handles and resource links.
const idHandle = "L1.descriptor.handle"

// unknownWords are what an error about an unknown handle says.
var unknownWords = regexp.MustCompile(`(?i)unknown|not found|no such|does not exist|expired`)

// checkHandle checks the handle of desc and the resource link of res that
// goes with it, reads the file with resources/read, and returns its bytes,
// or nil when they could not be read. local is the content of file_path
// when that is on this machine, to compare with; nil otherwise.
func (c *checker) checkHandle(ctx context.Context, desc map[string]any, res *mcp.CallToolResult, local []byte) []byte {
	h, ok := desc["handle"].(string)
	if !ok || h == "" {
		c.fail(idHandle, "handle is %s, want a non-empty string", jsonText(desc["handle"]))
		return nil
	}
	uri := offload.ResultURIPrefix + h
	var link *mcp.ResourceLink
	var others []string
	for _, ct := range res.Content {
		if l, ok := ct.(*mcp.ResourceLink); ok {
			if l.URI == uri && link == nil {
				link = l
			} else {
				others = append(others, strconv.Quote(l.URI))
			}
		}
	}
	if link == nil {
		if len(others) == 0 {
			c.fail(idHandle, "no resource_link follows the descriptor: want one to %s, the handle's resource", uri)
		} else {
			c.fail(idHandle, "the result links %s, not %s, the handle's resource", strings.Join(others, ", "), uri)
		}
		return nil
	}
	var problems []string
	if link.MIMEType != store.ContentType {
		problems = append(problems, fmt.Sprintf("the resource_link's mimeType is %q, want %q", link.MIMEType, store.ContentType))
	}
	rr, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		problems = append(problems, fmt.Sprintf("resources/read of %s failed: %v", uri, oneLine(err.Error(), 300)))
		c.check(idHandle, problems)
		return nil
	}
	if n := len(rr.Contents); n != 1 {
		problems = append(problems, fmt.Sprintf("resources/read of %s returned %d contents, want 1", uri, n))
		if n == 0 {
			c.check(idHandle, problems)
			return nil
		}
	}
	got := rr.Contents[0]
	if got.URI != uri {
		problems = append(problems, fmt.Sprintf("resources/read of %s returned the content of %q", uri, got.URI))
	}
	if got.MIMEType != store.ContentType {
		problems = append(problems, fmt.Sprintf("resources/read of %s returned mimeType %q, want %q", uri, got.MIMEType, store.ContentType))
	}
	data := []byte(got.Text)
	if got.Text == "" && got.Blob != nil {
		data = got.Blob
	}
	if link.Size != nil && *link.Size != int64(len(data)) {
		problems = append(problems, fmt.Sprintf("resources/read of %s returned %d bytes, but the resource_link's size is %d", uri, len(data), *link.Size))
	}
	if local != nil && !bytes.Equal(local, data) {
		problems = append(problems, fmt.Sprintf("resources/read of %s returned %d bytes that differ from file_path's %d bytes, first on line %d", uri, len(data), len(local), firstDiffLine(local, data)))
	}
	other := otherHandle(h)
	if _, err := c.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: offload.ResultURIPrefix + other}); err == nil {
		problems = append(problems, fmt.Sprintf("resources/read of %s%s, a handle the server never gave, returned a resource, want an error saying it is unknown", offload.ResultURIPrefix, other))
	} else if !unknownWords.MatchString(err.Error()) {
		problems = append(problems, fmt.Sprintf("resources/read of %s%s, a handle the server never gave, failed without saying that it is unknown: %v", offload.ResultURIPrefix, other, oneLine(err.Error(), 200)))
	}
	c.check(idHandle, problems)
	return data
}

// otherHandle returns h with the last character before its extension
// changed: a handle of the same form that the server never gave.
func otherHandle(h string) string {
	i := strings.LastIndexByte(h, '.')
	if i <= 0 {
		i = len(h)
	}
	c := byte('0')
	if h[i-1] == '0' {
		c = '1'
	}
	return h[:i-1] + string(c) + h[i:]
}

// firstDiffLine returns the number of the first line where a and b differ.
func firstDiffLine(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return 1 + bytes.Count(a[:i], []byte("\n"))
}

// keep writes data, a fetched file, to a new file in the checker's private
// temporary folder (made on first use, 0700; the file 0600) and returns
// its path.
func (c *checker) keep(data []byte) (string, error) {
	if c.tmp == "" {
		dir, err := os.MkdirTemp("", "lrotest-")
		if err != nil {
			return "", err
		}
		c.tmp = dir
	}
	f, err := os.CreateTemp(c.tmp, "fetched-*.jsonl")
	if err != nil {
		return "", err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Close(); err != nil {
		return "", err
	}
	return f.Name(), nil
}

// removeTemp removes the private temporary folder and the copies in it.
func (c *checker) removeTemp() {
	if c.tmp != "" {
		_ = os.RemoveAll(c.tmp)
		c.tmp = ""
	}
}
