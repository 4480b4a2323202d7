package redact_test

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/zircote/lro-go/internal/redact"
	"github.com/zircote/lro-go/internal/testing/realshapes"
)

// TestRealShapesUntouched redacts every result of the real-shapes corpus
// (recorded tool results, which hold ids, hashes, commit ids, e-mail
// addresses and URLs but no credential): nothing is redacted, as
// docs/redaction.md promises of such data.
func TestRealShapesUntouched(t *testing.T) {
	r, err := redact.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	items, err := realshapes.Items()
	if err != nil {
		t.Fatal(err)
	}
	size := 0
	for _, it := range items {
		var docs [][]byte
		for _, c := range it.Result.Content {
			if tc, ok := c.(*mcp.TextContent); ok {
				docs = append(docs, []byte(tc.Text))
				continue
			}
			b, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			docs = append(docs, b)
		}
		if sc, ok := it.Result.StructuredContent.(json.RawMessage); ok {
			docs = append(docs, sc)
		}
		for _, d := range docs {
			size += len(d)
			n := redact.Counts{}
			if _, ok := r.JSON(d, n); !ok {
				r.String(string(d), n)
			}
			if len(n) > 0 {
				t.Errorf("%s: redacted %v", it.Name, n)
			}
		}
	}
	if size < 100<<10 {
		t.Errorf("the corpus holds %d bytes: too few to tell", size)
	}
}
